// The alerts of a hosted mark certificate (docs/events.md): "expiry" while it ends within 30 days
// (subject bimi.certificate:<selector>), "hosting" while it does not validate or its logo differs from the
// hosted one (subject bimi.mark:<selector>); each resolves once the condition is gone. Statements for the
// caller's batch; reads the open alerts (D1) once.
import type { Statement } from "../commit";
import type { Services } from "../../services";
import { autoResolve, openAlertsOfKind } from "../alerts/auto-resolve";
import { upsertAlert } from "../alerts/raise";
import type { AlertDraft } from "../alerts/types";
import type { CertificateReport } from "./validation";
import { DAY_MS } from "../../lib/time";

/** Thirty days ahead, as the other expiry alerts warn (domain registration, issue 32 §3). */
export const EXPIRY_WARNING_MS = 30 * DAY_MS;

export const certificateSubject = (selector: string) => `bimi.certificate:${selector}`;
export const markSubject = (selector: string) => `bimi.mark:${selector}`;

export interface MarkFacts {
  teamId: number;
  domain: { id: number; name: string };
  selector: string;
  /** null: no certificate hosted (both alerts resolve). */
  certificate: CertificateReport | null;
}

function drafts(f: MarkFacts, now: Date): AlertDraft[] {
  const c = f.certificate;
  if (c === null) return [];
  const out: AlertDraft[] = [];
  const base = { teamId: f.teamId, domain: f.domain };
  const end = c.not_after ? new Date(c.not_after) : null;
  if (end !== null && end.getTime() - now.getTime() <= EXPIRY_WARNING_MS) {
    const days = Math.ceil((end.getTime() - now.getTime()) / DAY_MS);
    out.push({
      ...base,
      kind: "expiry",
      subject: certificateSubject(f.selector),
      severity: days <= 7 ? "High" : "Medium",
      title:
        days <= 0
          ? `The BIMI mark certificate of ${f.domain.name} expired on ${c.not_after?.slice(0, 10)}`
          : `The BIMI mark certificate of ${f.domain.name} expires in ${days} day${days === 1 ? "" : "s"}`,
      body: `The ${c.kind ?? "mark"} certificate served for selector ${f.selector} ends ${c.not_after}. Renew it with the issuer and upload the new one; Gmail stops showing the logo when it expires.`,
    });
  }
  const mismatch = c.logo_matches === false;
  if (!c.valid || mismatch) {
    const failing = c.checks.filter((x) => x.ok === false && x.blocking).map((x) => x.message);
    out.push({
      ...base,
      kind: "hosting",
      subject: markSubject(f.selector),
      severity: "High",
      title: mismatch
        ? `The hosted BIMI logo of ${f.domain.name} differs from the logo in its mark certificate`
        : `The BIMI mark certificate of ${f.domain.name} does not validate`,
      body: [mismatch ? "The SVG embedded in the certificate is not the hosted logo." : "", ...failing].filter((s) => s !== "").join(" ") || null,
    });
  }
  return out;
}

/** Raise what holds now, resolve what no longer does (only this selector's two subjects). */
export async function markAlertStatements(svc: Services, f: MarkFacts, now: Date): Promise<{ statements: Statement[]; eventIds: string[] }> {
  const wanted = drafts(f, now);
  const [expiry, hosting] = await Promise.all([
    openAlertsOfKind(svc.db, f.teamId, f.domain, "expiry"),
    openAlertsOfKind(svc.db, f.teamId, f.domain, "hosting"),
  ]);
  const open = [...expiry, ...hosting].filter((a) => a.subject === certificateSubject(f.selector) || a.subject === markSubject(f.selector));
  const out: { statements: Statement[]; eventIds: string[] } = { statements: [], eventIds: [] };
  for (const d of wanted) {
    const u = upsertAlert(
      svc.db,
      d,
      now,
      open.some((a) => a.kind === d.kind && a.subject === d.subject),
    );
    out.statements.push(...u.statements);
    if (u.eventId) out.eventIds.push(u.eventId);
  }
  for (const a of open) {
    if (wanted.some((d) => d.kind === a.kind && d.subject === a.subject)) continue;
    const r = autoResolve(svc.db, a, now);
    out.statements.push(...r.statements);
    out.eventIds.push(r.eventId);
  }
  return out;
}
