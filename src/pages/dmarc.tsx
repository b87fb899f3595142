/** @jsxImportSource hono/jsx */
// The DMARC view of one domain: daily pass/fail chart, alignment, sources with identified senders,
// failing senders with their fixes, enforcement advice with the suggested record, a days selector,
// the stored reports (each with its records), and the report upload (the ingestion verb HTTP and email
// use, with the same caps and refusals). Viewers see everything without the upload form; the verb
// refuses them too.
import { Hono } from "hono";
import type { FC } from "hono/jsx";
import type { AppEnv } from "../context";
import { ApiError, validationFailed } from "../lib/errors";
import type { PaginationQuery } from "../lib/pagination";
import { type DmarcAnalytics, getDmarcAnalytics } from "../services/dmarc/analytics";
import type { IngestResult } from "../services/dmarc/ingest";
import { getReport, listReports } from "../services/dmarc/reports";
import { uploadReport } from "../services/dmarc/upload";
import { BarChart } from "./charts";
import { SourceCells, SourceHeads } from "./dmarc-sources";
import { Copyable, Pager, pageQuery, plural, when } from "./domain-format";
import { frameOf } from "./frame";
import { signedInOrRedirect } from "./guard";
import { CsrfField, type Frame, Layout, Notice } from "./layout";
import { idParam } from "./params";
import { readReportUpload } from "./upload";
import { meterPage } from "./meter";

const DAY_CHOICES = [7, 30, 90, 180, 365] as const;
const REPORTS_PER_PAGE = 20;
type Reports = Awaited<ReturnType<typeof listReports>>;

const pct = (x: number | null) => (x === null ? "—" : `${(x * 100).toFixed(1)}%`);

function daysOf(raw: string | undefined): number {
  if (raw === undefined || raw === "") return 30;
  const n = Number(raw);
  if (!/^[0-9]{1,3}$/.test(raw) || n < 1 || n > 366) throw validationFailed({ days: ["a number of days from 1 to 366"] }, "That period is not valid.");
  return n;
}

/** A refusal the upload form can explain (no file, too large, not a report): returned, not thrown. */
async function formRefusal<T>(p: Promise<T>): Promise<T | ApiError> {
  try {
    return await p;
  } catch (e) {
    // A body that is not the form's (400) or a refused CSRF token (403) stays an error page.
    if (e instanceof ApiError && (e.status === 413 || e.status === 422)) return e;
    throw e;
  }
}

/** What went wrong with an uploaded file, in words; the parser's own finding follows, without its code. */
export function uploadMessages(e: ApiError): string[] {
  if (e.status === 413) return ["That file is larger than 10 MB. An aggregate report is much smaller: check that you chose the right file."];
  if (e.errors?.report) return ["Choose a report file to upload: the XML file a receiver sent, or its .gz or .zip."];
  const code = e.errors?.body?.[0];
  if (code === "domain_mismatch" || code === "unknown_domain") return [e.message];
  if (code === "domain_not_verified") return ["Verify this domain first: reports are only taken for domains whose ownership is proven."];
  const found = /^[^:]*\([a-z_]+\): (.+)$/.exec(e.message)?.[1];
  return [
    "That file is not a DMARC aggregate report we can read. Upload the file a receiver mailed to your report address (XML, or its .gz or .zip) as it came.",
    ...(found ? [`What we found: ${found}`] : []),
  ];
}

const DmarcPage: FC<{ frame: Frame; a: DmarcAnalytics; reports: Reports; rq: PaginationQuery; uploaded?: IngestResult; uploadError?: string[] }> = ({
  frame,
  a,
  reports,
  rq,
  uploaded,
  uploadError,
}) => {
  const canWrite = frame.signedIn?.ctx.scope === "full";
  const base = `/domains/${a.domain.id}/dmarc`;
  return (
    <Layout title={`DMARC for ${a.domain.name}`} frame={frame} active="/domains">
      <p class="small">
        <a href={`/domains/${a.domain.id}`}>{a.domain.name}</a> · <a href={`${base}/sources`}>Every source</a> ·{" "}
        <a href={`${base}/failures`}>Failure samples</a>
      </p>
      <h1 class="break">{`DMARC reports for ${a.domain.name}`}</h1>
      {uploaded && (
        <Notice kind="ok">
          {uploaded.duplicate
            ? `Report ${uploaded.report_id} was already stored; nothing changed.`
            : `Report ${uploaded.report_id} was stored with ${uploaded.records} record${uploaded.records === 1 ? "" : "s"}.`}
        </Notice>
      )}
      <form method="get" action={base} class="filters">
        <div>
          <label for="dmarc-days">Period</label>
          <select id="dmarc-days" name="days" data-autosubmit="">
            {DAY_CHOICES.map((d) => (
              <option value={String(d)} selected={a.window.days === d}>{`Last ${d} days`}</option>
            ))}
          </select>
        </div>
        <div>
          <button type="submit" class="secondary">
            Show
          </button>
        </div>
      </form>
      <section class="panel" aria-labelledby="dmarc-summary">
        <h2 id="dmarc-summary">{`${a.window.from} to ${a.window.to}`}</h2>
        <div class="stat-row">
          <div>
            <strong>{a.summary.messages.toLocaleString("en")}</strong> {a.summary.messages === 1 ? "message" : "messages"}
          </div>
          <div>
            <strong>{pct(a.alignment.rate)}</strong> passed DMARC
          </div>
          <div>
            <strong>{a.summary.reports}</strong> {a.summary.reports === 1 ? "report" : "reports"} from {plural(a.summary.reporters, "reporter")}
          </div>
          <div>
            <strong>{a.sources_total}</strong> {a.sources_total === 1 ? "sending IP" : "sending IPs"}
          </div>
        </div>
        <BarChart
          title="Messages per day"
          labels={a.daily.map((d) => d.day)}
          series={[
            { name: "Pass", cls: "pass", values: a.daily.map((d) => d.pass) },
            { name: "Fail", cls: "fail", values: a.daily.map((d) => d.fail) },
          ]}
          summary={`${a.alignment.pass} passed and ${a.alignment.fail} failed DMARC over ${a.window.days} days.`}
        />
        <p class="small">{`SPF aligned: ${plural(a.alignment.spf_aligned, "message")} · DKIM aligned: ${plural(a.alignment.dkim_aligned, "message")}`}</p>
      </section>
      <section class="panel" aria-labelledby="dmarc-advice">
        <h2 id="dmarc-advice">Enforcement</h2>
        <p>
          {`Current policy: ${a.enforcement.current_policy ?? "none published"}. Recommended: `}
          <strong>{a.enforcement.recommended_policy}</strong>
          {a.enforcement.safe_to_enforce ? <span class="badge ok">safe to enforce</span> : <span class="badge warn">not yet</span>}
        </p>
        <p>{a.enforcement.reason}</p>
        <p class="small muted">{a.enforcement.rule}</p>
        <p>The DMARC record of your plan for _dmarc.{a.domain.name} (the domain page shows the whole plan):</p>
        <Copyable value={a.suggested_record} label="suggested DMARC record" />
      </section>
      {a.failing_senders.length > 0 && (
        <section class="panel" aria-labelledby="failing-senders">
          <h2 id="failing-senders">Failing senders</h2>
          {a.failing_senders.map((f) => (
            <div>
              <h3>{`${f.sender}: ${f.fail} of ${plural(f.messages, "message")} failed`}</h3>
              <ol class="fix-list">
                {f.fixes.map((x) => (
                  <li>{x}</li>
                ))}
              </ol>
            </div>
          ))}
        </section>
      )}
      <section class="panel" aria-labelledby="dmarc-sources">
        <h2 id="dmarc-sources">{`Sources (${a.sources.length} of ${a.sources_total})`}</h2>
        {a.sources.length === 0 ? (
          <p class="muted">No reports in this period.</p>
        ) : (
          <div class="table-wrap">
            <table class="stack">
              <thead>
                <tr>
                  <SourceHeads />
                </tr>
              </thead>
              <tbody>
                {a.sources.map((s) => (
                  <tr>
                    <SourceCells x={s} />
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </section>
      <section class="panel" aria-labelledby="dmarc-reports">
        <h2 id="dmarc-reports">{`Stored reports (${reports.total})`}</h2>
        {reports.items.length === 0 ? (
          <p class="muted">
            No reports stored yet. Reports arrive at <span class="mono break">{a.report_address}</span>, or upload one below.
          </p>
        ) : (
          <div class="table-wrap">
            <table>
              <thead>
                <tr>
                  <th scope="col">Reporter</th>
                  <th scope="col">Report id</th>
                  <th scope="col">Period</th>
                  <th scope="col">Messages</th>
                  <th scope="col">Fail</th>
                </tr>
              </thead>
              <tbody>
                {reports.items.map((r) => (
                  <tr>
                    <td>{r.org_name}</td>
                    <td class="mono">
                      <a href={`${base}/reports/${r.id}`}>{r.report_id}</a>
                    </td>
                    <td class="small">{`${r.date_begin.slice(0, 10)} to ${r.date_end.slice(0, 10)}`}</td>
                    <td>{r.messages}</td>
                    <td>{r.fail}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
        <Pager base={base} q={rq} total={reports.total} perDefault={REPORTS_PER_PAGE} />
      </section>
      {canWrite && (
        <section class="panel" aria-labelledby="dmarc-upload">
          <h2 id="dmarc-upload">Upload a report</h2>
          <p class="small">An aggregate report as XML, gzip or zip, at most 10 MB, about {a.domain.name} or a subdomain.</p>
          {uploadError && (
            <Notice kind="bad" id="report-file-error">
              {uploadError.map((m, i) => (i === 0 ? <p class="field-error">{m}</p> : <p class="small">{m}</p>))}
            </Notice>
          )}
          <form method="post" action={`${base}/upload#dmarc-upload`} enctype="multipart/form-data">
            <CsrfField csrf={frame.csrf} />
            <div class="row">
              <div>
                <label for="report-file">Report file</label>
                <input
                  id="report-file"
                  name="report"
                  type="file"
                  required
                  accept=".xml,.gz,.zip,application/xml,text/xml,application/gzip,application/zip"
                  aria-invalid={uploadError ? "true" : undefined}
                  aria-describedby={uploadError ? "report-file-error" : undefined}
                />
              </div>
              <div>
                <button type="submit">Upload</button>
              </div>
            </div>
          </form>
        </section>
      )}
    </Layout>
  );
};

type Detail = Awaited<ReturnType<typeof getReport>>;

const ReportPage: FC<{ frame: Frame; domainId: number; d: Detail; q: PaginationQuery }> = ({ frame, domainId, d, q }) => {
  const r = d.report;
  return (
    <Layout title={`Report ${r.report_id}`} frame={frame} active="/domains">
      <p class="small">
        <a href={`/domains/${domainId}/dmarc`}>Back to DMARC</a>
      </p>
      <h1 class="mono">{r.report_id}</h1>
      <section class="panel" aria-labelledby="report-summary">
        <h2 id="report-summary">{`From ${r.org_name}`}</h2>
        <p>{`${when(r.date_begin)} to ${when(r.date_end)} · ${plural(r.messages, "message")}, ${r.fail} failed DMARC · received ${when(r.received_at)}`}</p>
        {r.policy_published && (
          <p class="mono small">{`Published policy: p=${r.policy_published.p ?? "—"} sp=${r.policy_published.sp ?? "—"} pct=${r.policy_published.pct ?? "—"}`}</p>
        )}
      </section>
      <section class="panel" aria-labelledby="report-records">
        <h2 id="report-records">{`Records (${d.total})`}</h2>
        <div class="table-wrap">
          <table>
            <thead>
              <tr>
                <th scope="col">Source IP</th>
                <th scope="col">Messages</th>
                <th scope="col">DMARC</th>
                <th scope="col">Disposition</th>
                <th scope="col">SPF</th>
                <th scope="col">DKIM</th>
              </tr>
            </thead>
            <tbody>
              {r.records.map((x) => (
                <tr>
                  <td class="mono">{x.source_ip}</td>
                  <td>{x.count}</td>
                  <td>
                    <span class={`badge ${x.dmarc === "pass" ? "ok" : "bad"}`}>{x.dmarc}</span>
                  </td>
                  <td>{x.disposition ?? "—"}</td>
                  <td class="small">{`${x.spf.result ?? "—"} ${x.spf.domain ?? ""}${x.spf.aligned ? " (aligned)" : ""}`}</td>
                  <td class="small">{`${x.dkim.result ?? "—"} ${x.dkim.domain ?? ""}${x.dkim.selector ? ` s=${x.dkim.selector}` : ""}${x.dkim.aligned ? " (aligned)" : ""}`}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
        <Pager base={`/domains/${domainId}/dmarc/reports/${r.id}`} q={q} total={d.total} perDefault={50} />
      </section>
    </Layout>
  );
};

export function dmarcPages() {
  const r = new Hono<AppEnv>();

  r.get("/domains/:id/dmarc", async (c) => {
    const s = signedInOrRedirect(c);
    if (s instanceof Response) return s;
    const id = idParam(c.req.param("id"));
    const days = daysOf(c.req.query("days"));
    const rq = pageQuery(c.req.query(), REPORTS_PER_PAGE);
    const svc = c.get("services");
    const [a, reports] = await Promise.all([getDmarcAnalytics(svc, s.ctx, id, days), listReports(svc, s.ctx, id, rq)]);
    return c.html(<DmarcPage frame={await frameOf(c)} a={a} reports={reports} rq={rq} />);
  });

  r.get("/domains/:id/dmarc/reports/:report", async (c) => {
    const s = signedInOrRedirect(c);
    if (s instanceof Response) return s;
    const id = idParam(c.req.param("id"));
    const q = pageQuery(c.req.query(), 50);
    const d = await getReport(c.get("services"), s.ctx, id, idParam(c.req.param("report")), q);
    return c.html(<ReportPage frame={await frameOf(c)} domainId={id} d={d} q={q} />);
  });

  r.post("/domains/:id/dmarc/upload", async (c) => {
    const s = signedInOrRedirect(c);
    if (s instanceof Response) return s;
    const id = idParam(c.req.param("id"));
    const bytes = await formRefusal(readReportUpload(c));
    await meterPage(c, s);
    const svc = c.get("services");
    const uploaded = bytes instanceof ApiError ? bytes : await formRefusal(uploadReport(svc, s.ctx, id, bytes));
    const rq = pageQuery({}, REPORTS_PER_PAGE);
    const [a, reports] = await Promise.all([getDmarcAnalytics(svc, s.ctx, id, 30), listReports(svc, s.ctx, id, rq)]);
    // A refused file is said on the form, in words (docs/decisions.md D167); 413 keeps its status.
    if (uploaded instanceof ApiError)
      return c.html(
        <DmarcPage frame={await frameOf(c)} a={a} reports={reports} rq={rq} uploadError={uploadMessages(uploaded)} />,
        uploaded.status === 413 ? 413 : 422,
      );
    // Same statuses as the HTTP ingestion face: 201 stored, 200 already stored.
    return c.html(<DmarcPage frame={await frameOf(c)} a={a} reports={reports} rq={rq} uploaded={uploaded} />, uploaded.duplicate ? 200 : 201);
  });
  return r;
}
