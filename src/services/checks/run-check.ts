// One check of one domain (docs/decisions.md D7): all DNS/RDAP first, then ONE D1 batch with the check, diffs,
// events, alerts and schedule; then the check and its diffs move to the domain's object (D134-D135). Does I/O.
import { eq, sql } from "drizzle-orm";
import { analyzeDomain } from "../../core/posture/analyze-domain";
import { buildRemediationPlan, plannable } from "../../core/posture/plan/build";
import { dmarcEvidence } from "../dmarc/evidence";
import { diffPostures } from "../../core/posture/diff";
import { RECORD_PARTS } from "../../core/posture/registry";
import type { PartStatus, PostureCategory } from "../../core/posture/types";
import { checks, diffs, domains, hostedMtaSts, teams } from "../../db/schema";
import { DAY_MS } from "../../lib/time";
import type { Services } from "../../services";
import { openAlertKeys, upsertAlerts } from "../alerts/raise";
import { commit, commitAll, type Statement } from "../commit";
import type { AlertDraft } from "../alerts/types";
import { refreshDkimInventory } from "../dkim-inventory/refresh";
import { alignedSendingIps } from "../dmarc/sending-ips";
import { domainRef, reportAddress } from "../domains/views";
import { buildEvent, type EventDraft } from "../events/emit";
import type { CheckMessage } from "../messages";
import { registrationExpiry } from "../rdap/expiry";
import { changeAlerts, changeEvents, dkimChanges, expiryAlert, fieldText } from "./changes";
import { flattenedAlert, watchFlattenedIncludes } from "./flattened-watch";
import { mergePosture } from "./carry-over";
import { parsePosture } from "../../core/posture/stored";
import { gatherHints } from "./hints";
import { archiveAfterCheck, archiveChecks } from "./archive";
import { domainStore } from "../domains/domain-store";
import { checkIntervalMs, FAILED_RETRY_MS } from "../domains/schedule";
import { tlsRptRua } from "../tls-reports/address";
import { defaultLists } from "../../core/dnsbl/zones";
import { hostedDriftAfterCheck } from "../mta-sts-hosting/drift";

export type CheckOutcome =
  | { recorded: false; reason: "duplicate" | "no_domain" | "not_verified" | "superseded" }
  | { recorded: true; status: "completed" | "failed"; checkId: string; changes: number; eventIds: string[] };

/** The parts with a DNS record of their own: when all of them are temperror, no resolver answered. */
const CORE_PARTS = RECORD_PARTS.map((p) => p.id as PostureCategory);
const NOTHING_LISTED = { blacklist: { status: "present" as const, record: null, fields: { listed: [] } } };

export async function runCheck(svc: Services, msg: CheckMessage): Promise<CheckOutcome> {
  const db = svc.db;
  // At-least-once delivery: the message names its check; a stored check (in the D1 outbox or, once
  // copied, in the domain's object, below) means this one is a redelivery.
  if (await db.select({ id: checks.id }).from(checks).where(eq(checks.id, msg.check_id)).get()) return { recorded: false, reason: "duplicate" };
  const found = await db
    .select({ domain: domains, plan: teams.plan, hostedSts: hostedMtaSts })
    .from(domains)
    .innerJoin(teams, eq(teams.id, domains.teamId))
    // Hosted MTA-STS (if any) in the same read: a quiet check of an unhosted domain costs no extra query.
    .leftJoin(hostedMtaSts, eq(hostedMtaSts.domainId, domains.id))
    .where(eq(domains.id, msg.domain_id))
    .get();
  if (!found) return { recorded: false, reason: "no_domain" };
  const { domain, plan, hostedSts } = found;
  // The previous check is read from the object; one a crash left in D1 is copied first (newest first).
  const store = domainStore(svc, domain);
  let [held, prev] = await Promise.all([store.heldChecks([msg.check_id]), domain.lastCheckId ? store.getCheck(domain.lastCheckId) : null]);
  if (held.length > 0) return { recorded: false, reason: "duplicate" };
  if (domain.lastCheckId && !prev && (await archiveChecks(svc, domain)).moved > 0) prev = await store.getCheck(domain.lastCheckId);
  if (!domain.verified) return { recorded: false, reason: "not_verified" };
  // A newer check of this domain was reserved after this message was sent (this one outlived its lease
  // in the queue): that one runs, this one is dropped, so a backlog never doubles checks and events.
  if (domain.pendingCheckId !== null && domain.pendingCheckId !== msg.check_id) return { recorded: false, reason: "superseded" };
  const releasePending = sql`CASE WHEN pending_check_id = ${msg.check_id} THEN NULL ELSE pending_check_id END`;
  const previous = prev?.status === "completed" ? parsePosture(prev.posture) : null;

  const started = Date.now();
  const now = svc.clock.now();
  // Shared answers for everything but the domain's own names, which always go to the network, so a
  // check (scheduled or run after an edit) compares fresh records (docs/decisions.md D196).
  const resolver = svc.createResolver({ shared: true, ownZone: domain.name });
  const ref = domainRef(domain);
  const ctx = { teamId: domain.teamId, domain: ref };

  // ---- All lookups (DNS, RDAP) before any write.
  const hints = await gatherHints(domain.name, resolver);
  const inventory = await refreshDkimInventory(svc, domain, resolver, hints, now);
  const dkimStatus: PartStatus =
    inventory.posture === null ? "temperror" : inventory.posture.active > 0 ? "present" : inventory.posture.selectors > 0 ? "invalid" : "missing";
  const rdapDue = !domain.registrationCheckedAt || now.getTime() - domain.registrationCheckedAt.getTime() >= DAY_MS;
  const options = plannable({
    resolver,
    fetch: svc.fetch,
    clock: svc.clock,
    dmarcRua: `mailto:${reportAddress(domain, svc.config)}`,
    tlsRptRua: tlsRptRua(domain, svc.config),
    dnsbl: defaultLists({ spamhausDqsKey: svc.config.dnsblDqsKey ?? undefined }),
    checkBimiLogo: true,
    extraIps: await alignedSendingIps(svc, domain.id, now),
    allowPrivateTargets: svc.config.webhookAllowPrivate,
    dkim: { status: dkimStatus, findings: inventory.posture?.findings ?? [] },
  });
  const [analysis, expiry, evidence] = await Promise.all([
    analyzeDomain(domain.name, options),
    rdapDue ? registrationExpiry(svc, domain.name, now) : Promise.resolve(null),
    dmarcEvidence(svc, domain, now),
  ]);
  // The plan projects each step on the answers this check already has (docs/scoring.md "Remediation plan").
  const remediation = CORE_PARTS.every((p) => analysis.snapshot[p]?.status === "temperror")
    ? null
    : await buildRemediationPlan({ analysis, options, evidence });
  const flattening = await watchFlattenedIncludes(previous, analysis.parts.spf, options.resolver);
  await resolver.settled?.(); // the shared-cache writes land before the next check of the round reads them
  const durationMs = Date.now() - started;
  // What the check asked of DNS: the network questions and the shared cache's answers, so an operator can
  // see the cache at work in the queue consumer (docs/decisions.md D197).
  console.log(
    JSON.stringify({
      level: "info",
      msg: "check dns",
      domain_id: domain.id,
      queries: resolver.queriesSent,
      shared_hits: resolver.sharedHits ?? 0,
      duration_ms: durationMs,
    }),
  );

  // ---- Every resolver failed: record a failed check and retry sooner. check.completed says so; no
  // posture field, diff, other event or alert changes (an outage is never read as a change).
  if (CORE_PARTS.every((p) => analysis.snapshot[p]?.status === "temperror")) {
    const error = "every DNS lookup failed (temperror)";
    const failed = buildEvent(
      db,
      {
        ...ctx,
        type: "check.completed",
        data: {
          check: {
            id: msg.check_id,
            status: "failed",
            trigger: msg.trigger,
            score: null,
            grade: null,
            previous_score: domain.score,
            previous_grade: domain.grade,
            dmarc_policy: domain.dmarcPolicy,
            stale_parts: [...CORE_PARTS],
            changes: 0,
            created_at: now.toISOString(),
            error,
          },
        },
      },
      now,
    );
    const recorded: typeof checks.$inferSelect = {
      id: msg.check_id,
      domainId: domain.id,
      status: "failed",
      trigger: msg.trigger,
      score: null,
      grade: null,
      dmarcPolicy: null,
      posture: null,
      staleParts: null,
      queries: analysis.queries,
      durationMs,
      error,
      createdAt: now,
      archivedAt: null,
    };
    await commit(
      svc,
      [
        db.insert(checks).values(recorded),
        failed.statement,
        db
          .update(domains)
          .set({ nextCheckAt: new Date(now.getTime() + FAILED_RETRY_MS), pendingCheckId: releasePending })
          .where(eq(domains.id, domain.id)),
      ],
      [failed.id],
    );
    await archiveAfterCheck(svc, domain, recorded);
    return { recorded: true, status: "failed", checkId: msg.check_id, changes: 0, eventIds: [failed.id] };
  }

  const merged = mergePosture(analysis, previous, domain.dmarcPolicy, inventory.stale ? null : dkimStatus, remediation, flattening.watch);
  // The first check compares nothing, except blocklists: a listing present from the start is as
  // actionable as a later one (it raises blacklist.listed and an alert).
  const changes = previous
    ? [...diffPostures(previous.snapshot, merged.forDiff), ...dkimChanges(inventory.events)]
    : diffPostures(NOTHING_LISTED, { blacklist: merged.forDiff.blacklist });

  const hosts = Object.fromEntries(Object.entries(analysis.records).map(([k, v]) => [k, (v as { host?: string }).host ?? null]));
  const events: EventDraft[] = [
    {
      ...ctx,
      type: "check.completed",
      data: {
        check: {
          id: msg.check_id,
          status: "completed",
          trigger: msg.trigger,
          score: merged.score,
          grade: merged.grade,
          previous_score: domain.score,
          previous_grade: domain.grade,
          dmarc_policy: merged.dmarcPolicy,
          stale_parts: merged.stale,
          changes: changes.length,
          created_at: now.toISOString(),
        },
      },
    },
    ...changeEvents(changes, { ...ctx, checkId: msg.check_id, previous: previous?.snapshot ?? {}, current: merged.stored.snapshot, hosts }),
    ...inventory.events,
  ];

  const expiresAt = expiry?.status === "found" ? expiry.expiresAt : expiry?.status === "none" ? null : domain.registrationExpiresAt;
  const alertDrafts: AlertDraft[] = [...changeAlerts(changes, ctx), ...inventory.alerts, ...flattening.changes.map((c) => flattenedAlert(ctx, c))];
  const exp = expiryAlert(ctx, expiresAt, now);
  if (exp) alertDrafts.push(exp);
  const alertUpserts = upsertAlerts(db, alertDrafts, now, alertDrafts.length > 0 ? await openAlertKeys(db, domain.teamId, domain.id) : new Set());
  // A hosted MTA-STS policy: what senders see (the id in DNS, the fetched policy) against what we serve.
  const hosted = await hostedDriftAfterCheck(svc, hostedSts, analysis.parts.mta_sts, now);

  const built = events.map((e) => buildEvent(db, e, now));
  const recorded: typeof checks.$inferSelect = {
    id: msg.check_id,
    domainId: domain.id,
    status: "completed",
    trigger: msg.trigger,
    score: merged.score,
    grade: merged.grade,
    dmarcPolicy: merged.dmarcPolicy,
    posture: merged.stored,
    staleParts: merged.stale,
    queries: analysis.queries,
    durationMs,
    error: null,
    createdAt: now,
    archivedAt: null,
  };
  const statements: Statement[] = [
    db.insert(checks).values(recorded),
    ...changes.map((c) =>
      db.insert(diffs).values({
        domainId: domain.id,
        checkId: msg.check_id,
        category: c.category,
        field: c.field,
        before: fieldText(c.before),
        after: fieldText(c.after),
        severity: c.severity,
        createdAt: now,
      }),
    ),
    ...inventory.statements,
    ...built.map((b) => b.statement),
    ...alertUpserts.statements,
    ...hosted.statements,
    db
      .update(domains)
      .set({
        score: merged.score,
        grade: merged.grade,
        dmarcPolicy: merged.dmarcPolicy,
        lastCheckedAt: now,
        lastCheckId: msg.check_id,
        nextCheckAt: new Date(now.getTime() + checkIntervalMs(plan)),
        pendingCheckId: releasePending,
        ...(expiry && expiry.status !== "unknown" ? { registrationExpiresAt: expiresAt, registrationCheckedAt: now } : {}),
      })
      .where(eq(domains.id, domain.id)),
  ];
  // D1 batch = one transaction: a concurrent redelivery fails on the checks primary key and changes nothing.
  const eventIds = [...built.map((b) => b.id), ...alertUpserts.eventIds, ...hosted.eventIds];
  await commitAll(svc, statements, eventIds);
  // A quiet check is copied from memory; one with diffs reads them back (their ids are D1's).
  await archiveAfterCheck(svc, domain, changes.length === 0 ? recorded : undefined);
  return { recorded: true, status: "completed", checkId: msg.check_id, changes: changes.length, eventIds };
}
