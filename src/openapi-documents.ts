// The OpenAPI 3.1 documents, built once per isolate from the routes' own schemas: the team-facing
// document (/api/v1/openapi.json) and the operator document for /admin (/admin/openapi.json).
// The server is the configured public URL (SITE_URL) or the relative "/", never the request's Host
// header, so a generated client never bakes in whatever host fetched the document.
import type { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "./context";

type Document = ReturnType<OpenAPIHono<AppEnv>["getOpenAPI31Document"]>;

export interface Documents {
  team: Document;
  operator: Document;
}

const INFO = {
  title: "Email Authentication Monitoring API",
  version: "1.0.0",
  description:
    "SPF, DKIM, DMARC, BIMI, MTA-STS, TLS-RPT and DANE posture, DKIM key monitoring, DMARC analytics and signed webhooks. " +
    "Every path below starts with its full prefix (/api/v1, /api/webhooks), so the server is the site's origin.",
  license: { name: "Proprietary", identifier: "LicenseRef-Proprietary" },
  contact: { name: "Support", url: "https://emailauth.example/support", email: "support@emailauth.example" },
};

const TAGS = [
  { name: "Account", description: "The calling token's team, plan, limits and usage." },
  { name: "Domains", description: "Monitored domains, ownership verification, checks, history and diffs." },
  {
    name: "DKIM",
    description: "A domain's DKIM selector inventory and key history; tools to verify a message, generate a key pair and look up any domain's selectors.",
  },
  { name: "DMARC", description: "Aggregate-report analytics of a domain." },
  {
    name: "Messages",
    description: "Audit one raw message as the big mailbox providers would: SPF, DKIM, DMARC, ARC, one-click unsubscribe and bulk-sender rules.",
  },
  { name: "DMARC ingestion", description: "Where reporters (or a forwarding worker) post DMARC aggregate reports." },
  { name: "TLS reporting", description: "SMTP TLS reports (RFC 8460): where reporters post them, and a domain's TLS results." },
  { name: "Alerts", description: "Open and resolved alerts of the team." },
  { name: "Intelligence", description: "Posture of any domain and checks of email addresses." },
  { name: "Webhooks", description: "Endpoints, the event catalogue, deliveries and redelivery." },
  { name: "Notifications", description: "Channels that tell people (email, Slack, Teams, PagerDuty), their rules and delivery logs." },
  {
    name: "MTA-STS hosting",
    description:
      "The MTA-STS policy served on mta-sts.<domain>, the records to publish with their live state, the one-click enforce and turning off (RFC 8461).",
  },
  {
    name: "BIMI hosting",
    description: "The BIMI logo and mark certificate (VMC or CMC) served for l= and a=, their validation report and whether Gmail would show the logo.",
  },
  { name: "Audit log", description: "Who did what through every face, with a hash chain that proves nothing was altered or removed (owners and admins)." },
  { name: "Single sign-on", description: "The team's OpenID Connect provider, covered email domains and enforcement (read here; changed in the dashboard)." },
];

const cache = new Map<string, Documents>();

export function openApiDocuments(app: OpenAPIHono<AppEnv>, siteUrl: string | null): Documents {
  const server = siteUrl ? siteUrl.replace(/\/+$/, "") : "/";
  const hit = cache.get(server);
  if (hit) return hit;
  const full = withSharedResponseParts(app.getOpenAPI31Document({ openapi: "3.1.0", info: INFO, servers: [{ url: server }] }));
  const paths = full.paths ?? {};
  const isOperator = (p: string) => p === "/admin" || p.startsWith("/admin/");
  const pick = (keep: (p: string) => boolean) => Object.fromEntries(Object.entries(paths).filter(([p]) => keep(p)));
  const schemes = (full.components?.securitySchemes ?? {}) as Record<string, unknown>;
  const { adminToken, ...teamSchemes } = schemes;
  const team: Document = {
    ...full,
    tags: TAGS,
    paths: pick((p) => !isOperator(p)),
    components: { ...full.components, securitySchemes: teamSchemes as NonNullable<Document["components"]>["securitySchemes"] },
  };
  const { webhooks: _events, ...withoutWebhooks } = full;
  const operator: Document = {
    ...withoutWebhooks,
    info: {
      ...INFO,
      title: "Email Authentication Monitoring: operator API",
      description: "Teams, tokens and plans. Every path needs the ADMIN_TOKEN secret as a bearer token.",
    },
    tags: [{ name: "Admin", description: "Operator operations (ADMIN_TOKEN)." }],
    paths: pick(isOperator),
    components: {
      schemas: referencedSchemas(pick(isOperator), full.components?.schemas ?? {}),
      headers: Object.fromEntries(
        Object.entries(full.components?.headers ?? {}).filter(
          ([name]) => JSON.stringify(pick(isOperator)).includes(`#/components/headers/${name}"`) || name === "X-Request-Id",
        ),
      ),
      responses: full.components?.responses,
      securitySchemes: { adminToken } as NonNullable<Document["components"]>["securitySchemes"],
    },
  };
  const out = { team, operator };
  cache.set(server, out);
  return out;
}

/** Only the component schemas that `root` reaches through $ref, transitively (a document without dead components). */
function referencedSchemas(root: unknown, schemas: Record<string, unknown>): Record<string, never> {
  const out: Record<string, unknown> = {};
  const walk = (node: unknown): void => {
    if (Array.isArray(node)) {
      for (const n of node) walk(n);
      return;
    }
    if (node === null || typeof node !== "object") return;
    for (const [k, v] of Object.entries(node)) {
      const name = k === "$ref" && typeof v === "string" ? /^#\/components\/schemas\/(.+)$/.exec(v)?.[1] : undefined;
      if (name !== undefined && !(name in out) && name in schemas) {
        out[name] = schemas[name];
        walk(schemas[name]);
      } else walk(v);
    }
  };
  walk(root);
  return out as Record<string, never>;
}

const SHARED_HEADERS: Record<string, { description: string; schema: { type: "integer" | "string" } }> = {
  "X-Request-Id": {
    description: "This response's id (the caller's own X-Request-Id when it sent a sane one); also `request_id` in error bodies.",
    schema: { type: "string" },
  },
  "X-RateLimit-Limit": { description: "Requests allowed per minute.", schema: { type: "integer" } },
  "X-RateLimit-Remaining": { description: "Requests left in this minute.", schema: { type: "integer" } },
  "X-RateLimit-Reset": { description: "Seconds until the minute window resets.", schema: { type: "integer" } },
  "X-Quota-Limit": { description: "Requests allowed this calendar month.", schema: { type: "integer" } },
  "X-Quota-Used": { description: "Requests counted this month.", schema: { type: "integer" } },
  "Retry-After": { description: "Seconds to wait before trying again.", schema: { type: "integer" } },
};

type Json = Record<string, unknown>;

/**
 * Response parts every operation shares, declared once as components: the rate-limit and request-id
 * headers (referenced from each response that carries them) and a `default` error response.
 */
function withSharedResponseParts(doc: Document): Document {
  const components = (doc.components ?? {}) as Json;
  components.headers = { ...((components.headers as Json | undefined) ?? {}), ...SHARED_HEADERS };
  components.responses = {
    ...((components.responses as Json | undefined) ?? {}),
    Error: {
      description: "Any other error, in the one error envelope.",
      headers: { "X-Request-Id": { $ref: "#/components/headers/X-Request-Id" } },
      content: { "application/json": { schema: { $ref: "#/components/schemas/Error" } } },
    },
  };
  for (const item of Object.values((doc.paths ?? {}) as Record<string, Json>)) {
    for (const [method, op] of Object.entries(item)) {
      if (!["get", "post", "put", "patch", "delete"].includes(method)) continue;
      const responses = (op as { responses: Record<string, Json> }).responses;
      for (const res of Object.values(responses)) {
        if ("$ref" in res) continue;
        const headers = { ...((res.headers as Json | undefined) ?? {}) };
        for (const name of Object.keys(headers)) if (name in SHARED_HEADERS) headers[name] = { $ref: `#/components/headers/${name}` };
        headers["X-Request-Id"] = { $ref: "#/components/headers/X-Request-Id" };
        res.headers = headers;
      }
      responses.default ??= { $ref: "#/components/responses/Error" };
    }
  }
  return { ...doc, components: components as Document["components"] };
}
