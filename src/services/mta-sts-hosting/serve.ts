// The policy file receivers fetch from https://mta-sts.<domain>/.well-known/mta-sts.txt (RFC 8461 §3.3):
// the row of that name, rendered. Does I/O (one D1 read by the unique name index).
import { renderPolicy } from "../../core/mta-sts/hosting";
import type { Services } from "../../services";
import { hostedRowByName, servedPolicy } from "./rows";

export const POLICY_HOST_PREFIX = "mta-sts.";

/** The domain a Host header names as its policy host, or null (no D1 read for other hosts). */
export function hostedNameOf(host: string): string | null {
  const h = host.toLowerCase().replace(/:\d+$/, "").replace(/\.$/, "");
  if (!h.startsWith(POLICY_HOST_PREFIX)) return null;
  const name = h.slice(POLICY_HOST_PREFIX.length);
  return name.includes(".") ? name : null;
}

/** The policy text for `mta-sts.<name>`, or null when no team hosts that name. */
export async function servedPolicyText(svc: Pick<Services, "db">, name: string): Promise<string | null> {
  const row = await hostedRowByName(svc, name);
  return row ? renderPolicy(servedPolicy(row)) : null;
}
