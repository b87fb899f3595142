/** @jsxImportSource hono/jsx */
// One domain's posture, part by part (SPF, DMARC, DKIM, BIMI, MTA-STS, TLS-RPT, MX, blocklists, and
// any part the checks add later): status, the record as published, its findings and the exact fixes to
// paste. Shared by the domain page (the stored posture) and intel (a live analysis). A part whose lookup
// failed says "lookup failed", never "missing" (docs/decisions.md D7). The domain page folds the parts with
// nothing to do (docs/decisions.md D168). No I/O.
import type { Child, FC } from "hono/jsx";
import { Copyable, plural, SeverityBadge, StatusBadge } from "./domain-format";

export interface PartFinding {
  category: string;
  severity: string;
  rule: string;
  description: string;
  fix: string | null;
}

export interface PasteFix {
  host: string;
  type: string;
  value: string;
  reason: string;
}

interface Listing {
  list: string;
  zone: string;
  target: string;
  reasons: string[];
  severity: string;
}

export interface BlocklistView {
  listed: Listing[];
  unknown: unknown[];
  checked: number;
}

export interface PostureView {
  records: Record<string, unknown>;
  blacklists: BlocklistView | null;
  findings: PartFinding[];
  stale_parts?: string[];
}

const LABELS: Record<string, string> = {
  spf: "SPF",
  dmarc: "DMARC",
  dkim: "DKIM",
  bimi: "BIMI",
  mta_sts: "MTA-STS",
  tls_rpt: "TLS-RPT",
  mx: "MX",
  blacklist: "Blocklists",
  dane: "DANE",
};
const ORDER = Object.keys(LABELS);
export const partLabel = (id: string) => LABELS[id] ?? id.toUpperCase().replace(/_/g, "-");

const SHOWN_APART = new Set(["status", "host", "record"]);
const isPlain = (v: unknown): v is string | number | boolean => typeof v === "string" || typeof v === "number" || typeof v === "boolean";
const fieldName = (k: string) => k.replace(/_/g, " ");

/** A record view's extra fields, one level deep: scalars as text, lists joined, objects as nested pairs. */
const Value: FC<{ v: unknown; depth?: number }> = ({ v, depth = 0 }) => {
  if (v === null || v === undefined) return <span class="muted">—</span>;
  if (isPlain(v)) return <>{String(v)}</>;
  if (Array.isArray(v)) {
    if (v.length === 0) return <span class="muted">none</span>;
    if (v.every(isPlain)) return <>{v.join(", ")}</>;
    return (
      <ul class="plain">
        {v.slice(0, 50).map((item) => (
          <li>
            <Value v={item} depth={depth + 1} />
          </li>
        ))}
      </ul>
    );
  }
  if (typeof v === "object" && depth < 2) {
    const entries = Object.entries(v as Record<string, unknown>).filter(([, x]) => x !== null && x !== undefined);
    return (
      <span class="pairs">
        {entries.map(([k, x]) => (
          <span class="pair">
            <span class="muted">{`${fieldName(k)}: `}</span>
            <Value v={x} depth={depth + 1} />
          </span>
        ))}
      </span>
    );
  }
  return <span class="muted">…</span>;
};

const Findings: FC<{ findings: PartFinding[] }> = ({ findings }) =>
  findings.length === 0 ? (
    <p class="small muted">No findings.</p>
  ) : (
    <ul class="findings">
      {findings.map((f) => (
        <li>
          <SeverityBadge severity={f.severity} /> {f.description}
          {f.fix && (
            <div class="fix">
              <span class="small muted">Fix:</span>
              <Copyable value={f.fix} label={`fix for ${f.rule}`} />
            </div>
          )}
        </li>
      ))}
    </ul>
  );

/** Nothing to do: no finding above Info, none with a fix, and the lookup answered. */
const quiet = (findings: PartFinding[], stale: boolean) => !stale && findings.every((f) => f.severity === "Info" && !f.fix);

/** A part: a section with its heading, or, when `fold` is set, a closed <details> whose summary is the heading's text. */
const PartBox: FC<{ id: string; fold: boolean; heading: Child; children?: Child }> = ({ id, fold, heading, children }) =>
  fold ? (
    <details class="part folded" id={`part-${id}-section`}>
      <summary>
        <span class="part-name" id={`part-${id}`}>
          {heading}
        </span>{" "}
        <span class="small muted">nothing to do</span>
      </summary>
      {children}
    </details>
  ) : (
    <section class="part" aria-labelledby={`part-${id}`} id={`part-${id}-section`}>
      <h3 id={`part-${id}`}>{heading}</h3>
      {children}
    </section>
  );

const RecordPart: FC<{ id: string; view: Record<string, unknown>; findings: PartFinding[]; stale: boolean; fold: boolean }> = ({
  id,
  view,
  findings,
  stale,
  fold,
}) => {
  const extra = Object.entries(view).filter(([k]) => !SHOWN_APART.has(k));
  const status = typeof view.status === "string" ? view.status : null;
  return (
    <PartBox
      id={id}
      fold={fold && quiet(findings, stale)}
      heading={
        <>
          {partLabel(id)} <StatusBadge status={status} /> {stale && <span class="badge warn">last lookup failed: showing the previous value</span>}
        </>
      }
    >
      {typeof view.host === "string" && (
        <p class="small">
          <span class="muted">Host </span>
          <code>{view.host}</code>
        </p>
      )}
      {typeof view.record === "string" ? <Copyable value={view.record} label={`${partLabel(id)} record`} /> : <p class="small muted">No record published.</p>}
      {extra.length > 0 && (
        <dl class="fields compact">
          {extra.map(([k, v]) => (
            <>
              <dt>{fieldName(k)}</dt>
              <dd>
                <Value v={v} />
              </dd>
            </>
          ))}
        </dl>
      )}
      <Findings findings={findings} />
    </PartBox>
  );
};

const BlocklistPart: FC<{ b: BlocklistView | null; findings: PartFinding[]; stale: boolean; fold: boolean }> = ({ b, findings, stale, fold }) => (
  <PartBox
    id="blacklist"
    fold={fold && b !== null && b.listed.length === 0 && b.unknown.length === 0 && quiet(findings, stale)}
    heading={
      <>
        Blocklists{" "}
        {b === null ? (
          <span class="badge">not checked</span>
        ) : b.listed.length > 0 ? (
          <span class="badge bad">{`listed on ${b.listed.length}`}</span>
        ) : b.unknown.length > 0 ? (
          <span class="badge warn">{`${b.unknown.length} of ${plural(b.checked, "lookup")} failed`}</span>
        ) : (
          <span class="badge ok">not listed</span>
        )}{" "}
        {stale && <span class="badge warn">last lookup failed: showing the previous value</span>}
      </>
    }
  >
    {b && <p class="small muted">{`${plural(b.checked, "query", "queries")}; a failed lookup is "unknown", never "not listed".`}</p>}
    {b && b.listed.length > 0 && (
      <div class="table-wrap">
        <table>
          <thead>
            <tr>
              <th scope="col">List</th>
              <th scope="col">Listed</th>
              <th scope="col">Severity</th>
              <th scope="col">Reason</th>
            </tr>
          </thead>
          <tbody>
            {b.listed.map((l) => (
              <tr>
                <td>{l.list}</td>
                <td class="mono">{l.target}</td>
                <td>
                  <SeverityBadge severity={l.severity} />
                </td>
                <td>{l.reasons.join("; ") || "—"}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    )}
    <Findings findings={findings} />
  </PartBox>
);

/** The records to publish, each field copyable on its own. */
export const PasteFixes: FC<{ fixes: PasteFix[] }> = ({ fixes }) =>
  fixes.length === 0 ? null : (
    <section class="panel" aria-labelledby="fixes-h">
      <h2 id="fixes-h">Fixes to publish</h2>
      <ol class="fix-list">
        {fixes.map((f) => (
          <li>
            <p>{f.reason}</p>
            <dl class="fields compact">
              <dt>Host</dt>
              <dd>
                <Copyable value={f.host} label={`host of fix: ${f.reason}`} />
              </dd>
              <dt>Type</dt>
              <dd>
                <code>{f.type}</code>
              </dd>
              <dt>Value</dt>
              <dd>
                <Copyable value={f.value} label={`value of fix: ${f.reason}`} />
              </dd>
            </dl>
          </li>
        ))}
      </ol>
    </section>
  );

/** Every part of a posture in a fixed order (unknown parts after the known ones); `extra` adds a part rendered elsewhere (the DKIM inventory). */
export const PostureParts: FC<{ posture: PostureView; extra?: Record<string, Child>; foldQuiet?: boolean }> = ({ posture, extra, foldQuiet = false }) => {
  const stale = new Set(posture.stale_parts ?? []);
  const ids = [...new Set([...Object.keys(posture.records), ...Object.keys(extra ?? {}), "blacklist"])].sort(
    (a, b) => (ORDER.indexOf(a) + 1 || 99) - (ORDER.indexOf(b) + 1 || 99) || a.localeCompare(b),
  );
  const of = (id: string) => posture.findings.filter((f) => f.category === id);
  return (
    <div class="parts">
      {ids.map((id) => {
        if (id === "blacklist") return <BlocklistPart b={posture.blacklists} findings={of(id)} stale={stale.has(id)} fold={foldQuiet} />;
        if (extra && id in extra) return <>{extra[id]}</>;
        const view = posture.records[id];
        return view && typeof view === "object" ? (
          <RecordPart id={id} view={view as Record<string, unknown>} findings={of(id)} stale={stale.has(id)} fold={foldQuiet} />
        ) : null;
      })}
    </div>
  );
};
