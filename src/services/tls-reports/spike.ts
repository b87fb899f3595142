// TLS failure spike (docs/decisions.md D102): a report whose failed-session share is well above the
// domain's 14-day baseline raises (or repeats) the tls_failure alert. Reads the domain's report object;
// writes nothing itself.
import type { ParsedTlsReport } from "../../core/tls-rpt/report";
import type { Services } from "../../services";
import type { AlertDraft } from "../alerts/types";
import { domainStore } from "../domains/domain-store";

export const TLS_SPIKE_RULE = {
  baselineDays: 14,
  /** The report must count at least this many sessions for its rate to mean anything. */
  minSessions: 100,
  /** At least this share of the report's sessions failed ... */
  minRate: 0.05,
  /** ... and at least this multiple of the baseline rate (no baseline: the rate alone decides). */
  ratio: 3,
} as const;

const pct = (x: number) => `${(x * 100).toFixed(1)}%`;

export async function tlsFailureSpike(
  svc: Services,
  target: { id: number; teamId: number; name: string },
  r: Pick<ParsedTlsReport, "orgName" | "successful" | "failed"> & { policies: Array<{ failures: Array<{ resultType: string; failedCount: number }> }> },
  day: string,
): Promise<AlertDraft | null> {
  const sessions = r.successful + r.failed;
  if (sessions < TLS_SPIKE_RULE.minSessions) return null;
  const rate = r.failed / sessions;
  if (rate < TLS_SPIKE_RULE.minRate) return null;
  const since = new Date(Date.parse(`${day}T00:00:00Z`) - TLS_SPIKE_RULE.baselineDays * 86_400_000).toISOString().slice(0, 10);
  const base = await domainStore(svc, target).tlsBaseline(since, day);
  const baseSessions = base.ok + base.bad;
  const baseRate = baseSessions > 0 ? base.bad / baseSessions : 0;
  if (baseSessions >= TLS_SPIKE_RULE.minSessions && rate < TLS_SPIKE_RULE.ratio * baseRate) return null;
  const types = new Map<string, number>();
  for (const p of r.policies) for (const f of p.failures) types.set(f.resultType, (types.get(f.resultType) ?? 0) + f.failedCount);
  const top = [...types.entries()].sort((a, b) => b[1] - a[1]).slice(0, 3);
  return {
    teamId: target.teamId,
    domain: { id: target.id, name: target.name },
    kind: "tls_failure",
    subject: "tls:failures",
    severity: rate >= 0.5 ? "High" : "Medium",
    title: `TLS failures at ${pct(rate)} of sessions to ${target.name}`,
    body: `${r.orgName} reported ${r.failed} of ${sessions} SMTP TLS sessions failing on ${day}${baseSessions > 0 ? ` (baseline ${pct(baseRate)} over the previous ${TLS_SPIKE_RULE.baselineDays} days)` : ""}${top.length > 0 ? `; most failures: ${top.map(([t, n]) => `${t} (${n})`).join(", ")}` : ""}. GET /domains/${target.id}/tls gives the advice per failure type.`,
  };
}
