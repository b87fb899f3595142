// Tenancy sweep generated from the document: every operation with an id in its path is called by
// another team with the owner's real ids (a valid body where it takes one). Each must answer 404
// (docs/decisions.md D1: another team's id is never revealed), and the owner's state, read through
// every GET operation before and after, must be unchanged.
import { call, isErrorEnvelope, sleep } from "./lib.mjs";
import { casesFor, encodeSegment, operations } from "./fuzz.mjs";

function urlOf(path, values, query) {
  let p = path;
  for (const [k, v] of Object.entries(values)) p = p.replace(`{${k}}`, encodeSegment(v));
  const qs = new URLSearchParams(Object.entries(query ?? {}).map(([k, v]) => [k, String(v)])).toString();
  return qs ? `${p}?${qs}` : p;
}

/** Everything the owner can read: every GET operation with the owner's ids. */
async function snapshot(base, doc, owner, seed) {
  const out = {};
  for (const o of operations(doc)) {
    if (o.method !== "GET" || o.path === "/api/v1/me") continue; // /me counts the owner's own requests
    if (o.params.some((p) => p.in === "query" && p.required)) continue; // lookups, not owned state
    const c = casesFor(doc, o, owner.ids, seed, { transport: false })[0];
    const res = await call(base, "GET", urlOf(o.path, c.pathValues, {}), { token: owner.full });
    const { request_id: _id, ...body } = res.json ?? {};
    out[o.path] = { status: res.status, body };
  }
  return out;
}

/** Paths where two snapshots differ (first few). */
function differences(a, b, path = "") {
  if (JSON.stringify(a) === JSON.stringify(b)) return [];
  if (a === null || b === null || typeof a !== "object" || typeof b !== "object")
    return [`${path || "/"}: ${JSON.stringify(a)?.slice(0, 80)} → ${JSON.stringify(b)?.slice(0, 80)}`];
  const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
  return [...keys].flatMap((k) => differences(a[k], b[k], `${path}/${k}`)).slice(0, 5);
}

/** Deliveries and notifications still on their way in a snapshot ("pending", "collecting"). */
function inFlight(snap) {
  const out = [];
  for (const [path, s] of Object.entries(snap)) {
    if (!/\/(deliveries|messages)(\/\{[a-z]+\})?$/.test(path)) continue;
    const data = s.body?.data;
    for (const row of Array.isArray(data) ? data : data ? [data] : [])
      if (row?.status === "pending" || row?.status === "collecting") out.push(`${path}: ${row.id ?? "?"} ${row.status}`);
  }
  return out;
}

export async function runTenancy({ base, doc, owner, intruder, seed, section }) {
  // Team-owned resources only: an operation that takes no team token (a report URL addressed by its
  // own unguessable token, say) has no "other team" to try it as.
  const teamScoped = (o) => (o.op.security ?? doc.security ?? []).some((req) => "bearerAuth" in req);
  const targets = operations(doc).filter((o) => o.params.some((p) => p.in === "path") && teamScoped(o));
  section.check(targets.length > 0, "the document has operations with ids in their path");
  // The owner's own work may still be settling (a setup event's delivery waiting behind the checks the
  // other sections queue, then its retry): the "before" picture is taken once two reads in a row agree
  // and no delivery or notification is still in flight (at most 120 s). Two equal reads alone are not
  // enough: a pending delivery stays unchanged for as long as its retry waits.
  let before = await snapshot(base, doc, owner, seed);
  for (const deadline = Date.now() + 120_000; Date.now() < deadline; ) {
    await sleep(2_000);
    const again = await snapshot(base, doc, owner, seed);
    const settled = differences(before, again).length === 0 && inFlight(again).length === 0;
    before = again;
    if (settled) break;
  }
  const unsettled = inFlight(before);
  section.check(unsettled.length === 0, "the owner's deliveries settle before the sweep", unsettled.join("; "));
  for (const [path, s] of Object.entries(before)) section.check(s.status === 200, `owner reads ${path}`, `${s.status}`);
  for (const o of targets) {
    const c = casesFor(doc, o, owner.ids, seed, { transport: false })[0];
    for (const [scope, token] of [
      ["full", intruder.full],
      ["read_only", intruder.ro],
    ]) {
      const res = await call(base, o.method, urlOf(o.path, c.pathValues, c.query), { token, body: c.body });
      // A read-only token may be refused for its scope first (403): that reveals nothing either.
      const ok = (res.status === 404 || (scope === "read_only" && o.method !== "GET" && res.status === 403)) && isErrorEnvelope(res);
      section.check(ok, `${o.method} ${o.path} by another team [${scope}]`, `${res.status} ${res.text.slice(0, 160)}`);
    }
  }
  const after = await snapshot(base, doc, owner, seed);
  for (const path of Object.keys(before)) {
    const diff = differences(before[path], after[path]);
    section.check(diff.length === 0, `owner's ${path} unchanged by the sweep`, diff.join("; "));
  }
}
