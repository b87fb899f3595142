// New-sender alert (docs/decisions.md D103): a source address never seen for the domain (in any other
// report still kept) that sends more than NEW_SENDER_RULE.minFailing messages failing DMARC in one
// report raises new_sender (one per address); the alert resolves itself when a report shows that address
// passing DMARC. "Seen before" is answered by the domain's report object as it stores the report (D122).
// Reads D1 (open alerts; DNS for the sender's name, best effort); writes nothing itself.
import type { ParsedReport } from "../../core/reports";
import type { Services } from "../../services";
import { autoResolve, openAlertsOfKind } from "../alerts/auto-resolve";
import type { AlertDraft } from "../alerts/types";
import type { Statement } from "../commit";
import { identifySources } from "./senders";

export const NEW_SENDER_RULE = {
  /** Messages failing DMARC (neither aligned SPF nor aligned DKIM) from the address in one report: more than this. */
  minFailing: 10,
  /** New addresses alerted per report (the biggest first): a flood of spoofing sources is one story, not hundreds of alerts. */
  maxPerReport: 5,
} as const;

const subjectOf = (ip: string) => `sender:${ip}`;

export interface Tally {
  messages: number;
  fail: number;
  pass: number;
}

function bySource(parsed: ParsedReport): Map<string, Tally> {
  const out = new Map<string, Tally>();
  for (const r of parsed.rows) {
    const t = out.get(r.sourceIp) ?? { messages: 0, fail: 0, pass: 0 };
    t.messages += r.messages;
    if (r.dmarcDkim === "pass" || r.dmarcSpf === "pass") t.pass += r.messages;
    else t.fail += r.messages;
    out.set(r.sourceIp, t);
  }
  return out;
}

/** The report's addresses failing DMARC past the rule, biggest first: the ones the object is asked about. */
export function newSenderCandidates(parsed: ParsedReport): Array<[string, Tally]> {
  return [...bySource(parsed).entries()]
    .filter(([, t]) => t.fail > NEW_SENDER_RULE.minFailing)
    .sort((a, b) => b[1].fail - a[1].fail)
    .slice(0, NEW_SENDER_RULE.maxPerReport);
}

/** `seen`: which candidates another report of the domain (still kept) already showed. */
export async function newSenderChanges(
  svc: Services,
  target: { id: number; teamId: number; name: string },
  parsed: ParsedReport,
  now: Date,
  candidates: Array<[string, Tally]>,
  seen: ReadonlySet<string>,
): Promise<{ drafts: AlertDraft[]; statements: Statement[]; eventIds: string[] }> {
  const tally = bySource(parsed);
  const domain = { id: target.id, name: target.name };
  const fresh = candidates.filter(([ip]) => !seen.has(ip));
  let names = new Map<string, { sender: string | null }>();
  if (fresh.length > 0) {
    // Best effort: a lookup failure leaves the sender unnamed, never blocks the report or the alert.
    names = await identifySources(
      svc,
      fresh.map(([ip]) => ip),
    ).catch(() => new Map());
  }
  const drafts: AlertDraft[] = fresh.map(([ip, t]) => {
    const sender = names.get(ip)?.sender ?? null;
    return {
      teamId: target.teamId,
      domain,
      kind: "new_sender",
      subject: subjectOf(ip),
      severity: "Medium",
      title: `New sender ${ip}${sender ? ` (${sender})` : ""} failing DMARC for ${target.name}`,
      body: `${parsed.metadata.orgName} saw ${t.messages} messages from ${ip}${sender ? `, identified as ${sender},` : ""} which never sent as ${target.name} before; ${t.fail} failed DMARC (neither aligned SPF nor aligned DKIM) and ${t.pass} passed. If you use this sender, authorize it (SPF include and DKIM signing with your domain); if not, it is spoofing your domain. The alert resolves itself once this address is seen passing DMARC.`,
    };
  });
  const statements: Statement[] = [];
  const eventIds: string[] = [];
  const passing = new Set([...tally.entries()].filter(([, t]) => t.pass > 0).map(([ip]) => subjectOf(ip)));
  if (passing.size > 0) {
    for (const open of await openAlertsOfKind(svc.db, target.teamId, domain, "new_sender")) {
      if (!passing.has(open.subject)) continue;
      const r = autoResolve(svc.db, open, now);
      statements.push(...r.statements);
      eventIds.push(r.eventId);
    }
  }
  return { drafts, statements, eventIds };
}
