// The policy host face: a request whose Host is `mta-sts.<hosted domain>` gets the policy at
// /.well-known/mta-sts.txt (RFC 8461 §3.3) and nothing else. Called by the fetch export before the app;
// other hosts cost one string test and no D1 read (docs/decisions.md D218).
import { createDb } from "../../db/client";
import type { Env } from "../../env";
import { hostedNameOf, servedPolicyText } from "../../services/mta-sts-hosting/serve";

/** RFC 8461 §3.2: the well-known path of the policy file. */
export const POLICY_PATH = "/.well-known/mta-sts.txt";

const text = (body: string | null, status: number, extra: Record<string, string> = {}) =>
  new Response(body, {
    status,
    headers: {
      // RFC 8461 §3.3: the policy is served as text/plain; charset per RFC 2046.
      "content-type": "text/plain; charset=utf-8",
      // A shared cache holding the old file after an id change would hand senders the old policy under the
      // new id, and they keep it for max_age (RFC 8461 §3.1, §5.1): every fetch reads the current row.
      "cache-control": "no-store",
      ...extra,
    },
  });

/** The answer for a hosted policy host, or null: not such a host (the app answers). */
export async function hostedPolicyResponse(request: Request, env: Env): Promise<Response | null> {
  // The Host header names the policy host; a request built without one (a test, a subrequest) has it in the URL.
  const name = hostedNameOf(request.headers.get("host") ?? new URL(request.url).host);
  if (name === null) return null;
  const policy = await servedPolicyText({ db: createDb(env.DB) }, name);
  if (policy === null) return null;
  const path = new URL(request.url).pathname;
  if (path !== POLICY_PATH) return text("Not found.\n", 404);
  if (request.method !== "GET" && request.method !== "HEAD") return text("Method not allowed.\n", 405, { allow: "GET, HEAD" });
  const bytes = new TextEncoder().encode(policy);
  return text(request.method === "HEAD" ? null : policy, 200, { "content-length": String(bytes.byteLength) });
}
