/** @jsxImportSource hono/jsx */
// The team's domains, paginated: grade, score, DMARC policy, last and next check, open alerts. The
// router also mounts the add/verify pages and the single-domain pages (one prefix, one entry point).
import { Hono } from "hono";
import type { FC } from "hono/jsx";
import type { AppEnv } from "../context";
import { openAlertCounts } from "../services/alerts/open-counts";
import { listDomains } from "../services/domains/list-domains";
import type { DomainView } from "../services/domains/views";
import { domainNewPages } from "./domains-new";
import { domainDetailPages } from "./domain-page";
import { domainSelectorPages } from "./domain-selector";
import { GradeBadge, Pager, pageQuery, plural, when } from "./domain-format";
import { frameOf } from "./frame";
import { signedInOrRedirect } from "./guard";
import { Layout } from "./layout";

/** The domains table the overview and the domains list share: grade, score, policy, checks, open alerts. */
export const DomainTable: FC<{ items: DomainView[]; open: Map<number, number> }> = ({ items, open }) => (
  <div class="table-wrap">
    <table class="stack">
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
        {items.map((d) => (
          <tr>
            <td data-label="Domain">
              <a href={`/domains/${d.id}`}>{d.name}</a>{" "}
              {!d.verified && (
                <a class="badge warn" href={`/domains/${d.id}/verify`}>
                  unverified
                </a>
              )}
            </td>
            <td data-label="Grade">
              <GradeBadge grade={d.grade} />
            </td>
            <td data-label="Score">{d.score ?? "—"}</td>
            <td data-label="DMARC policy">{d.dmarc_policy ?? "—"}</td>
            <td data-label="Last check">{when(d.last_checked_at)}</td>
            <td data-label="Next check">{when(d.next_check_at)}</td>
            <td data-label="Open alerts">{(open.get(d.id) ?? 0) > 0 ? <span class="badge bad">{String(open.get(d.id))}</span> : "0"}</td>
          </tr>
        ))}
      </tbody>
    </table>
  </div>
);

export function domainPages() {
  const r = new Hono<AppEnv>();
  // /domains/new before /domains/:id, so "new" is never read as an id.
  r.route("/", domainNewPages());

  r.get("/domains", async (c) => {
    const s = signedInOrRedirect(c);
    if (s instanceof Response) return s;
    const q = pageQuery(c.req.query(), 50);
    const svc = c.get("services");
    const [list, open] = await Promise.all([listDomains(svc, s.ctx, q), openAlertCounts(svc, s.ctx)]);
    const canWrite = s.ctx.scope === "full";
    return c.html(
      <Layout title="Domains" frame={await frameOf(c)} active="/domains">
        <div class="title-row">
          <h1>Domains</h1>
          {canWrite && (
            <a class="button" href="/domains/new">
              Add a domain
            </a>
          )}
        </div>
        <section class="panel" aria-labelledby="domains-h">
          <h2 id="domains-h">{plural(list.total, "domain")}</h2>
          {list.total === 0 ? (
            <p>No domains yet. {canWrite ? <a href="/domains/new">Add your first domain</a> : "An admin of this team can add one."}</p>
          ) : (
            <DomainTable items={list.items} open={open} />
          )}
          <Pager base="/domains" q={q} total={list.total} />
        </section>
      </Layout>,
    );
  });

  r.route("/", domainDetailPages());
  r.route("/", domainSelectorPages());
  return r;
}
