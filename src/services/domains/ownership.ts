// The daily ownership re-check (docs/events.md "domain.unverified"): a verified domain's ownership TXT
// record is looked up again once a day; gone for 3 days in a row (NXDOMAIN, NODATA or the value
// absent; a lookup that fails is unknown and changes nothing), the domain returns to pending, stops
// taking reports, raises an ownership alert and emits domain.unverified. Runs from the every-minute
// cron in small batches, so every domain is re-checked about once a day. Does I/O (DNS, D1, queue).
import { and, asc, eq, isNull, lte, or, sql } from "drizzle-orm";
import { domains } from "../../db/schema";
import { DAY_MS, HOUR_MS } from "../../lib/time";
import type { Services } from "../../services";
import { openAlertKeys, upsertAlerts } from "../alerts/raise";
import { buildConditionalEvent } from "../alerts/conditional-event";
import { mapBounded } from "../webhooks/fairness";
import { auditWhen } from "../audit-when";
import { commitAll } from "../commit";
import { systemContext } from "../context";
import { domainRef, verificationRecord } from "./views";

export const OWNERSHIP_RECHECK_MS = DAY_MS;
export const OWNERSHIP_GRACE_MS = 3 * DAY_MS;
/** Domains re-checked per cron tick: 50 a minute covers 72,000 domains a day. */
export const OWNERSHIP_BATCH = 50;
const OWNERSHIP_CONCURRENCY = 8;

export async function recheckOwnership(
  svc: Services,
  limit = OWNERSHIP_BATCH,
): Promise<{ checked: number; missing: number; unverified: number; unknown: number }> {
  const now = svc.clock.now();
  const due = await svc.db
    .select()
    .from(domains)
    .where(
      and(eq(domains.verified, true), or(isNull(domains.ownershipCheckedAt), lte(domains.ownershipCheckedAt, new Date(now.getTime() - OWNERSHIP_RECHECK_MS)))),
    )
    .orderBy(asc(domains.ownershipCheckedAt))
    .limit(limit);
  const out = { checked: 0, missing: 0, unverified: 0, unknown: 0 };
  const resolver = svc.createResolver();
  // Lookups run a few at a time: a tick's batch never waits on one slow name after another.
  await mapBounded(due, OWNERSHIP_CONCURRENCY, async (d) => {
    const expected = verificationRecord(d);
    const answer = await resolver.query(expected.host, "TXT");
    out.checked++;
    if (answer.kind === "temperror") {
      // Unknown, never "gone": look again in an hour.
      out.unknown++;
      await svc.db
        .update(domains)
        .set({ ownershipCheckedAt: new Date(now.getTime() - OWNERSHIP_RECHECK_MS + HOUR_MS) })
        .where(eq(domains.id, d.id));
      return;
    }
    const present = answer.kind === "records" && answer.records.some((t) => t.trim() === expected.value);
    if (present) {
      await svc.db.update(domains).set({ ownershipCheckedAt: now, ownershipMissingSince: null }).where(eq(domains.id, d.id));
      return;
    }
    out.missing++;
    const since = d.ownershipMissingSince ?? now;
    if (now.getTime() - since.getTime() < OWNERSHIP_GRACE_MS) {
      await svc.db.update(domains).set({ ownershipCheckedAt: now, ownershipMissingSince: since }).where(eq(domains.id, d.id));
      return;
    }
    out.unverified++;
    await unverify(svc, d, since, now);
  });
  return out;
}

async function unverify(svc: Services, d: typeof domains.$inferSelect, since: Date, now: Date): Promise<void> {
  const db = svc.db;
  const ref = domainRef(d);
  const record = verificationRecord(d);
  // Written only while the domain is still verified (before the update in the same batch), so a
  // concurrent verify or a second run never emits twice.
  const event = buildConditionalEvent(
    db,
    { type: "domain.unverified", teamId: d.teamId, domain: ref, data: { missing_since: since.toISOString(), record } },
    now,
    {
      where: sql`EXISTS (SELECT 1 FROM domains WHERE id = ${d.id} AND verified = 1)`,
    },
  );
  const alerts = upsertAlerts(
    db,
    [
      {
        teamId: d.teamId,
        domain: ref,
        kind: "ownership",
        subject: "ownership",
        severity: "High",
        title: `Ownership of ${d.name} is no longer verified`,
        body: `The TXT record ${record.host} has been gone since ${since.toISOString().slice(0, 10)}. Monitoring and report ingestion stopped. Publish ${record.value} there again, then verify the domain.`,
      },
    ],
    now,
    await openAlertKeys(db, d.teamId, d.id),
  );
  // The service's own entry, guarded like the event: a second run or a concurrent verify records nothing.
  const entry = auditWhen(
    svc,
    systemContext(d.teamId),
    {
      verb: "domain.unverify",
      target: { type: "domain", id: d.id },
      summary: `ownership of ${d.name} no longer verified: TXT at ${record.host} missing since ${since.toISOString().slice(0, 10)}`,
    },
    { when: sql`EXISTS (SELECT 1 FROM domains WHERE id = ${d.id} AND verified = 1)` },
  );
  await commitAll(
    svc,
    [
      event.statement,
      entry,
      db
        .update(domains)
        .set({ verified: false, verifiedAt: null, nextCheckAt: null, pendingCheckId: null, ownershipCheckedAt: now, ownershipMissingSince: since })
        .where(and(eq(domains.id, d.id), eq(domains.verified, true))),
      ...alerts.statements,
    ],
    [event.id, ...alerts.eventIds],
  );
}
