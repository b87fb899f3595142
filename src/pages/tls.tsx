/** @jsxImportSource hono/jsx */
// The SMTP TLS view of one domain (RFC 8460 reports): success rate, sessions per day, failures by
// result type with the advice and by MX host, the policies the reporters applied, and the exact
// rua value that sends reports here. Calls the verb GET /domains/{id}/tls calls, over the same 1 to 365
// day window.
import { Hono } from "hono";
import type { FC } from "hono/jsx";
import type { AppEnv } from "../context";
import { getTlsAnalytics } from "../services/tls-reports/analytics";
import { BarChart } from "./charts";
import { Copyable, DaysSelect, when } from "./domain-format";
import { frameOf } from "./frame";
import { signedInOrRedirect } from "./guard";
import { type Frame, Layout } from "./layout";
import { idParam, windowDays } from "./params";

type TlsAnalytics = Awaited<ReturnType<typeof getTlsAnalytics>>;

const pct = (x: number | null) => (x === null ? "—" : `${(x * 100).toFixed(1)}%`);
const count = (n: number) => n.toLocaleString("en");

/** RFC 8460 §4.2 policy types, as people know them. */
const POLICY_LABEL: Record<string, string> = { sts: "MTA-STS", tlsa: "DANE (TLSA)", "no-policy-found": "No policy (opportunistic TLS)" };

const Publish: FC<{ a: TlsAnalytics }> = ({ a }) => (
  <>
    <p>
      Publish this TXT record at <span class="mono break">{`_smtp._tls.${a.domain.name}`}</span>, or add the rua value to the one you have:
    </p>
    <Copyable value={`v=TLSRPTv1; rua=${a.rua}`} label="TLS-RPT record" />
    <p class="small">The rua value alone:</p>
    <Copyable value={a.rua} label="TLS-RPT rua value" />
  </>
);

const Failures: FC<{ a: TlsAnalytics }> = ({ a }) => (
  <>
    <section class="panel" aria-labelledby="tls-types">
      <h2 id="tls-types">Failures by type</h2>
      {a.failures_by_type.length === 0 ? (
        <p class="muted">No failed sessions were reported in this period.</p>
      ) : (
        a.failures_by_type.map((t) => (
          <div>
            <h3 class="break">{`${t.result_type}: ${count(t.failed)} failed session${t.failed === 1 ? "" : "s"}`}</h3>
            {t.mx_hosts.length > 0 && <p class="small mono break">{t.mx_hosts.join(", ")}</p>}
            <p>{t.advice}</p>
          </div>
        ))
      )}
    </section>
    {a.failures_by_mx.length > 0 && (
      <section class="panel" aria-labelledby="tls-mx">
        <h2 id="tls-mx">Failures by MX host</h2>
        <div class="table-wrap">
          <table>
            <thead>
              <tr>
                <th scope="col">MX host</th>
                <th scope="col">Failed sessions</th>
                <th scope="col">Result types</th>
              </tr>
            </thead>
            <tbody>
              {a.failures_by_mx.map((m) => (
                <tr>
                  <td class="mono break">{m.mx_host ?? <span class="muted">not named by the reporter</span>}</td>
                  <td>{count(m.failed)}</td>
                  <td class="small">{m.result_types.join(", ")}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      </section>
    )}
  </>
);

const Policies: FC<{ a: TlsAnalytics }> = ({ a }) => (
  <section class="panel" aria-labelledby="tls-policies">
    <h2 id="tls-policies">Policies the senders applied</h2>
    {a.policies.length === 0 ? (
      <p class="muted">No reports in this period.</p>
    ) : (
      <div class="table-wrap">
        <table>
          <thead>
            <tr>
              <th scope="col">Policy</th>
              <th scope="col">Policy domain</th>
              <th scope="col">MX hosts</th>
              <th scope="col">Successful</th>
              <th scope="col">Failed</th>
              <th scope="col">Reports</th>
              <th scope="col">Last day</th>
            </tr>
          </thead>
          <tbody>
            {a.policies.map((p) => (
              <tr>
                <td>
                  {POLICY_LABEL[p.policy_type] ?? p.policy_type}
                  {p.policy_strings.length > 0 && (
                    <details>
                      <summary class="small">Policy text</summary>
                      <pre class="small">{p.policy_strings.join("\n")}</pre>
                    </details>
                  )}
                </td>
                {/* Whole names, one per line: at phone width the table scrolls sideways rather than split them. */}
                <td class="mono small">{p.policy_domain}</td>
                <td class="mono small">{p.mx_hosts.length === 0 ? "—" : p.mx_hosts.map((h) => <div>{h}</div>)}</td>
                <td>{count(p.successful)}</td>
                <td>{count(p.failed)}</td>
                <td>{p.reports}</td>
                <td class="small">{p.last_day}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    )}
  </section>
);

const TlsPage: FC<{ frame: Frame; a: TlsAnalytics }> = ({ frame, a }) => {
  const base = `/domains/${a.domain.id}/tls`;
  const s = a.summary;
  const empty = s.reports === 0;
  return (
    <Layout title={`SMTP TLS for ${a.domain.name}`} frame={frame} active="/domains">
      <p class="small">
        <a href={`/domains/${a.domain.id}`}>{a.domain.name}</a>
      </p>
      <h1 class="break">{`SMTP TLS reports for ${a.domain.name}`}</h1>
      <p class="small muted">
        Receivers that deliver to your MX hosts report each day how many TLS sessions succeeded and why the others failed (TLS-RPT, RFC 8460).
      </p>
      <form method="get" action={base} class="filters">
        <DaysSelect id="tls-days" days={a.window.days} />
        <div>
          <button type="submit" class="secondary">
            Show
          </button>
        </div>
      </form>
      <section class="panel" aria-labelledby="tls-summary">
        <h2 id="tls-summary">{`${a.window.from} to ${a.window.to}`}</h2>
        {empty ? (
          <>
            <p>No TLS reports arrived for this domain in this period.</p>
            <Publish a={a} />
          </>
        ) : (
          <>
            <div class="stat-row">
              <div>
                <strong>{pct(s.success_rate)}</strong> of sessions used TLS successfully
              </div>
              <div>
                <strong>{count(s.successful + s.failed)}</strong> sessions, {count(s.failed)} failed
              </div>
              <div>
                <strong>{s.reports}</strong> {`report${s.reports === 1 ? "" : "s"} from ${s.organizations} organization${s.organizations === 1 ? "" : "s"}`}
              </div>
              <div>
                <strong class="small-stat">{when(s.last_report_at)}</strong> last report
              </div>
            </div>
            <BarChart
              title="TLS sessions per day"
              labels={a.daily.map((d) => d.day)}
              series={[
                { name: "Successful", cls: "pass", values: a.daily.map((d) => d.successful) },
                { name: "Failed", cls: "fail", values: a.daily.map((d) => d.failed) },
              ]}
              summary={`${count(s.successful)} successful and ${count(s.failed)} failed TLS sessions over ${a.window.days} day${a.window.days === 1 ? "" : "s"}.`}
            />
          </>
        )}
      </section>
      {!empty && <Failures a={a} />}
      {!empty && <Policies a={a} />}
      {!empty && (
        <section class="panel" aria-labelledby="tls-rua">
          <h2 id="tls-rua">Where reports go</h2>
          <Publish a={a} />
        </section>
      )}
    </Layout>
  );
};

export function tlsPages() {
  const r = new Hono<AppEnv>();
  r.get("/domains/:id/tls", async (c) => {
    const s = signedInOrRedirect(c);
    if (s instanceof Response) return s;
    const id = idParam(c.req.param("id"));
    const a = await getTlsAnalytics(c.get("services"), s.ctx, id, windowDays(c.req.query("days")));
    return c.html(<TlsPage frame={await frameOf(c)} a={a} />);
  });
  return r;
}
