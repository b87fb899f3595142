// Does what senders see match what we serve? Read from a posture check's MTA-STS result (the TXT id and
// the fetched policy) or from the sweep's own TXT lookup. A stale id or a different policy raises the
// "hosting" alert (subjects mta_sts.id and mta_sts.policy); a match resolves it. DNS failure is never
// "stale" (RFC 7208 §4.4's temperror: unknown). No I/O except reading the row and the open alerts (D1).
import { eq } from "drizzle-orm";
import { compareServed, type ServedComparison, UNUSABLE_ID } from "../../core/mta-sts/hosting";
import type { MtaStsResult } from "../../core/mta-sts/check";
import { hostedMtaSts } from "../../db/schema";
import type { Services } from "../../services";
import { autoResolve, openAlertsOfKind } from "../alerts/auto-resolve";
import { upsertAlert } from "../alerts/raise";
import type { AlertDraft } from "../alerts/types";
import type { Statement } from "../commit";
import { type HostedRow, idHost, policyHost, servedPolicy } from "./rows";

export interface DriftWrites {
  statements: Statement[];
  eventIds: string[];
}

const NONE: DriftWrites = { statements: [], eventIds: [] };

/** With the CNAME delivery the id record changes by API: resolvers' caches (TTL 60 s) need a moment to follow. */
const CNAME_PROPAGATION_MS = 10 * 60_000;

function drafts(row: HostedRow, cmp: ServedComparison, now: Date): Map<string, AlertDraft | null> {
  const propagating = row.idDelivery === "cname" && now.getTime() - row.policyChangedAt.getTime() < CNAME_PROPAGATION_MS;
  const domain = { id: row.domainId, name: row.domainName };
  const out = new Map<string, AlertDraft | null>();
  // The id: stale raises; same or absent (setup not finished, shown on the page) resolves; unknown keeps.
  if (cmp.id === "stale" && !propagating) {
    const tell =
      row.idDelivery === "txt"
        ? `Change the TXT record ${idHost(row.domainName)} to "v=STSv1; id=${row.policyId}".`
        : `The CNAME ${idHost(row.domainName)} does not lead to the id this service keeps.`;
    out.set("mta_sts.id", {
      teamId: row.teamId,
      domain,
      kind: "hosting",
      subject: "mta_sts.id",
      severity: row.mode === "enforce" ? "High" : "Medium",
      title: `The MTA-STS id published for ${row.domainName} is not the id of the hosted policy`,
      body: `Senders fetch a new policy only when the id changes (RFC 8461 §3.1), so they keep an old one. ${tell}`,
    });
  } else if (cmp.id === "same" || cmp.id === "absent") out.set("mta_sts.id", null);
  if (cmp.policy === "different") {
    out.set("mta_sts.policy", {
      teamId: row.teamId,
      domain,
      kind: "hosting",
      subject: "mta_sts.policy",
      severity: "High",
      title: `The MTA-STS policy fetched from ${policyHost(row.domainName)} is not the hosted one`,
      body: `${policyHost(row.domainName)} should be a CNAME to this service; another server answers, or an old copy is served.`,
    });
  } else if (cmp.policy === "same") out.set("mta_sts.policy", null);
  return out;
}

/** Alert upserts and resolves for one comparison, plus the row's published id; statements for the caller's batch. */
export async function driftWrites(svc: Services, row: HostedRow, cmp: ServedComparison, dnsId: string | null | undefined, now: Date): Promise<DriftWrites> {
  if (cmp.id === "stale" || cmp.policy === "different") {
    // The row was read before DNS and the fetch; a policy saved since then is what they may have seen.
    // A difference is judged only while that row is still the one served (the next look judges the new one).
    const current = await svc.db.select({ policyId: hostedMtaSts.policyId }).from(hostedMtaSts).where(eq(hostedMtaSts.domainId, row.domainId)).get();
    if (current?.policyId !== row.policyId) return { statements: [], eventIds: [] };
  }
  const wanted = drafts(row, cmp, now);
  const open = await openAlertsOfKind(svc.db, row.teamId, { id: row.domainId, name: row.domainName }, "hosting");
  const out: DriftWrites = { statements: [], eventIds: [] };
  for (const [subject, draft] of wanted) {
    const isOpen = open.find((a) => a.subject === subject);
    if (draft) {
      const u = upsertAlert(svc.db, draft, now, isOpen !== undefined);
      out.statements.push(...u.statements);
      if (u.eventId) out.eventIds.push(u.eventId);
    } else if (isOpen) {
      const r = autoResolve(svc.db, isOpen, now);
      out.statements.push(...r.statements);
      out.eventIds.push(r.eventId);
    }
  }
  if (dnsId !== undefined) {
    // An unusable record has no id to show (null, as for none).
    out.statements.push(
      svc.db
        .update(hostedMtaSts)
        .set({ publishedId: dnsId === UNUSABLE_ID ? null : dnsId, publishedCheckedAt: now })
        .where(eq(hostedMtaSts.domainId, row.domainId)),
    );
  }
  return out;
}

/**
 * For run-check: a hosted domain's MTA-STS part against the row. The TXT id counts only when the lookup
 * answered; the policy only when it was fetched (a failed fetch of our own host is left to the posture
 * findings, not called a difference).
 */
/** `row`: the domain's hosting row, read by the check together with the domain (re-read only to confirm a difference). */
export async function hostedDriftAfterCheck(svc: Services, row: HostedRow | null, sts: MtaStsResult | undefined, now: Date): Promise<DriftWrites> {
  if (!sts || !row) return NONE;
  // "invalid" without an id: several v=STSv1 records or one that does not parse (check.ts).
  const dnsId = sts.status === "temperror" ? undefined : sts.status === "missing" ? null : (sts.id ?? UNUSABLE_ID);
  const p = sts.policy;
  const fetched = p.status === "valid" || p.failure === "invalid_policy" ? p.text : p.status === "invalid" && p.failure !== null ? null : undefined;
  return driftWrites(svc, row, compareServed({ id: row.policyId, policy: servedPolicy(row) }, dnsId, fetched), dnsId, now);
}
