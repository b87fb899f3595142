/** @jsxImportSource hono/jsx */
// One domain: grade and score, the posture part by part with the fixes to paste, the score history
// chart, the timeline of changes, "check now" (a queued check shows as pending and the page refreshes
// itself until the result is recorded), the DMARC report address, and delete (with confirmation).
import { Hono } from "hono";
import type { FC } from "hono/jsx";
import type { AppEnv } from "../context";
import { COMMON_SELECTORS } from "../core/dkim/selectors";
import { getDkimOverview } from "../services/dkim-inventory/overview";
import { MAX_SELECTORS } from "../services/dkim-inventory/refresh";
import { deleteDomain } from "../services/domains/delete-domain";
import { getDomainDetail } from "../services/domains/domain-detail";
import { listChecks, listDiffs } from "../services/checks/history";
import { pendingCheckOf } from "../services/domains/pending-check";
import { requestCheck } from "../services/domains/request-check";
import { LineChart } from "./charts";
import { ChangeList, groupChanges } from "./domain-changes";
import { Copyable, GradeBadge, plural, SeverityBadge, StatusBadge, when } from "./domain-format";
import { frameOf } from "./frame";
import { checkCsrf, readForm, signedInOrRedirect } from "./guard";
import { CsrfField, Layout, Notice } from "./layout";
import { idParam } from "./params";
import { PlanView } from "./plan-view";
import { PasteFixes, PostureParts } from "./posture-parts";
import { meterPage } from "./meter";

/** Seconds between reloads while a check is pending (docs/decisions.md D35). */
const REFRESH_SECONDS = 3;
const HISTORY_POINTS = 200;
const DIFFS_SHOWN = 50;
/** Change entries shown open; older ones are folded. */
const CHANGES_OPEN = 8;

type Overview = Awaited<ReturnType<typeof getDkimOverview>>;

const DkimPart: FC<{ id: number; dkim: Overview }> = ({ id, dkim }) => (
  <section class="part" aria-labelledby="part-dkim">
    <h3 id="part-dkim">
      DKIM{" "}
      {dkim.summary.active > 0 ? <span class="badge ok">{`${dkim.summary.active} active`}</span> : <span class="badge warn">no active selector known</span>}
    </h3>
    {dkim.selectors.length === 0 ? (
      <p class="small muted">
        {`No selectors found yet. Selectors cannot be listed from DNS: each check tries the selectors of the providers your MX and SPF records name, then ${COMMON_SELECTORS.join(", ")} and the other providers' names (${MAX_SELECTORS} at most). Add the ones you sign with on the DKIM page.`}
      </p>
    ) : (
      <ul class="plain">
        {dkim.selectors.map((s) => (
          <li>
            <a href={`/domains/${id}/dkim/${encodeURIComponent(s.selector)}`}>{s.selector}</a> <StatusBadge status={s.status} />{" "}
            {s.key && <span class="small muted">{`${s.key.type}${s.key.bits ? ` ${s.key.bits} bits` : ""}`}</span>}
          </li>
        ))}
      </ul>
    )}
    <ul class="findings">
      {dkim.findings.map((f) => (
        <li>
          <SeverityBadge severity={f.severity} /> {f.description}
          {f.fix && <Copyable value={f.fix} label={`fix for ${f.rule}`} />}
        </li>
      ))}
    </ul>
    <p class="small">
      <a href={`/dkim#domain-${id}`}>Selector inventory and tools</a>
    </p>
  </section>
);

export function domainDetailPages() {
  const r = new Hono<AppEnv>();

  r.get("/domains/:id", async (c) => {
    const s = signedInOrRedirect(c);
    if (s instanceof Response) return s;
    const id = idParam(c.req.param("id"));
    const svc = c.get("services");
    const d = await getDomainDetail(svc, s.ctx, id);
    const [pending, checks, diffs, dkim] = await Promise.all([
      pendingCheckOf(svc, s.ctx, id),
      listChecks(svc, s.ctx, id, { page: 1, per_page: HISTORY_POINTS }),
      listDiffs(svc, s.ctx, id, { page: 1, per_page: DIFFS_SHOWN }),
      getDkimOverview(svc, s.ctx, id, 30),
    ]);
    const canWrite = s.ctx.scope === "full";
    const points = checks.items
      .filter((k) => k.score !== null)
      .reverse()
      .map((k) => ({ x: k.created_at ?? "", y: k.score ?? 0 }));
    const changes = groupChanges(diffs.items);
    const q = c.req.query();
    const frame = await frameOf(c);
    return c.html(
      <Layout title={d.name} frame={frame} active="/domains">
        <div class="title-row">
          <h1>{d.name}</h1>
          <GradeBadge grade={d.grade} />
        </div>
        <div class="panel stat-row domain-stats">
          <div>
            <span class="small muted">Score</span>
            <strong>{d.score ?? "—"}</strong>
          </div>
          <div>
            <span class="small muted">DMARC policy</span>
            <strong>{d.dmarc_policy ?? "—"}</strong>
          </div>
          <div>
            <span class="small muted">Last check</span>
            <strong class="small-stat">{when(d.last_checked_at)}</strong>
            <span class="small muted">{`Next: ${when(d.next_check_at)}`}</span>
          </div>
        </div>
        {q.verified === "1" && !pending && <Notice kind="ok">Ownership verified. The first check has finished; the posture below is its result.</Notice>}
        {pending && (
          // The reload goes to the address without the verified flag, so its notice goes once the check is done.
          <div
            class="notice info"
            role="status"
            data-refresh-after={String(REFRESH_SECONDS)}
            data-refresh-to={`/domains/${id}${q.verified === "1" || q.checked === "1" ? "?checked=1" : ""}`}
          >
            {`${q.verified === "1" ? "Ownership verified. The first check" : "A check"} is queued (since ${when(pending.queued_at)}). This page refreshes itself until the result is in.`}
          </div>
        )}
        {!pending && q.checked === "1" && q.verified !== "1" && <Notice kind="ok">The check finished; the posture below is its result.</Notice>}
        <PlanView plan={d.plan} />
        <section class="panel" aria-labelledby="diffs-h" id="changes">
          <h2 id="diffs-h">Recent changes</h2>
          <ChangeList entries={changes.slice(0, CHANGES_OPEN)} />
          {changes.length > CHANGES_OPEN && (
            <details class="more">
              <summary>{`${plural(changes.length - CHANGES_OPEN, "older change")}`}</summary>
              <ChangeList entries={changes.slice(CHANGES_OPEN)} />
              {diffs.total > DIFFS_SHOWN && <p class="small muted">{`The newest ${DIFFS_SHOWN} of ${diffs.total} recorded differences.`}</p>}
            </details>
          )}
        </section>
        <section class="panel" aria-labelledby="actions-h">
          <h2 id="actions-h">Monitoring</h2>
          {!d.verified ? (
            <p>
              <span class="badge warn">unverified</span> Monitoring starts once ownership is proven. <a href={`/domains/${id}/verify`}>Verify this domain</a>
            </p>
          ) : canWrite ? (
            <form method="post" action={`/domains/${id}/check`} class="inline">
              <CsrfField csrf={frame.csrf} />
              {pending ? (
                <button type="submit" class="pending" disabled aria-disabled="true">
                  Check queued…
                </button>
              ) : (
                <button type="submit">Check now</button>
              )}
            </form>
          ) : null}
          <p class="small">DMARC aggregate reports for this domain go to (put it in your DMARC record's rua= tag):</p>
          <Copyable value={d.dmarc_report_address} label="DMARC report address" />
          <p class="small">
            <a href={`/domains/${id}/dmarc`}>DMARC reports and sources</a> · <a href={`/domains/${id}/tls`}>SMTP TLS reports</a> ·{" "}
            <a href={`/domains/${id}/hosting`}>MTA-STS and BIMI hosting</a>
          </p>
        </section>
        {!d.plan && <PasteFixes fixes={d.fixes} />}
        <section class="panel" aria-labelledby="posture-h">
          <h2 id="posture-h">Posture</h2>
          {d.posture ? (
            <>
              <p class="small muted">{`From the check of ${when(d.posture.checked_at)}. Parts with nothing to do are folded; open them to see their records.`}</p>
              <PostureParts posture={{ ...d.posture, blacklists: d.posture.blacklists ?? null }} extra={{ dkim: <DkimPart id={id} dkim={dkim} /> }} foldQuiet />
            </>
          ) : (
            <p class="muted">No check has finished yet.</p>
          )}
        </section>
        <section class="panel" aria-labelledby="history-h">
          <h2 id="history-h">Score history</h2>
          <LineChart
            title={`Score of ${d.name}`}
            points={points}
            yMax={100}
            summary={points.length === 0 ? "No scored checks yet." : `${plural(points.length, "check")}; latest score ${points.at(-1)?.y}.`}
          />
        </section>
        {canWrite && (
          <section class="panel danger-zone" aria-labelledby="delete-h">
            <h2 id="delete-h">Delete this domain</h2>
            <p class="small">Its checks, changes, DKIM inventory, reports and alerts go with it.</p>
            <form method="post" action={`/domains/${id}/delete`} data-confirm={`Delete ${d.name} and all its data? This cannot be undone.`}>
              <CsrfField csrf={frame.csrf} />
              <button type="submit" class="danger">{`Delete ${d.name}`}</button>
            </form>
          </section>
        )}
      </Layout>,
    );
  });

  r.post("/domains/:id/check", async (c) => {
    const s = signedInOrRedirect(c);
    if (s instanceof Response) return s;
    const form = await readForm(c);
    checkCsrf(c, form.get("_csrf"));
    const id = idParam(c.req.param("id"));
    await meterPage(c, s);
    await requestCheck(c.get("services"), s.ctx, id);
    return c.redirect(`/domains/${id}?checked=1`, 303);
  });

  r.post("/domains/:id/delete", async (c) => {
    const s = signedInOrRedirect(c);
    if (s instanceof Response) return s;
    const form = await readForm(c);
    checkCsrf(c, form.get("_csrf"));
    await deleteDomain(c.get("services"), s.ctx, idParam(c.req.param("id")));
    return c.redirect("/domains?deleted=1", 303);
  });
  return r;
}
