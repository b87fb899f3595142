/** @jsxImportSource hono/jsx */
// Small pieces shared by the monitoring pages: dates, grade badges, severities, copyable values, the
// pager and the page-number reader. No I/O.
import type { FC } from "hono/jsx";
import { PaginationQuery } from "../lib/pagination";
import { type ApiError, validationFailed } from "../lib/errors";

/** "1 selector", "3 selectors", "1,200 messages": a count with its noun in the right number. */
export const plural = (n: number, one: string, many = `${one}s`) => `${n.toLocaleString("en")} ${n === 1 ? one : many}`;

/** "2026-05-01 12:34" (UTC) or a dash. */
export const when = (iso: string | null | undefined) => (iso ? `${iso.replace("T", " ").slice(0, 16)} UTC` : "—");

export const GradeBadge: FC<{ grade: string | null }> = ({ grade }) =>
  grade ? (
    <span class={`grade ${grade.slice(0, 1)}`} title={`Grade ${grade}`}>
      {grade}
    </span>
  ) : (
    <span class="muted">—</span>
  );

const SEVERITY_CLASS: Record<string, string> = { Critical: "bad", High: "bad", Medium: "warn", Low: "", Info: "" };
export const SeverityBadge: FC<{ severity: string }> = ({ severity }) => <span class={`badge ${SEVERITY_CLASS[severity] ?? ""}`}>{severity}</span>;

const STATUS_CLASS: Record<string, string> = {
  present: "ok",
  active: "ok",
  pass: "ok",
  ok: "ok",
  missing: "bad",
  invalid: "bad",
  fail: "bad",
  revoked: "warn",
  warning: "warn",
  pending: "",
  temperror: "warn",
};
export const StatusBadge: FC<{ status: string | null | undefined }> = ({ status }) => (
  <span class={`badge ${STATUS_CLASS[status ?? ""] ?? ""}`}>{status === "temperror" ? "lookup failed" : (status ?? "—")}</span>
);

/** A value shown in full with a button that copies it (the client script reads data-copy). */
export const Copyable: FC<{ value: string; label: string }> = ({ value, label }) => (
  <div class="copyable">
    <code>{value}</code>
    <button type="button" class="secondary small-button" data-copy={value} aria-label={`Copy ${label}`}>
      Copy
    </button>
  </div>
);

/** ?page= and ?per_page= with the API's bounds (docs/decisions.md D3): out of range is a 422 page. */
export function pageQuery(q: Record<string, string | undefined>, perPage: number): PaginationQuery {
  const parsed = PaginationQuery.safeParse({ page: q.page, per_page: q.per_page ?? String(perPage) });
  if (!parsed.success) throw validationFailed({ page: ["page from 1, per_page from 1 to 200"] }, "That page does not exist.");
  return parsed.data;
}

export const Pager: FC<{ base: string; q: PaginationQuery; total: number; perDefault?: number }> = ({ base, q, total, perDefault = 50 }) => {
  const last = Math.max(1, Math.ceil(total / q.per_page));
  if (last <= 1) return null;
  const href = (p: number) => `${base}?page=${p}${q.per_page === perDefault ? "" : `&per_page=${q.per_page}`}`;
  return (
    <nav class="pager" aria-label="Pages">
      {q.page > 1 ? <a href={href(q.page - 1)}>Previous</a> : <span class="muted">Previous</span>}
      <span>{`Page ${q.page} of ${last}`}</span>
      {q.page < last ? <a href={href(q.page + 1)}>Next</a> : <span class="muted">Next</span>}
    </nav>
  );
};

/** The per-field messages of a refused form, flattened for display. */
export const fieldMessages = (e: ApiError): string[] => Object.entries(e.errors ?? {}).flatMap(([k, v]) => v.map((m) => `${k}: ${m}`));

/** A refused form's messages in words: each field by the form's own label ("Receiver URL: ..."), and
 *  the messages listed in `plain` replaced whole by what to do. A field the form does not name keeps its name. */
export function plainMessages(e: ApiError, labels: Record<string, string>, plain: Record<string, string> = {}): string[] {
  const out = Object.entries(e.errors ?? {}).flatMap(([k, v]) =>
    v.map((m) => plain[m] ?? `${labels[k] ?? k}: ${m.charAt(0).toUpperCase()}${m.slice(1)}${/[.!?]$/.test(m) ? "" : "."}`),
  );
  return out.length > 0 ? out : [e.message];
}

const DAY_CHOICES = [1, 7, 30, 90, 180, 365];

/** The period choice of a report view (1 to 365 days); a period given in the address stays selectable. */
export const DaysSelect: FC<{ id: string; days: number }> = ({ id, days }) => {
  const choices = DAY_CHOICES.includes(days) ? DAY_CHOICES : [...DAY_CHOICES, days].sort((x, y) => x - y);
  return (
    <div>
      <label for={id}>Period</label>
      <select id={id} name="days" data-autosubmit="">
        {choices.map((d) => (
          <option value={String(d)} selected={days === d}>
            {d === 1 ? "Today" : `Last ${d} days`}
          </option>
        ))}
      </select>
    </div>
  );
};
