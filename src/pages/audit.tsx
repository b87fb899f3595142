/** @jsxImportSource hono/jsx */
// The audit log page (docs/audit.md): the same filters as GET /api/v1/audit, a table of who did what,
// the chain verified on request, and the NDJSON export of the same filters. Owners and admins only (the
// verbs refuse a viewer with 403, which the pages' error handler shows; D233).
import { Hono } from "hono";
import type { FC } from "hono/jsx";
import type { AppEnv } from "../context";
import { AUDIT_FACES } from "../db/schema";
import {
  type AuditEntryView,
  type AuditFilters,
  type AuditVerification,
  exportAuditEntries,
  listAuditEntries,
  VERB_FILTER,
  verifyAuditChain,
} from "../services/audit/read";
import { plural, when } from "./domain-format";
import { frameOf } from "./frame";
import { signedInOrRedirect } from "./guard";
import { type Frame, Layout, Notice } from "./layout";

const PER_PAGE = 50;
const DAY = /^\d{4}-\d{2}-\d{2}$/;
const FACE_NAMES: Record<(typeof AUDIT_FACES)[number], string> = {
  api: "REST API",
  dashboard: "Dashboard",
  agent: "Agent",
  operator: "Operator",
  system: "The service",
};

interface PageFilters {
  actor: string;
  verb: string;
  face: string;
  target_type: string;
  target_id: string;
  from: string;
  to: string;
}

/** The form's fields as typed, and the filters they make; a field that does not parse is named and ignored. */
function readFilters(query: Record<string, string>): { shown: PageFilters; filters: AuditFilters; ignored: string[] } {
  const v = (k: string, max: number) => (query[k] ?? "").trim().slice(0, max);
  const shown: PageFilters = {
    actor: v("actor", 320),
    verb: v("verb", 100),
    face: v("face", 20),
    target_type: v("target_type", 50),
    target_id: v("target_id", 200),
    from: v("from", 10),
    to: v("to", 10),
  };
  const ignored: string[] = [];
  /** The value when it is empty (no filter) or valid; else the field is named as ignored. */
  const valid = <T,>(name: string, raw: string, parse: (s: string) => T | null): T | undefined => {
    if (!raw) return undefined;
    const value = parse(raw);
    if (value === null) ignored.push(name);
    return value ?? undefined;
  };
  const day = (end: boolean) => (s: string) => {
    const d = new Date(`${s}T${end ? "23:59:59.999" : "00:00:00.000"}Z`);
    return DAY.test(s) && !Number.isNaN(d.getTime()) ? d : null;
  };
  const filters: AuditFilters = {
    actor: shown.actor || undefined,
    verb: valid("verb", shown.verb, (s) => (VERB_FILTER.test(s) ? s : null)),
    face: valid("face", shown.face, (s) => AUDIT_FACES.find((f) => f === s) ?? null),
    target_type: valid("target type", shown.target_type, (s) => (/^[a-z_]+$/.test(s) ? s : null)),
    target_id: shown.target_id || undefined,
    from: valid("from", shown.from, day(false)),
    to: valid("to", shown.to, day(true)),
  };
  return { shown, filters, ignored };
}

const queryOf = (f: PageFilters, extra: Record<string, string> = {}) => {
  const p = new URLSearchParams();
  for (const [k, val] of Object.entries({ ...f, ...extra })) if (val) p.set(k, val);
  const s = p.toString();
  return s ? `?${s}` : "";
};

const Field: FC<{ id: string; label: string; value: string; placeholder?: string; type?: string }> = ({ id, label, value, placeholder, type }) => (
  <div>
    <label for={`audit-${id}`}>{label}</label>
    <input id={`audit-${id}`} name={id} type={type ?? "text"} value={value} placeholder={placeholder} />
  </div>
);

const Filters: FC<{ f: PageFilters }> = ({ f }) => (
  <form method="get" action="/audit" class="filters" aria-label="Filter the audit log">
    <Field id="actor" label="Who" value={f.actor} placeholder="alice@example.com" />
    <Field id="verb" label="Verb" value={f.verb} placeholder="domain.*" />
    <div>
      <label for="audit-face">Through</label>
      <select id="audit-face" name="face">
        <option value="" selected={f.face === ""}>
          Any
        </option>
        {AUDIT_FACES.map((face) => (
          <option value={face} selected={f.face === face}>
            {FACE_NAMES[face]}
          </option>
        ))}
      </select>
    </div>
    <Field id="target_type" label="Target type" value={f.target_type} placeholder="domain" />
    <Field id="target_id" label="Target id" value={f.target_id} />
    <Field id="from" label="From (UTC)" value={f.from} type="date" />
    <Field id="to" label="To (UTC)" value={f.to} type="date" />
    <div>
      <button type="submit" class="secondary">
        Show
      </button>
    </div>
  </form>
);

const VerifyResult: FC<{ v: AuditVerification }> = ({ v }) =>
  v.ok ? (
    <Notice kind="ok" id="verify-result">
      {`The chain is intact: ${plural(v.checked, "sealed entry", "sealed entries")} recomputed from ${v.anchor.seq === 0 ? "the first entry" : `entry ${v.anchor.seq + 1} (older ones were removed by retention)`} to the head, entry ${v.head.sealed_seq}.`}
      {v.unsealed > 0 && ` ${plural(v.unsealed, "newer entry", "newer entries")} not sealed yet.`}
      <br />
      <span class="small">
        Head hash <code class="wrap">{v.head.hash}</code>: keep it to prove later that the log still extends it.
      </span>
    </Notice>
  ) : (
    <Notice kind="bad" id="verify-result">
      {`The chain does not verify at entry ${v.problem?.seq}: ${v.problem?.message} (${plural(v.checked, "entry", "entries")} before it verified.)`}
    </Notice>
  );

const Row: FC<{ e: AuditEntryView }> = ({ e }) => (
  <tr id={`entry-${e.seq}`}>
    <td class="small" data-label="When">
      {when(e.at)}
    </td>
    <td data-label="Who">
      {e.actor.label}
      <div class="small muted">{e.actor.kind}</div>
    </td>
    <td data-label="Through">{FACE_NAMES[e.face]}</td>
    <td data-label="Verb">
      <code>{e.verb}</code>
    </td>
    <td data-label="Target">{e.target ? `${e.target.type} ${e.target.id ?? ""}`.trim() : <span class="muted">—</span>}</td>
    <td data-label="Summary">{e.summary}</td>
    <td class="small" data-label="Address">
      {e.ip ?? <span class="muted">—</span>}
      {e.user_agent && <div class="muted">{e.user_agent.length > 60 ? `${e.user_agent.slice(0, 59)}…` : e.user_agent}</div>}
    </td>
  </tr>
);

const AuditPage: FC<{
  frame: Frame;
  f: PageFilters;
  ignored: string[];
  rows: AuditEntryView[];
  nextBefore: number | null;
  older: boolean;
  verified: AuditVerification | null;
}> = ({ frame, f, ignored, rows, nextBefore, older, verified }) => (
  <Layout title="Audit log" frame={frame} active="/audit">
    <h1>Audit log</h1>
    <p class="muted">
      Who changed what, through the dashboard, the API, agents and the operator, and every sign-in and security change. Each entry is chained to the one before
      by a SHA-256 hash, so an altered or removed entry shows when the chain is verified.
    </p>
    {ignored.length > 0 && <Notice kind="bad">{`Not understood, so not applied: ${ignored.join(", ")}.`}</Notice>}
    {verified && <VerifyResult v={verified} />}
    <p>
      <a class="button secondary" href={`/audit${queryOf(f, { verify: "1" })}`}>
        Verify chain
      </a>{" "}
      <a class="button secondary" href={`/audit/export${queryOf(f)}`} download="">
        Export (NDJSON)
      </a>
    </p>
    <Filters f={f} />
    <section class="panel" aria-labelledby="audit-h">
      <h2 id="audit-h">{older ? "Older entries" : "Newest entries"}</h2>
      {rows.length === 0 ? (
        <p class="muted">No entries match.</p>
      ) : (
        <div class="table-wrap">
          <table class="stack">
            <thead>
              <tr>
                <th scope="col">When</th>
                <th scope="col">Who</th>
                <th scope="col">Through</th>
                <th scope="col">Verb</th>
                <th scope="col">Target</th>
                <th scope="col">Summary</th>
                <th scope="col">Address</th>
              </tr>
            </thead>
            <tbody>
              {rows.map((e) => (
                <Row e={e} />
              ))}
            </tbody>
          </table>
        </div>
      )}
      <nav class="pager" aria-label="Pages">
        {older && <a href={`/audit${queryOf(f)}`}>Newest</a>}
        {nextBefore !== null && <a href={`/audit${queryOf(f, { before: String(nextBefore) })}`}>Older entries</a>}
      </nav>
    </section>
  </Layout>
);

export function auditPages() {
  const r = new Hono<AppEnv>();
  r.get("/audit", async (c) => {
    const s = signedInOrRedirect(c);
    if (s instanceof Response) return s;
    const query = c.req.query();
    const { shown, filters, ignored } = readFilters(query);
    const before = /^\d{1,15}$/.test(query.before ?? "") ? Number(query.before) : undefined;
    const svc = c.get("services");
    const page = await listAuditEntries(svc, s.ctx, { ...filters, before, limit: PER_PAGE });
    const verified = query.verify === "1" ? await verifyAuditChain(svc, s.ctx) : null;
    return c.html(
      <AuditPage
        frame={await frameOf(c)}
        f={shown}
        ignored={ignored}
        rows={page.rows}
        nextBefore={page.next_before}
        older={before !== undefined}
        verified={verified}
      />,
    );
  });

  r.get("/audit/export", async (c) => {
    const s = signedInOrRedirect(c);
    if (s instanceof Response) return s;
    const stream = exportAuditEntries(c.get("services"), s.ctx, readFilters(c.req.query()).filters);
    return c.body(stream, 200, {
      "Content-Type": "application/x-ndjson; charset=utf-8",
      "Content-Disposition": `attachment; filename="audit-${s.teamId}-${new Date().toISOString().slice(0, 10)}.ndjson"`,
      "Cache-Control": "no-store",
    });
  });
  return r;
}
