// Local development only (DEV_OUTBOX=true, no CLOUDFLARE_API_TOKEN; docs/decisions.md D219): a fake of the
// few Cloudflare API calls hosting makes, answering in this isolate's memory, so `npm start` shows the
// whole flow without an account. A new custom hostname waits for validation; the PATCH the service sends
// once the customer's CNAME is live completes it, as HTTP validation does then. Never used in production:
// hostingSettings() picks it only when DEV_OUTBOX is set.
import type { HttpFetch } from "../../core/types";

interface FakeHostname {
  id: string;
  hostname: string;
  validated: boolean;
}
interface FakeRecord {
  id: string;
  type: string;
  name: string;
  content: string;
  ttl: number;
}

const hostnames = new Map<string, FakeHostname>();
const records = new Map<string, FakeRecord>();
let seq = 0;

const json = (result: unknown, status = 200) => new Response(JSON.stringify({ success: status < 300, errors: [], messages: [], result }), { status });
const view = (h: FakeHostname) => {
  const active = h.validated;
  return {
    id: h.id,
    hostname: h.hostname,
    status: active ? "active" : "pending",
    ssl: {
      status: active ? "active" : "pending_validation",
      method: "http",
      type: "dv",
      validation_records: active ? [] : [{ http_url: `http://${h.hostname}/.well-known/pki-validation/dev.txt`, http_body: "dev-validation" }],
      validation_errors: [],
    },
  };
};

export const devCloudflareFetch: HttpFetch = async (input, init) => {
  const req = new Request(input, init);
  const url = new URL(req.url);
  const path = url.pathname.replace(/^.*\/zones\/[^/]+/, "");
  const body = req.method === "POST" || req.method === "PATCH" ? ((await req.json()) as Record<string, unknown>) : {};
  if (path === "/custom_hostnames" && req.method === "POST") {
    const h: FakeHostname = { id: `dev-ch-${++seq}`, hostname: String(body.hostname), validated: false };
    hostnames.set(h.id, h);
    return json(view(h), 201);
  }
  if (path === "/custom_hostnames" && req.method === "GET") {
    const name = url.searchParams.get("hostname");
    return json([...hostnames.values()].filter((h) => h.hostname === name).map(view));
  }
  const ch = /^\/custom_hostnames\/([^/]+)$/.exec(path);
  if (ch) {
    const h = hostnames.get(decodeURIComponent(ch[1] ?? ""));
    if (!h) return json(null, 404);
    if (req.method === "DELETE") {
      hostnames.delete(h.id);
      return json({ id: h.id });
    }
    if (req.method === "PATCH") h.validated = true;
    return json(view(h));
  }
  if (path === "/dns_records" && req.method === "GET") {
    const name = url.searchParams.get("name");
    return json([...records.values()].filter((r) => r.name === name && r.type === url.searchParams.get("type")));
  }
  if (path === "/dns_records" && req.method === "POST") {
    const r: FakeRecord = {
      id: `dev-rr-${++seq}`,
      type: String(body.type),
      name: String(body.name),
      content: String(body.content),
      ttl: Number(body.ttl ?? 1),
    };
    records.set(r.id, r);
    return json(r);
  }
  const rr = /^\/dns_records\/([^/]+)$/.exec(path);
  if (rr) {
    const r = records.get(decodeURIComponent(rr[1] ?? ""));
    if (!r) return json(null, 404);
    if (req.method === "DELETE") {
      records.delete(r.id);
      return json({ id: r.id });
    }
    if (typeof body.content === "string") r.content = body.content;
    return json(r);
  }
  return json(null, 404);
};
