/** @jsxImportSource hono/jsx */
// The landing page (signed out: what the service does and a way in) and the team overview (signed
// in): domains with grade, score, DMARC policy, last and next check, and open alerts.
import { Hono } from "hono";
import type { AppEnv } from "../context";
import { listAlerts } from "../services/alerts/list-alerts";
import { listDomains } from "../services/domains/list-domains";
import { signedInOrRedirect } from "./guard";
import { frameOf } from "./frame";
import { Layout } from "./layout";

const when = (iso: string | null) => (iso ? iso.replace("T", " ").slice(0, 16) : "—");

export function overviewPages() {
  const r = new Hono<AppEnv>();

  r.get("/", async (c) => {
    if (c.get("signedIn")) return c.redirect("/dashboard", 303);
    return c.html(
      <Layout title="Welcome" frame={await frameOf(c)}>
        <div class="panel narrow">
          <h1>Email authentication monitor</h1>
          <p>
            Watch the SPF, DKIM, DMARC, BIMI, MTA-STS and TLS-RPT posture of your domains, catch DKIM key rotations and DNS drift as they happen, learn who
            sends mail as you from DMARC reports, and be told through signed webhooks.
          </p>
          <p>
            <a class="button" href="/sign-in">
              Sign in or create an account
            </a>
          </p>
          <p class="small">
            Building against the API? Read the <a href="/api/v1/docs">API reference</a>.
          </p>
        </div>
      </Layout>,
    );
  });

  r.get("/dashboard", async (c) => {
    const s = signedInOrRedirect(c);
    if (s instanceof Response) return s;
    const svc = c.get("services");
    const [domains, alerts] = await Promise.all([
      listDomains(svc, s.ctx, { page: 1, per_page: 200 }),
      listAlerts(svc, s.ctx, { page: 1, per_page: 200, open: true }),
    ]);
    const openByDomain = new Map<string, number>();
    for (const a of alerts.items) if (a.domain) openByDomain.set(a.domain, (openByDomain.get(a.domain) ?? 0) + 1);
    return c.html(
      <Layout title="Overview" frame={await frameOf(c)} active="/dashboard">
        <h1>Overview</h1>
        <div class="cards">
          <div class="panel">
            <div class="small muted">Domains</div>
            <div class="stat">{domains.total}</div>
          </div>
          <div class="panel">
            <div class="small muted">Open alerts</div>
            <div class="stat">{alerts.total}</div>
          </div>
        </div>
        <section class="panel" aria-labelledby="domains-h">
          <h2 id="domains-h">Domains</h2>
          {domains.total === 0 ? (
            <p>No domains yet. {s.ctx.scope === "full" ? <a href="/domains/new">Add your first domain</a> : "An admin of this team can add one."}</p>
          ) : (
            <div class="table-wrap">
              <table>
                <thead>
                  <tr>
                    <th scope="col">Domain</th>
                    <th scope="col">Grade</th>
                    <th scope="col">Score</th>
                    <th scope="col">DMARC policy</th>
                    <th scope="col">Last check</th>
                    <th scope="col">Next check</th>
                    <th scope="col">Open alerts</th>
                  </tr>
                </thead>
                <tbody>
                  {domains.items.map((d) => (
                    <tr>
                      <td>
                        <a href={`/domains/${d.id}`}>{d.name}</a> {!d.verified && <span class="badge warn">unverified</span>}
                      </td>
                      <td>{d.grade ? <span class={`grade ${d.grade.slice(0, 1)}`}>{d.grade}</span> : "—"}</td>
                      <td>{d.score ?? "—"}</td>
                      <td>{d.dmarc_policy ?? "—"}</td>
                      <td>{when(d.last_checked_at)}</td>
                      <td>{when(d.next_check_at)}</td>
                      <td>{openByDomain.get(d.name) ?? 0}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          )}
        </section>
      </Layout>,
    );
  });
  return r;
}
