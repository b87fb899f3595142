/** @jsxImportSource hono/jsx */
// The domain page's recent changes: one entry per change a check found in one part, in words. A check
// records a changed DMARC record as the record's diff plus one diff per tag that moved (core/posture/
// diff.ts); people see that as one change, titled by what moved ("DMARC policy changed from none to
// quarantine"), with the record before and after under it. No I/O.
import type { FC } from "hono/jsx";
import { changeSentence } from "../core/posture/change-words";
import { SeverityBadge, when } from "./domain-format";

export interface DiffRow {
  check_id: string;
  category: string;
  field: string;
  before: string | null;
  after: string | null;
  severity: string;
  created_at: string | null;
}

export interface ChangeEntry {
  key: string;
  at: string | null;
  severity: string;
  title: string;
  /** The record (or the one value) before and after, when the title does not already say it. */
  before: string | null;
  after: string | null;
  shown: boolean;
}

const RANK: Record<string, number> = { Critical: 4, High: 3, Medium: 2, Low: 1, Info: 0 };
/** Fields that say "the record changed" in general; a tag that moved in the same check names the change better. */
const GENERAL = new Set(["record", "status"]);

/** Diff rows (newest first) grouped per check and part, in the order of their newest row. */
export function groupChanges(rows: DiffRow[]): ChangeEntry[] {
  const groups = new Map<string, DiffRow[]>();
  for (const r of rows) {
    // DKIM and blocklist changes are per selector or per listing: each is its own change.
    const scoped = r.category === "dkim" || r.category === "blacklist" ? `:${r.field}` : "";
    const key = `${r.check_id}|${r.category}${scoped}`;
    groups.set(key, [...(groups.get(key) ?? []), r]);
  }
  return [...groups].map(([key, g]) => {
    const specific = g.filter((r) => !GENERAL.has(r.field));
    const named = specific.length > 0 ? specific : g;
    const record = g.find((r) => r.field === "record") ?? (g.length === 1 ? g[0] : undefined);
    const title = named.map((r) => changeSentence(r.category, r.field, r.before, r.after)).join("; ");
    const severity = g.reduce((s, r) => ((RANK[r.severity] ?? 0) > (RANK[s] ?? 0) ? r.severity : s), g[0]?.severity ?? "Info");
    const detail = record ?? null;
    // A short single value is already in the sentence; a record or a long value is shown apart.
    const shown = detail !== null && (detail.field === "record" || (detail.before ?? "").length > 60 || (detail.after ?? "").length > 60);
    return { key, at: g[0]?.created_at ?? null, severity, title, before: detail?.before ?? null, after: detail?.after ?? null, shown };
  });
}

export const ChangeList: FC<{ entries: ChangeEntry[] }> = ({ entries }) => {
  if (entries.length === 0) return <p class="muted">No changes recorded.</p>;
  return (
    <ol class="timeline">
      {entries.map((x) => (
        <li class="change">
          <span class="small muted">{when(x.at)}</span> <SeverityBadge severity={x.severity} /> <strong>{x.title}</strong>
          {x.shown && (
            <dl class="fields compact change-values">
              <dt>Before</dt>
              <dd>
                <code class="break">{x.before ?? "(none)"}</code>
              </dd>
              <dt>After</dt>
              <dd>
                <code class="break">{x.after ?? "(none)"}</code>
              </dd>
            </dl>
          )}
        </li>
      ))}
    </ol>
  );
};
