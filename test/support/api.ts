// Calls the Worker's fetch handler as a client would, and builds teams with tokens through the admin API.
import { exports } from "cloudflare:workers";
import { vi } from "vitest";

export const ADMIN_TOKEN = "test-admin-token-0123456789abcdefghijklmnop";

export interface CallOptions {
  method?: string;
  token?: string | null;
  body?: unknown;
  rawBody?: BodyInit;
  headers?: Record<string, string>;
}

export async function call(path: string, opts: CallOptions = {}): Promise<Response> {
  const headers = new Headers(opts.headers);
  if (opts.token) headers.set("authorization", `Bearer ${opts.token}`);
  let body: BodyInit | undefined = opts.rawBody;
  if (opts.body !== undefined) {
    body = JSON.stringify(opts.body);
    if (!headers.has("content-type")) headers.set("content-type", "application/json");
  }
  return exports.default.fetch(new Request(`https://api.test${path}`, { method: opts.method ?? "GET", headers, body }));
}

export async function json<T = Record<string, unknown>>(res: Response): Promise<T> {
  return (await res.json()) as T;
}

let seq = 0;
export const unique = (label: string) => `${label}-${Date.now().toString(36)}-${(seq++).toString(36)}`;

export interface TestTeam {
  id: number;
  full: string;
  readOnly: string;
  fullTokenId: number;
}

export async function makeTeam(plan: "starter" | "pro" | "enterprise" = "enterprise"): Promise<TestTeam> {
  const res = await call("/admin/teams", {
    method: "POST",
    token: ADMIN_TOKEN,
    body: { name: unique("team"), plan, owner_email: `${unique("owner")}@example.com` },
  });
  if (res.status !== 201) throw new Error(`team creation failed: ${res.status} ${await res.text()}`);
  const { data } = await json<{ data: { team: { id: number }; tokens: { full: { token: string; id: number }; read_only: { token: string } } } }>(res);
  return { id: data.team.id, full: data.tokens.full.token, readOnly: data.tokens.read_only.token, fullTokenId: data.tokens.full.id };
}

/**
 * Pins the clock at the start of the current minute (plus one second) so that a burst of requests
 * stays inside one fixed minute window, without waiting for a new minute: only Date is faked (timers
 * stay real), and the Worker, its services and the RateLimiter object all read that Date in the pool's
 * isolate. test/setup.ts restores the real clock after every test. Returns the pinned time (ms).
 */
export async function awaitFreshMinute(_needSeconds?: number): Promise<number> {
  const now = Date.now();
  const pinned = now - (now % 60_000) + 1_000;
  vi.useFakeTimers({ toFake: ["Date"], now: pinned });
  return pinned;
}
