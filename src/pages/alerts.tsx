/** @jsxImportSource hono/jsx */
// Alerts of the current team: open and resolved as two tabs (two paths, so the pager keeps its plain
// ?page= links), newest first, each with a resolve button. Viewers see the lists without the button;
// the resolve verb refuses them too.
import { Hono } from "hono";
import type { FC } from "hono/jsx";
import type { AppEnv } from "../context";
import type { PaginationQuery } from "../lib/pagination";
import { type AlertView, listAlerts } from "../services/alerts/list-alerts";
import { resolveAlert } from "../services/alerts/resolve-alert";
import { AlertGuideLine } from "./alert-kinds";
import { Pager, pageQuery, plural, SeverityBadge, when } from "./domain-format";
import { frameOf } from "./frame";
import { checkCsrf, readForm, signedInOrRedirect } from "./guard";
import { CsrfField, type Frame, Layout, Notice } from "./layout";
import { idParam } from "./params";

const PER_PAGE = 25;
type Tab = "open" | "resolved";

const AlertsPage: FC<{ frame: Frame; tab: Tab; q: PaginationQuery; list: { items: AlertView[]; total: number }; resolved: boolean }> = ({
  frame,
  tab,
  q,
  list,
  resolved,
}) => {
  const canWrite = frame.signedIn?.ctx.scope === "full";
  const base = tab === "open" ? "/alerts" : "/alerts/resolved";
  return (
    <Layout title={tab === "open" ? "Open alerts" : "Resolved alerts"} frame={frame} active="/alerts">
      <h1>Alerts</h1>
      {resolved && <Notice kind="ok">The alert was resolved. It opens again if the problem comes back.</Notice>}
      <nav class="tabs" aria-label="Alert status">
        <a href="/alerts" aria-current={tab === "open" ? "page" : undefined}>
          Open
        </a>
        <a href="/alerts/resolved" aria-current={tab === "resolved" ? "page" : undefined}>
          Resolved
        </a>
      </nav>
      <section class="panel" aria-labelledby="alert-list">
        <h2 id="alert-list">{plural(list.total, `${tab} alert`)}</h2>
        {list.items.length === 0 ? (
          <p class="muted">{tab === "open" ? "No open alerts. Everything we watch looks as expected." : "No resolved alerts yet."}</p>
        ) : (
          <div class="table-wrap">
            <table class="stack">
              <thead>
                <tr>
                  <th scope="col">Severity</th>
                  <th scope="col">Alert</th>
                  <th scope="col">Domain</th>
                  <th scope="col">Seen</th>
                  <th scope="col">{tab === "open" ? "Action" : "Resolved"}</th>
                </tr>
              </thead>
              <tbody>
                {list.items.map((a) => (
                  <tr id={`alert-${a.id}`}>
                    <td data-label="Severity">
                      <SeverityBadge severity={a.severity} />
                    </td>
                    <td data-label="Alert">
                      <strong>{a.title}</strong>
                      <AlertGuideLine alert={a} />
                      {a.body && <div class="small">{a.body}</div>}
                    </td>
                    <td data-label="Domain">
                      {a.domain_id !== null && a.domain ? <a href={`/domains/${a.domain_id}`}>{a.domain}</a> : <span class="muted">—</span>}
                    </td>
                    <td class="small" data-label="Seen">
                      {`first ${when(a.created_at)}`}
                      <br />
                      {`${plural(a.occurrences, "time")}, last ${when(a.updated_at)}`}
                    </td>
                    <td data-label={tab === "open" ? "Action" : "Resolved"}>
                      {a.resolved_at ? (
                        <span class="small">{when(a.resolved_at)}</span>
                      ) : canWrite ? (
                        <form method="post" action={`/alerts/${a.id}/resolve`} class="inline">
                          <CsrfField csrf={frame.csrf} />
                          <button type="submit" class="secondary" aria-label={`Resolve: ${a.title}`}>
                            Resolve
                          </button>
                        </form>
                      ) : (
                        <span class="badge warn">open</span>
                      )}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
        <Pager base={base} q={q} total={list.total} perDefault={PER_PAGE} />
      </section>
    </Layout>
  );
};

export function alertPages() {
  const r = new Hono<AppEnv>();
  for (const tab of ["open", "resolved"] as const) {
    r.get(tab === "open" ? "/alerts" : "/alerts/resolved", async (c) => {
      const s = signedInOrRedirect(c);
      if (s instanceof Response) return s;
      const q = pageQuery(c.req.query(), PER_PAGE);
      const list = await listAlerts(c.get("services"), s.ctx, { ...q, open: tab === "open" });
      return c.html(<AlertsPage frame={await frameOf(c)} tab={tab} q={q} list={list} resolved={c.req.query("resolved") === "1"} />);
    });
  }

  r.post("/alerts/:id/resolve", async (c) => {
    const s = signedInOrRedirect(c);
    if (s instanceof Response) return s;
    const form = await readForm(c);
    checkCsrf(c, form.get("_csrf"));
    await resolveAlert(c.get("services"), s.ctx, idParam(c.req.param("id")));
    return c.redirect("/alerts?resolved=1", 303);
  });
  return r;
}
