/** @jsxImportSource hono/jsx */
// DMARC failure samples of one domain (RFC 9991 failure reports mailed to its report address), newest
// first and paged, through the same service verb as GET /domains/{domain}/dmarc/failures. Without samples
// it says how to ask for them (the ruf tag, docs/decisions.md D108). Viewers read it too.
import { Hono } from "hono";
import type { FC } from "hono/jsx";
import type { AppEnv } from "../context";
import type { PaginationQuery } from "../lib/pagination";
import { listFailureSamples } from "../services/failure-reports/list";
import { Copyable, Pager, pageQuery, when } from "./domain-format";
import { frameOf } from "./frame";
import { signedInOrRedirect } from "./guard";
import { type Frame, Layout } from "./layout";
import { idParam } from "./params";

const PER_PAGE = 25;
type Samples = Awaited<ReturnType<typeof listFailureSamples>>;

const FailuresPage: FC<{ frame: Frame; s: Samples; q: PaginationQuery }> = ({ frame, s, q }) => {
  const base = `/domains/${s.domain.id}/dmarc/failures`;
  return (
    <Layout title={`DMARC failure samples for ${s.domain.name}`} frame={frame} active="/domains">
      <p class="small">
        <a href={`/domains/${s.domain.id}`}>{s.domain.name}</a> · <a href={`/domains/${s.domain.id}/dmarc`}>DMARC</a>
      </p>
      <h1 class="break">{`Failure samples for ${s.domain.name}`}</h1>
      <section class="panel" aria-labelledby="failure-samples">
        <h2 id="failure-samples">{`Failure samples (${s.total})`}</h2>
        <p class="small muted">
          One sample per failure report a receiver sent, kept 30 days: the reporter, the source address and what failed. The message itself, its sender and
          recipients are never kept.
        </p>
        {s.items.length === 0 ? (
          <div>
            <p>No failure samples in the last 30 days. Receivers send them only when the DMARC record asks, and only some receivers do.</p>
            <p>To ask for them, add these tags to the DMARC record of _dmarc.{s.domain.name}:</p>
            <Copyable value={`ruf=mailto:${s.report_address}; fo=1`} label="ruf and fo tags" />
          </div>
        ) : (
          <div class="table-wrap">
            <table>
              <thead>
                <tr>
                  <th scope="col">Received</th>
                  <th scope="col">Reporter</th>
                  <th scope="col">Source IP</th>
                  <th scope="col">Failed</th>
                  <th scope="col">Aligned</th>
                  <th scope="col">DKIM</th>
                  <th scope="col">Result</th>
                </tr>
              </thead>
              <tbody>
                {s.items.map((x) => (
                  <tr>
                    <td class="small">
                      {when(x.received_at)}
                      {x.arrival_date && <div class="muted">{`arrived ${when(x.arrival_date)}`}</div>}
                    </td>
                    <td>{x.reporting_org ?? <span class="muted">unknown</span>}</td>
                    <td class="mono">{x.source_ip ?? "—"}</td>
                    <td>
                      <span class="badge bad">{x.auth_failure ?? "—"}</span>
                      {x.auth_results && <div class="small muted break">{x.auth_results}</div>}
                    </td>
                    <td>{x.identity_alignment ?? "—"}</td>
                    <td class="small">{x.dkim_domain ? `${x.dkim_domain}${x.dkim_selector ? ` s=${x.dkim_selector}` : ""}` : "—"}</td>
                    <td>{x.delivery_result ?? "—"}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
        <Pager base={base} q={q} total={s.total} perDefault={PER_PAGE} />
      </section>
    </Layout>
  );
};

export function dmarcFailurePages() {
  const r = new Hono<AppEnv>();
  r.get("/domains/:id/dmarc/failures", async (c) => {
    const s = signedInOrRedirect(c);
    if (s instanceof Response) return s;
    const id = idParam(c.req.param("id"));
    const q = pageQuery(c.req.query(), PER_PAGE);
    const samples = await listFailureSamples(c.get("services"), s.ctx, id, q);
    return c.html(<FailuresPage frame={await frameOf(c)} s={samples} q={q} />);
  });
  return r;
}
