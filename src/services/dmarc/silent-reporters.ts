// Silent-reporter alert (docs/decisions.md D104): a reporter that sent a domain aggregate reports on most
// days and then nothing for three days raises reports_missing, naming the reporters that went quiet; it
// resolves itself once none is quiet. Daily cron job over verified domains in bounded batches; reads the
// reporters' days of arrival from the D1 summary (docs/decisions.md D122). Does I/O (D1, queue).
import { and, asc, eq, gt, inArray, isNull } from "drizzle-orm";
import { sql } from "drizzle-orm";
import { alerts, domains } from "../../db/schema";
import { DAY_MS } from "../../lib/time";
import type { Services } from "../../services";
import { autoResolve } from "../alerts/auto-resolve";
import { openAlertKeys, upsertAlerts } from "../alerts/raise";
import type { AlertDraft } from "../alerts/types";
import { commitAll, type Statement } from "../commit";

export const SILENT_RULE = {
  /** No report received from the reporter for this long ... */
  quietDays: 3,
  /** ... after it sent reports on at least `activeDays` of the `lookbackDays` days before. */
  lookbackDays: 7,
  activeDays: 5,
  /** Domains read per query; the job walks every verified domain by id. Their ids are bound in one
   *  statement, and D1 binds at most 100 parameters per statement (Cloudflare D1 limits), so 90 plus the query's own. */
  batch: 90,
  budgetMs: 60_000,
} as const;

const SUBJECT = "dmarc:reports";

interface Quiet {
  org: string;
  days: number;
  last: number;
}

export async function checkSilentReporters(svc: Services): Promise<{ domains: number; raised: number; resolved: number }> {
  const started = Date.now();
  const now = svc.clock.now();
  const quietSince = now.getTime() - SILENT_RULE.quietDays * DAY_MS;
  const from = quietSince - SILENT_RULE.lookbackDays * DAY_MS;
  let cursor = 0;
  const out = { domains: 0, raised: 0, resolved: 0 };
  for (;;) {
    const batch = await svc.db
      .select({ id: domains.id, teamId: domains.teamId, name: domains.name })
      .from(domains)
      .where(and(eq(domains.verified, true), gt(domains.id, cursor)))
      .orderBy(asc(domains.id))
      .limit(SILENT_RULE.batch);
    if (batch.length === 0) break;
    cursor = batch.at(-1)?.id ?? cursor;
    out.domains += batch.length;
    const ids = batch.map((d) => d.id);
    // One row per (domain, day of arrival, reporter) with that day's latest arrival: a day counts when a
    // report arrived at or after `from`, exactly as counting the reports themselves did.
    const rows = await svc.db.all<{ domain_id: number; org: string; days: number; last: number }>(sql`
      SELECT domain_id, org_name AS org, COUNT(DISTINCT day) AS days, MAX(last_at) AS last
      FROM dmarc_reporter_days WHERE domain_id IN (${sql.join(
        ids.map((id) => sql`${id}`),
        sql`, `,
      )}) AND last_at >= ${from}
      GROUP BY domain_id, org_name`);
    const quiet = new Map<number, Quiet[]>();
    for (const r of rows) {
      if (Number(r.last) >= quietSince || Number(r.days) < SILENT_RULE.activeDays) continue;
      quiet.set(r.domain_id, [...(quiet.get(r.domain_id) ?? []), { org: r.org, days: Number(r.days), last: Number(r.last) }]);
    }
    const open = await svc.db
      .select({ id: alerts.id, domainId: alerts.domainId, severity: alerts.severity, title: alerts.title })
      .from(alerts)
      .where(and(inArray(alerts.domainId, ids), eq(alerts.kind, "reports_missing"), isNull(alerts.resolvedAt)));
    for (const d of batch) {
      const q = quiet.get(d.id);
      const statements: Statement[] = [];
      const eventIds: string[] = [];
      if (q) {
        const u = upsertAlerts(svc.db, [draft(d, q)], now, await openAlertKeys(svc.db, d.teamId, d.id));
        statements.push(...u.statements);
        eventIds.push(...u.eventIds);
        out.raised++;
      } else {
        for (const a of open.filter((o) => o.domainId === d.id)) {
          const r = autoResolve(svc.db, { ...a, teamId: d.teamId, domain: { id: d.id, name: d.name }, kind: "reports_missing", subject: SUBJECT }, now);
          statements.push(...r.statements);
          eventIds.push(r.eventId);
          out.resolved++;
        }
      }
      await commitAll(svc, statements, eventIds);
    }
    if (batch.length < SILENT_RULE.batch || Date.now() - started > SILENT_RULE.budgetMs) break;
  }
  return out;
}

function draft(d: { id: number; teamId: number; name: string }, quiet: Quiet[]): AlertDraft {
  const names = quiet.map((q) => q.org).sort();
  const since = (q: Quiet) => new Date(q.last).toISOString().slice(0, 10);
  return {
    teamId: d.teamId,
    domain: { id: d.id, name: d.name },
    kind: "reports_missing",
    subject: SUBJECT,
    severity: "Medium",
    title: `DMARC reports stopped arriving for ${d.name} from ${names.join(", ")}`,
    body: `${quiet.map((q) => `${q.org} sent reports on ${q.days} of the ${SILENT_RULE.lookbackDays} days before and none since ${since(q)}`).join("; ")}. The usual causes: the _dmarc record no longer has rua=mailto: with this domain's report address (edited, or broken so receivers ignore it), or the authorization that lets a report address outside the domain receive reports (RFC 7489 §7.1) went away. The alert resolves itself when the reporters send again.`,
  };
}
