/** @jsxImportSource hono/jsx */
// DKIM across the team: per domain the selector inventory (status, health, key type and bits, age
// bucket, provider, delegation, rotations, report evidence), adding and removing manual selectors, and
// the stateless tools (dkim-tools.tsx). Selectors cannot be listed from DNS (docs/decisions.md D19), so
// the inventory says what was found, never that a domain has no DKIM.
import { Hono } from "hono";
import type { FC } from "hono/jsx";
import type { AppEnv } from "../context";
import { addDkimSelector } from "../services/dkim-inventory/add-selector";
import { deleteDkimSelector } from "../services/dkim-inventory/delete-selector";
import { type DkimOverview, getDkimOverview } from "../services/dkim-inventory/overview";
import { listDomains } from "../services/domains/list-domains";
import { dkimToolPages, ToolForms } from "./dkim-tools";
import { Pager, pageQuery, plural, SeverityBadge, StatusBadge } from "./domain-format";
import { frameOf } from "./frame";
import { checkCsrf, readForm, signedInOrRedirect } from "./guard";
import { type Frame, CsrfField, Layout, Notice } from "./layout";
import { idParam } from "./params";

/** Domains per page: each needs its own inventory reads, so pages stay short. */
const DOMAINS_PER_PAGE = 10;
const WINDOW_DAYS = 30;
const REMOVABLE_SOURCES = new Set(["manual", "dmarc"]);
const UNPUBLISHED = new Set(["pending", "missing"]);

const Inventory: FC<{ frame: Frame; id: number; name: string; dkim: DkimOverview; back: string }> = ({ frame, id, name, dkim, back }) => {
  const canWrite = frame.signedIn?.ctx.scope === "full";
  return (
    <section class="panel" id={`domain-${id}`} aria-labelledby={`dkim-${id}`}>
      <h2 id={`dkim-${id}`}>
        <a href={`/domains/${id}`}>{name}</a>
      </h2>
      <p class="small muted">
        {`${plural(dkim.summary.selectors, "selector")}: ${dkim.summary.active} active, ${dkim.summary.revoked} revoked, ${dkim.summary.invalid} invalid, ${dkim.summary.missing} missing, ${dkim.summary.pending} pending; ${plural(dkim.summary.rotations_in_window, "rotation")} and ${plural(dkim.summary.messages_in_window, "reported message")} in ${WINDOW_DAYS} days.`}
      </p>
      {dkim.selectors.length > 0 && (
        <div class="table-wrap">
          <table>
            <thead>
              <tr>
                <th scope="col">Selector</th>
                <th scope="col">Status</th>
                <th scope="col">Health</th>
                <th scope="col">Key</th>
                <th scope="col">Age</th>
                <th scope="col">Provider</th>
                <th scope="col">Delegated to</th>
                <th scope="col">Rotations</th>
                <th scope="col">Reports (pass/fail)</th>
                {canWrite && <th scope="col">Remove</th>}
              </tr>
            </thead>
            <tbody>
              {dkim.selectors.map((s) => {
                const removable = REMOVABLE_SOURCES.has(s.source) && (UNPUBLISHED.has(s.status) || (s.status === "invalid" && s.record === null));
                return (
                  <tr>
                    <td>
                      <a href={`/domains/${id}/dkim/${encodeURIComponent(s.selector)}`}>{s.selector}</a>
                      <div class="small muted">{s.source}</div>
                    </td>
                    <td>
                      <StatusBadge status={s.status} />
                    </td>
                    <td>
                      <StatusBadge status={s.health} />
                    </td>
                    <td>{s.key ? `${s.key.type}${s.key.bits ? ` ${s.key.bits}` : ""}` : "—"}</td>
                    <td>{s.key?.age_bucket ? `${s.key.age_days} d (${s.key.age_bucket.replace(/_/g, " ")})` : "—"}</td>
                    <td>{s.provider ?? "—"}</td>
                    <td class="wrap">{s.delegated_to ?? "—"}</td>
                    <td>{String(s.rotations)}</td>
                    <td>{s.reports ? `${s.reports.pass} / ${s.reports.fail}` : "—"}</td>
                    {canWrite && (
                      <td>
                        {removable ? (
                          <form method="post" action="/dkim/selectors/remove" class="inline" data-confirm={`Remove selector ${s.selector} from ${name}?`}>
                            <CsrfField csrf={frame.csrf} />
                            <input type="hidden" name="domain_id" value={String(id)} />
                            <input type="hidden" name="selector" value={s.selector} />
                            <input type="hidden" name="back" value={back} />
                            <button type="submit" class="danger small-button" aria-label={`Remove selector ${s.selector} of ${name}`}>
                              Remove
                            </button>
                          </form>
                        ) : (
                          <span class="small muted">published or discovered</span>
                        )}
                      </td>
                    )}
                  </tr>
                );
              })}
            </tbody>
          </table>
        </div>
      )}
      {dkim.findings.length > 0 && (
        <ul class="findings">
          {dkim.findings.map((f) => (
            <li>
              <SeverityBadge severity={f.severity} /> {f.description}
            </li>
          ))}
        </ul>
      )}
      {canWrite && (
        <form method="post" action="/dkim/selectors" class="row">
          <CsrfField csrf={frame.csrf} />
          <input type="hidden" name="domain_id" value={String(id)} />
          <input type="hidden" name="back" value={back} />
          <div>
            <label for={`sel-${id}`}>{`Add a selector to ${name}`}</label>
            <input id={`sel-${id}`} name="selector" type="text" required maxlength={253} placeholder="s2026" autocomplete="off" />
          </div>
          <div>
            <button type="submit" class="secondary">
              Add and look up
            </button>
          </div>
        </form>
      )}
    </section>
  );
};

const NOTICES: Record<string, string> = {
  added: "Selector added and looked up.",
  exists: "That selector was already in the inventory.",
  removed: "Selector removed.",
};

/** Only a local path back to the inventory (never an open redirect). */
const backTo = (v: string | null) => (v && /^\/dkim(\?page=\d{1,6})?$/.test(v) ? v : "/dkim");

export function dkimPages() {
  const r = new Hono<AppEnv>();

  r.get("/dkim", async (c) => {
    const s = signedInOrRedirect(c);
    if (s instanceof Response) return s;
    const q = pageQuery(c.req.query(), DOMAINS_PER_PAGE);
    const svc = c.get("services");
    const list = await listDomains(svc, s.ctx, q);
    const overviews = await Promise.all(list.items.map((d) => getDkimOverview(svc, s.ctx, d.id, WINDOW_DAYS)));
    const frame = await frameOf(c);
    const back = q.page > 1 ? `/dkim?page=${q.page}` : "/dkim";
    const notice = NOTICES[c.req.query("done") ?? ""];
    return c.html(
      <Layout title="DKIM" frame={frame} active="/dkim">
        <h1>DKIM</h1>
        {notice && <Notice kind="ok">{notice}</Notice>}
        <p class="small">
          <a href="#tools">Tools: look up selectors, verify a message, generate a key pair</a>
        </p>
        {list.total === 0 && <p class="panel muted">No domains yet.</p>}
        {list.items.map((d, i) => {
          const o = overviews[i];
          return o ? <Inventory frame={frame} id={d.id} name={d.name} dkim={o} back={back} /> : null;
        })}
        <Pager base="/dkim" q={q} total={list.total} perDefault={DOMAINS_PER_PAGE} />
        <ToolForms frame={frame} />
      </Layout>,
    );
  });

  r.post("/dkim/selectors", async (c) => {
    const s = signedInOrRedirect(c);
    if (s instanceof Response) return s;
    const form = await readForm(c);
    checkCsrf(c, form.get("_csrf"));
    const id = idParam(form.get("domain_id") ?? undefined);
    const added = await addDkimSelector(c.get("services"), s.ctx, id, form.get("selector") ?? "");
    const back = backTo(form.get("back"));
    return c.redirect(`${back}${back.includes("?") ? "&" : "?"}done=${added.created ? "added" : "exists"}#domain-${id}`, 303);
  });

  r.post("/dkim/selectors/remove", async (c) => {
    const s = signedInOrRedirect(c);
    if (s instanceof Response) return s;
    const form = await readForm(c);
    checkCsrf(c, form.get("_csrf"));
    const id = idParam(form.get("domain_id") ?? undefined);
    const selector = form.get("selector") ?? "";
    await deleteDkimSelector(c.get("services"), s.ctx, id, selector.slice(0, 253));
    const back = backTo(form.get("back"));
    return c.redirect(`${back}${back.includes("?") ? "&" : "?"}done=removed#domain-${id}`, 303);
  });

  r.route("/", dkimToolPages());
  return r;
}
