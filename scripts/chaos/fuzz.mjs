// Schema fuzzing from the served OpenAPI documents: for every operation, requests with valid,
// boundary and hostile values for every parameter and body field (fast-check, seeded), sent with a
// full and a read-only token (operator operations: the admin token), plus malformed transports and
// missing or bad credentials. Never a 5xx; every 4xx is the error envelope (docs/decisions.md D1);
// every 2xx is a documented status whose body validates against the documented schema.
import { createHmac } from "node:crypto";
import fc from "fast-check";
import { call, isErrorEnvelope } from "./lib.mjs";
import { boundaryValues, deref, fieldPaths, flatten, HOSTILE_STRINGS, hostileArb, setPath, validArb } from "./schema-arb.mjs";
import { createValidator } from "./validate.mjs";

const METHODS = ["get", "post", "put", "patch", "delete"];
/** Read-only tokens may call these POSTs (docs/decisions.md D2: compute-only). */
const COMPUTE_ONLY = new Set(["verifyDkim", "generateDkimKey", "checkEmails", "auditMessage"]);
/** Hostile strings for URLs: all but the 70,000-character one, which the platform refuses (431) before
 *  the Worker runs (wrangler dev as the Cloudflare edge); bodies still get it. */
const URL_HOSTILE = HOSTILE_STRINGS.filter((v) => v.length < 8000);
const PATH_EXTRA = ["abc", "0", "-1", "01", "1e3", "1.0", "9".repeat(40), " 1", "0x1"];

export function operations(doc) {
  const ops = [];
  for (const [path, item] of Object.entries(doc.paths ?? {})) {
    for (const method of METHODS) {
      const op = item?.[method];
      if (!op) continue;
      ops.push({ path, method: method.toUpperCase(), op, params: [...(item.parameters ?? []), ...(op.parameters ?? [])] });
    }
  }
  // Deletions last, the domain (which takes its selectors with it) after everything else.
  const rank = (o) => (o.method !== "DELETE" ? 0 : o.path.includes("selectors") ? 1 : o.path.includes("webhooks") || o.path.includes("tokens") ? 2 : 3);
  return ops.sort((a, b) => rank(a) - rank(b));
}

const sample = (arb, n, seed) => (n <= 0 ? [] : fc.sample(arb, { numRuns: n, seed }));

function bodySchemaOf(op) {
  const content = op.requestBody?.content;
  if (!content) return null;
  return content["application/json"]?.schema ?? null;
}

/** Builds the list of cases for one operation: { kind, label, pathValues, query, body?, raw?, contentType? }. */
export function casesFor(doc, o, ids, seed, { transport = true } = {}) {
  const pathParams = o.params.filter((p) => p.in === "path");
  const queryParams = o.params.filter((p) => p.in === "query");
  const bodySchema = bodySchemaOf(o.op);
  const validPath = Object.fromEntries(pathParams.map((p) => [p.name, ids[p.name] ?? deref(doc, p.schema).example ?? 1]));
  const validQuery = () => {
    const q = {};
    for (const p of queryParams) {
      const s = deref(doc, p.schema);
      if (p.required) q[p.name] = s.example ?? sample(validArb(doc, s), 1, seed)[0];
    }
    return q;
  };
  const validBody = bodySchema ? sample(validArb(doc, bodySchema), 3, seed) : [];
  const exampleBody = bodySchema ? exampleOf(doc, bodySchema) : undefined;
  const baseBody = exampleBody ?? validBody[0];
  const cases = [];
  const add = (kind, label, extra) =>
    cases.push({ kind, label, pathValues: validPath, query: validQuery(), ...(bodySchema ? { body: baseBody } : {}), ...extra });

  // Valid: documented examples, then generated values for every optional query parameter and body.
  add("valid", "documented example");
  for (const [i, b] of validBody.entries()) {
    const q = validQuery();
    for (const p of queryParams) q[p.name] ??= sample(validArb(doc, deref(doc, p.schema)), 1, seed + i + 1)[0];
    add("valid", `generated #${i + 1}`, { query: q, ...(bodySchema ? { body: b } : {}) });
  }
  // Boundary and hostile: one parameter or field at a time.
  for (const p of pathParams) {
    const values = [...boundaryValues(doc, p.schema), ...PATH_EXTRA].map(String).filter((v) => v !== "");
    for (const v of sample(fc.constantFrom(...values), 3, seed)) add("boundary", `path ${p.name}=${short(v)}`, { pathValues: { ...validPath, [p.name]: v } });
    for (const v of sample(fc.constantFrom(...URL_HOSTILE), 2, seed + 7))
      add("hostile", `path ${p.name}=${short(v)}`, { pathValues: { ...validPath, [p.name]: v } });
  }
  for (const p of queryParams) {
    for (const v of sample(fc.constantFrom(...boundaryValues(doc, p.schema)), 2, seed))
      add("boundary", `query ${p.name}=${short(v)}`, { query: { ...validQuery(), [p.name]: v } });
    for (const v of sample(fc.constantFrom(...URL_HOSTILE), 2, seed + 3))
      add("hostile", `query ${p.name}=${short(v)}`, { query: { ...validQuery(), [p.name]: v } });
    add("hostile", `query ${p.name} repeated`, { query: { ...validQuery(), [p.name]: ["1", "2"] } });
  }
  if (bodySchema) {
    const fields = fieldPaths(doc, bodySchema);
    for (const f of fields) {
      for (const v of sample(fc.constantFrom(...boundaryValues(doc, f.schema)), 1, seed))
        add("boundary", `body ${f.path.join(".")}=${short(v)}`, { body: setPath(baseBody, f.path, v) });
      for (const v of sample(hostileArb(), 1, seed + f.path.length))
        add("hostile", `body ${f.path.join(".")}=${short(v)}`, { body: setPath(baseBody, f.path, v) });
    }
    const required = flatten(doc, bodySchema).required ?? [];
    if (required.length > 0 && baseBody && typeof baseBody === "object") {
      const { [required[0]]: _dropped, ...rest } = baseBody;
      add("boundary", `body without ${required[0]}`, { body: rest });
    }
    add("hostile", "body with an unknown field", {
      body: { ...(baseBody ?? {}), __proto__: { admin: true }, zzz_unknown: "x" },
      raw: JSON.stringify(baseBody ?? {}).replace(/^\{/, '{"__proto__":{"admin":true},"zzz":1,'),
    });
    if (transport) {
      add("hostile", "malformed JSON", { raw: '{"a":', contentType: "application/json" });
      add("hostile", "JSON array body", { raw: "[]", contentType: "application/json" });
      add("hostile", "JSON null body", { raw: "null", contentType: "application/json" });
      add("hostile", "text/plain body", { raw: "hello", contentType: "text/plain" });
      add("hostile", "no body", { raw: "", contentType: "application/json" });
      add("hostile", "deeply nested JSON", { raw: `${"[".repeat(20_000)}${"]".repeat(20_000)}`, contentType: "application/json" });
      add("hostile", "2 MB JSON body", { raw: JSON.stringify({ ...(baseBody ?? {}), pad: "x".repeat(2 * 1024 * 1024) }), contentType: "application/json" });
      add("hostile", "invalid UTF-8 in JSON", {
        raw: Buffer.concat([Buffer.from('{"x":"'), Buffer.from([0xff, 0xfe, 0xc3]), Buffer.from('"}')]),
        contentType: "application/json",
      });
    }
  }
  return cases;
}

/** The documented example of a request body schema, or one built from its properties' examples. */
function exampleOf(doc, schema) {
  const s = flatten(doc, schema);
  if (s.example !== undefined) return s.example;
  if (!s.properties) return undefined;
  const out = {};
  for (const [k, v] of Object.entries(s.properties)) {
    const d = deref(doc, v);
    if (d.example !== undefined) out[k] = d.example;
    else if ((s.required ?? []).includes(k)) return undefined;
  }
  return out;
}

const short = (v) => {
  const t = typeof v === "string" ? JSON.stringify(v) : (JSON.stringify(v) ?? String(v));
  return t.length > 40 ? `${t.slice(0, 37)}…(${t.length})` : t;
};

/** Percent-encodes any string, lone surrogates included (as U+FFFD: a URL carries UTF-8 only). */
export const encodeSegment = (v) => encodeURIComponent(String(v).toWellFormed());

function urlFor(o, pathValues, query) {
  let p = o.path;
  for (const [k, v] of Object.entries(pathValues)) p = p.replace(`{${k}}`, encodeSegment(v));
  const qs = new URLSearchParams();
  for (const [k, v] of Object.entries(query ?? {})) {
    if (v === undefined) continue;
    for (const one of Array.isArray(v) && k !== "__array" ? v : [v]) qs.append(k, typeof one === "string" ? one : JSON.stringify(one));
  }
  const s = qs.toString();
  return s ? `${p}?${s}` : p;
}

/**
 * Checks one answer against the document. Returns a failure description or null.
 * `scope`: "full" | "read_only" | "admin" | "none" (no or a bad credential).
 */
export function judge(validator, o, res, scope) {
  if (res.status === 0) return `no answer: ${res.text.slice(0, 120)}`;
  if (res.status >= 500) return `${res.status} ${res.text.slice(0, 200)}`;
  if (res.status >= 400) return isErrorEnvelope(res) ? null : `${res.status} without the error envelope: ${res.text.slice(0, 160)}`;
  if (scope === "none") return `${res.status} without a valid credential`;
  if (scope === "read_only" && o.method !== "GET" && !COMPUTE_ONLY.has(o.op.operationId)) return `${res.status} for a read-only token on a write`;
  const documented = o.op.responses?.[String(res.status)];
  if (!documented) return `undocumented status ${res.status}`;
  const schema = documented.content?.["application/json"]?.schema;
  if (!schema) {
    if (res.text === "") return null;
    // A documented non-JSON body (the audit export's NDJSON): its media type must be the documented one.
    const type = (res.headers.get("content-type") ?? "").split(";")[0].trim().toLowerCase();
    return type !== "" && type in (documented.content ?? {}) ? null : `${res.status} has a body the document does not describe`;
  }
  if (res.json === undefined) return `${res.status} body is not JSON`;
  const bad = validator.check(schema, res.json);
  return bad ? `${res.status} body breaks its schema: ${bad}` : null;
}

/**
 * Runs the fuzz over both documents. `contexts`: [{ scope, token, ids }] for the team document;
 * `admin`: { token, ids } for the operator document; `ingestSecret` signs /api/webhooks/dmarc bodies.
 */
export async function runFuzz({ base, teamDoc, operatorDoc, contexts, admin, ingestSecret, seed, section, serverLog = () => "", concurrency = 4 }) {
  const teamValidator = createValidator(teamDoc);
  const opValidator = createValidator(operatorDoc);
  const jobs = [];
  const stats = { requests: 0, byStatus: {} };
  const plan = (doc, validator, ctx, o) => {
    const isIngest = o.path === "/api/webhooks/dmarc";
    const cases = casesFor(doc, o, ctx.ids, seed, { transport: ctx.scope !== "read_only" });
    for (const c of cases) jobs.push({ o, c, ctx, validator, isIngest });
    // Credentials: none and a wrong one (the ingestion endpoint: an unsigned and a badly signed body).
    jobs.push({ o, c: { ...cases[0], label: "no credential" }, ctx: { ...ctx, scope: "none", token: undefined }, validator, isIngest, unsigned: true });
    jobs.push({
      o,
      c: { ...cases[0], label: "bad credential" },
      ctx: { ...ctx, scope: "none", token: "eam_0000000000000000000000000000000000000000" },
      validator,
      isIngest,
      badSig: true,
    });
  };
  // Operations run in document order (deletions last); an operation's cases may run concurrently.
  const groups = [];
  for (const o of operations(teamDoc)) {
    const start = jobs.length;
    const applicable = o.path === "/api/webhooks/dmarc" ? contexts.slice(0, 1) : contexts;
    for (const ctx of applicable) plan(teamDoc, teamValidator, ctx, o);
    groups.push(jobs.slice(start));
  }
  for (const o of operations(operatorDoc)) {
    const start = jobs.length;
    plan(operatorDoc, opValidator, { scope: "admin", token: admin.token, ids: admin.ids }, o);
    // A team token is no operator credential.
    jobs.push({
      o,
      c: { ...casesFor(operatorDoc, o, admin.ids, seed)[0], label: "team token on /admin" },
      ctx: { scope: "none", token: contexts[0].token, ids: admin.ids },
      validator: opValidator,
    });
    groups.push(jobs.slice(start));
  }
  for (const group of groups) {
    let next = 0;
    const worker = async () => {
      while (next < group.length) {
        const j = group[next++];
        const res = await send(base, j, ingestSecret);
        stats.requests++;
        stats.byStatus[res.status] = (stats.byStatus[res.status] ?? 0) + 1;
        let bad = judge(j.validator, j.o, res, j.ctx.scope);
        if (bad && res.status >= 500) bad += ` | server log: ${logLinesOf(serverLog(), res.json?.request_id)}`;
        section.check(bad === null, `${j.o.method} ${j.o.path} [${j.ctx.scope}] ${j.c.kind ?? ""} ${j.c.label}`, bad ?? "");
      }
    };
    // Deletions one at a time, so that "the valid one deletes, the rest see 404" stays deterministic.
    const n = group[0]?.o.method === "DELETE" ? 1 : concurrency;
    await Promise.all(Array.from({ length: n }, worker));
  }
  return stats;
}

/** The server's log lines that name a request id (the 500 envelope hides the cause; the log has it). */
function logLinesOf(log, requestId) {
  if (!requestId) return "(no request id)";
  return log
    .split("\n")
    .filter((l) => l.includes(requestId))
    .join(" / ")
    .slice(0, 800);
}

let failingClient = 0;

async function send(base, j, ingestSecret) {
  const { o, c, ctx } = j;
  const url = urlFor(o, c.pathValues, c.query);
  const hasBody = c.raw !== undefined || c.body !== undefined;
  const raw = c.raw !== undefined ? c.raw : c.body !== undefined ? JSON.stringify(c.body) : undefined;
  const headers = {};
  // Credential failures come from their own client addresses: the per-client failure throttle
  // (src/middleware/failure-gate.ts) would otherwise refuse the rest of the fuzz with 429.
  if (ctx.scope === "none") headers["cf-connecting-ip"] = `198.18.${(failingClient >> 8) & 255}.${failingClient++ & 255}`;
  if (j.isIngest && raw !== undefined && !j.unsigned) {
    const key = j.badSig ? `${ingestSecret}x` : ingestSecret;
    headers["x-signature"] = `sha256=${createHmac("sha256", key).update(raw).digest("hex")}`;
  }
  return call(base, o.method, url, {
    token: j.isIngest ? undefined : ctx.token,
    raw: hasBody && o.method !== "GET" && o.method !== "DELETE" ? raw : undefined,
    contentType: c.contentType ?? "application/json",
    headers,
  });
}
