/** @jsxImportSource hono/jsx */
// The landing page (signed out: what the service does and a way in) and the team overview (signed
// in): domains with grade, score, DMARC policy, last and next check, open alert counts, and the newest
// open alerts with what each kind means.
import { Hono } from "hono";
import type { AppEnv } from "../context";
import { listAlerts } from "../services/alerts/list-alerts";
import { openAlertCounts } from "../services/alerts/open-counts";
import { listDomains } from "../services/domains/list-domains";
import { AlertGuideLine } from "./alert-kinds";
import { SeverityBadge } from "./domain-format";
import { DomainTable } from "./domains";
import { signedInOrRedirect } from "./guard";
import { frameOf } from "./frame";
import { Layout } from "./layout";

/** Open alerts shown on the overview, newest first (the alerts page has them all). */
const LATEST_ALERTS = 5;

export function overviewPages() {
  const r = new Hono<AppEnv>();

  r.get("/", async (c) => {
    if (c.get("signedIn")) return c.redirect("/dashboard", 303);
    return c.html(
      <Layout title="Welcome" frame={await frameOf(c)}>
        <div class="panel narrow">
          <h1>Email authentication monitor</h1>
          <p>
            Watch the SPF, DKIM, DMARC, BIMI, MTA-STS, TLS-RPT and DANE posture of your domains, catch DKIM key rotations and DNS drift as they happen, learn
            who sends mail as you from DMARC reports, and be told through signed webhooks.
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
    const [domains, alerts, open] = await Promise.all([
      listDomains(svc, s.ctx, { page: 1, per_page: 200 }),
      listAlerts(svc, s.ctx, { page: 1, per_page: LATEST_ALERTS, open: true }),
      openAlertCounts(svc, s.ctx),
    ]);
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
        {alerts.items.length > 0 && (
          <section class="panel" aria-labelledby="alerts-h">
            <h2 id="alerts-h">Latest open alerts</h2>
            <ul class="plain alert-latest">
              {alerts.items.map((a) => (
                <li>
                  <SeverityBadge severity={a.severity} /> <strong>{a.title}</strong>
                  <AlertGuideLine alert={a} />
                </li>
              ))}
            </ul>
            {alerts.total > alerts.items.length && (
              <p class="small">
                <a href="/alerts">{`All ${alerts.total} open alerts`}</a>
              </p>
            )}
          </section>
        )}
        <section class="panel" aria-labelledby="domains-h">
          <h2 id="domains-h">Domains</h2>
          {domains.total === 0 ? (
            <p>No domains yet. {s.ctx.scope === "full" ? <a href="/domains/new">Add your first domain</a> : "An admin of this team can add one."}</p>
          ) : (
            <DomainTable items={domains.items} open={open} />
          )}
          {domains.total > domains.items.length && (
            <p>
              <a href="/domains">All {domains.total} domains</a>
            </p>
          )}
        </section>
      </Layout>,
    );
  });
  return r;
}
