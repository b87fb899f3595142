// Test helper: the Cloudflare API at the edge (https://cf-api.test/client/v4, vitest.config.ts) behind the
// DoH stub, as its documentation describes it: bearer token, the v4 envelope {success, errors, result},
// custom hostnames (POST/GET/DELETE /zones/{zone_id}/custom_hostnames) and DNS records (GET ?type&name,
// POST, PATCH, DELETE /zones/{zone_id}/dns_records). Records every call; a test may fail the next ones.
import { type DohStub, type DohStubOptions, installDohStub, type StubZone } from "./doh-stub";

export const CF_BASE = "https://cf-api.test/client/v4";
export const CF_ZONE = "zone-test";
export const CF_TOKEN = "test-cloudflare-token";

export interface CfCall {
  method: string;
  path: string;
  query: Record<string, string>;
  body: Record<string, unknown> | null;
}

export interface FakeCloudflare {
  stub: DohStub;
  calls: CfCall[];
  hostnames: Map<string, { id: string; hostname: string; status: string; ssl: { status: string } }>;
  records: Map<string, { id: string; type: string; name: string; content: string; ttl: number }>;
  /** The next `times` API calls answer this HTTP status with an error envelope. */
  failNext(status: number, times?: number): void;
  /** Marks every hostname and its certificate active, as Cloudflare does once validation passed. */
  activateAll(): void;
  /** Runs when a call arrives, before it is answered (a test makes a request race it). */
  onCall: ((c: CfCall) => void | Promise<void>) | null;
}

const envelope = (result: unknown, status = 200, errors: Array<{ code: number; message: string }> = []) =>
  new Response(JSON.stringify({ success: errors.length === 0, errors, messages: [], result }), { status, headers: { "content-type": "application/json" } });

/** DoH stub for `zone` (with `dns`'s delays) plus the fake API; other HTTPS requests go to `passthrough` (default 404). */
export function installCloudflare(
  zone: StubZone = {},
  passthrough?: (req: Request) => Response | Promise<Response>,
  dns: Omit<DohStubOptions, "passthrough"> = {},
): FakeCloudflare {
  const calls: CfCall[] = [];
  const hostnames: FakeCloudflare["hostnames"] = new Map();
  const records: FakeCloudflare["records"] = new Map();
  let failing: { status: number; times: number } | null = null;
  let seq = 0;

  async function api(req: Request): Promise<Response> {
    const url = new URL(req.url);
    const body = req.method === "POST" || req.method === "PATCH" ? ((await req.json()) as Record<string, unknown>) : null;
    const prefix = `/client/v4/zones/${CF_ZONE}`;
    const path = url.pathname.startsWith(prefix) ? url.pathname.slice(prefix.length) : url.pathname;
    const recorded: CfCall = { method: req.method, path, query: Object.fromEntries(url.searchParams), body };
    calls.push(recorded);
    if (fake.onCall) await fake.onCall(recorded);
    if (req.headers.get("authorization") !== `Bearer ${CF_TOKEN}`) return envelope(null, 403, [{ code: 10000, message: "Authentication error" }]);
    if (!url.pathname.startsWith(prefix)) return envelope(null, 404, [{ code: 7003, message: "Could not route" }]);
    if (failing && failing.times > 0) {
      failing.times--;
      return envelope(null, failing.status, [{ code: 1000, message: "injected failure" }]);
    }
    if (path === "/custom_hostnames" && req.method === "POST") {
      const name = String(body?.hostname);
      if ([...hostnames.values()].some((h) => h.hostname === name)) return envelope(null, 409, [{ code: 1406, message: "Duplicate custom hostname found." }]);
      const h = { id: `ch-${++seq}`, hostname: name, status: "pending", ssl: { status: "pending_validation" } };
      hostnames.set(h.id, h);
      return envelope(
        {
          ...h,
          ssl: {
            ...h.ssl,
            method: "http",
            type: "dv",
            validation_records: [{ http_url: `http://${name}/.well-known/pki-validation/x.txt`, http_body: "ca3-token" }],
          },
        },
        201,
      );
    }
    if (path === "/custom_hostnames" && req.method === "GET") {
      return envelope([...hostnames.values()].filter((h) => h.hostname === url.searchParams.get("hostname")));
    }
    const ch = /^\/custom_hostnames\/([^/]+)$/.exec(path);
    if (ch) {
      const h = hostnames.get(ch[1] ?? "");
      if (!h) return envelope(null, 404, [{ code: 1436, message: "The custom hostname was not found." }]);
      if (req.method === "DELETE") {
        hostnames.delete(h.id);
        return envelope({ id: h.id });
      }
      return envelope({ ...h, ssl: { ...h.ssl, method: "http", type: "dv" } });
    }
    if (path === "/dns_records" && req.method === "GET") {
      return envelope([...records.values()].filter((r) => r.type === url.searchParams.get("type") && r.name === url.searchParams.get("name")));
    }
    if (path === "/dns_records" && req.method === "POST") {
      const r = { id: `rr-${++seq}`, type: String(body?.type), name: String(body?.name), content: String(body?.content), ttl: Number(body?.ttl ?? 1) };
      records.set(r.id, r);
      return envelope(r);
    }
    const rr = /^\/dns_records\/([^/]+)$/.exec(path);
    if (rr) {
      const r = records.get(rr[1] ?? "");
      if (!r) return envelope(null, 404, [{ code: 81044, message: "Record does not exist." }]);
      if (req.method === "DELETE") {
        records.delete(r.id);
        return envelope({ id: r.id });
      }
      Object.assign(r, body?.content === undefined ? {} : { content: String(body.content) }, body?.ttl === undefined ? {} : { ttl: Number(body.ttl) });
      return envelope(r);
    }
    return envelope(null, 404, [{ code: 7003, message: "No route" }]);
  }

  const stub = installDohStub(zone, {
    ...dns,
    passthrough: (req) => (new URL(req.url).host === "cf-api.test" ? api(req) : passthrough ? passthrough(req) : new Response("not found", { status: 404 })),
  });
  const fake: FakeCloudflare = {
    stub,
    calls,
    hostnames,
    records,
    failNext: (status, times = 1) => {
      failing = { status, times };
    },
    activateAll: () => {
      for (const h of hostnames.values()) Object.assign(h, { status: "active", ssl: { status: "active" } });
    },
    onCall: null,
  };
  return fake;
}

/** The TXT value a record holds, without the quotes the API stores it in. */
export const unquote = (content: string) => content.replace(/^"|"$/g, "");
