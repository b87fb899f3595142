/** @jsxImportSource hono/jsx */
// One DKIM selector of a domain: its current key, the key history (rotations, revocations, removals)
// and what DMARC reports say about mail signed with it (docs/decisions.md D18 for statuses and ages).
import { Hono } from "hono";
import type { AppEnv } from "../context";
import { notFound } from "../lib/errors";
import { getDkimSelector } from "../services/dkim-inventory/overview";
import { getDomainDetail } from "../services/domains/domain-detail";
import { Copyable, plural, SeverityBadge, StatusBadge, when } from "./domain-format";
import { frameOf } from "./frame";
import { signedInOrRedirect } from "./guard";
import { Layout } from "./layout";
import { idParam } from "./params";

const REPORT_DAYS = 30;

export function domainSelectorPages() {
  const r = new Hono<AppEnv>();

  r.get("/domains/:id/dkim/:selector", async (c) => {
    const s = signedInOrRedirect(c);
    if (s instanceof Response) return s;
    const id = idParam(c.req.param("id"));
    const selector = c.req.param("selector");
    // The same bound as the API's path parameter: a selector is at most 253 characters.
    if (selector.length > 253) throw notFound("Selector");
    const svc = c.get("services");
    const domain = await getDomainDetail(svc, s.ctx, id);
    const v = await getDkimSelector(svc, s.ctx, id, selector, REPORT_DAYS);
    return c.html(
      <Layout title={`${v.selector} · ${domain.name}`} frame={await frameOf(c)} active="/dkim">
        <p class="small">
          <a href={`/domains/${id}`}>{domain.name}</a> › <a href={`/dkim#domain-${id}`}>DKIM</a>
        </p>
        <h1>{`Selector ${v.selector}`}</h1>
        <section class="panel" aria-labelledby="current-h">
          <h2 id="current-h">
            Current state <StatusBadge status={v.status} /> <StatusBadge status={v.health} />
          </h2>
          <dl class="fields">
            <dt>Host</dt>
            <dd>
              <code>{v.host}</code>
            </dd>
            <dt>Key</dt>
            <dd>{v.key ? `${v.key.type}${v.key.bits ? `, ${v.key.bits} bits` : ""}${v.key.testing ? ", testing (t=y)" : ""}` : "—"}</dd>
            <dt>Key age</dt>
            <dd>{v.key?.age_days != null ? `${v.key.age_days} days (${v.key.age_bucket?.replace(/_/g, " ")})` : "—"}</dd>
            <dt>Fingerprint</dt>
            <dd class="mono wrap">{v.key?.fingerprint ?? "—"}</dd>
            <dt>Found by</dt>
            <dd>{v.source}</dd>
            <dt>Provider</dt>
            <dd>{v.provider ?? "—"}</dd>
            <dt>Delegated to</dt>
            <dd>{v.delegated_to ? <code>{v.delegated_to}</code> : "—"}</dd>
            <dt>Rotations</dt>
            <dd>{String(v.rotations)}</dd>
            <dt>First seen</dt>
            <dd>{when(v.first_seen_at)}</dd>
            <dt>Last seen</dt>
            <dd>{when(v.last_seen_at)}</dd>
            {v.missing_since && (
              <>
                <dt>Missing since</dt>
                <dd>{when(v.missing_since)}</dd>
              </>
            )}
          </dl>
          {v.record && <Copyable value={v.record} label="DKIM record" />}
          {v.issues.length > 0 && (
            <ul class="findings">
              {v.issues.map((f) => (
                <li>
                  <SeverityBadge severity={f.severity} /> {f.description}
                  {f.fix && <Copyable value={f.fix} label={`fix for ${f.rule}`} />}
                </li>
              ))}
            </ul>
          )}
        </section>
        <section class="panel" aria-labelledby="reports-h">
          <h2 id="reports-h">{`DMARC report evidence (${REPORT_DAYS} days)`}</h2>
          {v.reports ? (
            <p>
              {`${plural(v.reports.messages, "message")} signed with this selector: ${v.reports.pass} passed DKIM, ${v.reports.fail} failed; last seen in a report ${when(v.last_report_at)}.`}
              {v.reports.sources.length > 0 && <span class="small muted">{` Sources: ${v.reports.sources.join(", ")}.`}</span>}
            </p>
          ) : (
            <p class="muted">No report mentions this selector in the window.</p>
          )}
        </section>
        <section class="panel" aria-labelledby="history-h">
          <h2 id="history-h">Key history</h2>
          {v.history.length === 0 ? (
            <p class="muted">No key seen yet.</p>
          ) : (
            <div class="table-wrap">
              <table>
                <thead>
                  <tr>
                    <th scope="col">Key</th>
                    <th scope="col">Fingerprint</th>
                    <th scope="col">First seen</th>
                    <th scope="col">Last seen</th>
                    <th scope="col">Retired</th>
                  </tr>
                </thead>
                <tbody>
                  {v.history.map((k) => (
                    <tr>
                      <td>{`${k.type}${k.bits ? ` ${k.bits}` : ""}`}</td>
                      <td class="mono">{`${k.fingerprint.slice(0, 16)}…`}</td>
                      <td>{when(k.first_seen_at)}</td>
                      <td>{when(k.last_seen_at)}</td>
                      <td>{k.retired_at ? `${when(k.retired_at)} (${k.retired_reason ?? "retired"})` : <span class="badge ok">current</span>}</td>
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
