// DKIM selector inventory refresh for one domain during a check: all DNS first (known selectors,
// then providers inferred from MX/SPF, then common names), then planned writes. I/O: D1 read, DNS.
import type { BatchItem } from "drizzle-orm/batch";
import { candidateSelectors, inferProviders, lookupSelectors, PROVIDERS, type SelectorEntry } from "../../core/dkim";
import type { Resolver } from "../../core/dns/types";
import type { Finding } from "../../core/types";
import type { Services } from "../../services";
import type { AlertDraft } from "../alerts/types";
import type { DomainRow } from "../domains/get-domain";
import type { EventDraft } from "../events/emit";
import { listSelectors } from "./queries";
import { issuesOf, planSelector, PUBLISHED, type SelectorRow, type SelectorStatus } from "./transition";

export interface InventoryRefresh {
  statements: BatchItem<"sqlite">[]; // drizzle statements for the check's db.batch
  events: EventDraft[]; // the caller builds them (buildEvent) into the same batch
  alerts: AlertDraft[]; // the caller upserts them
  /** selectors: published selectors (active, invalid, revoked); null on temperror. */
  posture: { selectors: number; active: number; findings: Finding[] } | null;
  stale: boolean; // true when DNS failed: nothing changed
}

/** DNS lookups per refresh (one TXT query each, plus the wildcard probe). */
export const MAX_SELECTORS = 40;
const ORDER: Record<SelectorStatus, number> = { active: 0, revoked: 1, invalid: 2, pending: 3, missing: 4 };

export async function refreshDkimInventory(
  svc: Services,
  domain: DomainRow,
  resolver: Resolver,
  hints: { mxHosts: string[]; spfIncludes: string[] },
  now: Date,
): Promise<InventoryRefresh> {
  const rows = await listSelectors(svc.db, domain.id);
  const known = new Map(rows.map((r) => [r.selector, r]));
  const providers = inferProviders({ mx: hints.mxHosts, spfIncludes: hints.spfIncludes });
  const byStatus = [...rows].sort((a, b) => ORDER[a.status] - ORDER[b.status]);
  const names = [...new Set([...byStatus.map((r) => r.selector), ...candidateSelectors(providers)])].slice(0, MAX_SELECTORS);

  const scan = await lookupSelectors(domain.name, names, resolver);
  const entries = new Map<string, SelectorEntry>();
  for (const [s, e] of Object.entries(scan.selectors)) entries.set(s, e);
  for (const [s, reason] of Object.entries(scan.missing)) entries.set(s, missingEntry(s, reason));
  const answered = [...entries.values()].filter((e) => e.status !== "temperror").length;
  const temperrors = entries.size - answered;
  if (answered === 0) return staleResult();

  const out: InventoryRefresh = { statements: [], events: [], alerts: [], posture: null, stale: false };
  const final = new Map<string, { status: SelectorStatus; issues: Finding[] }>();
  for (const r of rows) final.set(r.selector, { status: r.status, issues: issuesOf(r) });
  for (const [s, e] of entries) {
    const row = known.get(s) ?? null;
    // A wildcard zone answers every name: only selectors already known are trusted (§4.7). When the
    // probe failed, a wildcard cannot be ruled out, so no new selector is added this time either.
    if (row === null && (scan.wildcard || scan.wildcardUnknown)) continue;
    const plan = planSelector({ db: svc.db, domain, selector: s, row, entry: e, now, source: "discovered", providerHint: providerBySelector(s, providers) });
    out.statements.push(...plan.statements);
    out.events.push(...plan.events);
    if (plan.alert) out.alerts.push(plan.alert);
    if (plan.status) final.set(s, { status: plan.status, issues: plan.issues });
  }

  const states = [...final.values()];
  const active = states.filter((x) => x.status === "active").length;
  // No active key and some lookups failed: "no DKIM" cannot be claimed; keep everything as it was.
  if (active === 0 && temperrors > 0) return staleResult();
  const published = states.filter((x) => PUBLISHED.has(x.status));
  const scanIssues = scan.issues.filter((f) => f.rule === "dkim.selector.wildcard");
  out.posture = { selectors: published.length, active, findings: [...scanIssues, ...published.flatMap((x) => x.issues)] };
  return out;
}

const staleResult = (): InventoryRefresh => ({ statements: [], events: [], alerts: [], posture: null, stale: true });

function missingEntry(selector: string, reason: string): SelectorEntry {
  return {
    status: "missing",
    delegated_to: null,
    provider: null,
    key: null,
    record: null,
    issues: [{ rule: "dkim.selector.missing", severity: "Info", description: `${selector}: ${reason}`, fix: null }],
  };
}

/** The provider whose fixed selector this is, when exactly one inferred provider publishes it. */
function providerBySelector(selector: string, inferred: string[]): string | null {
  const owners = PROVIDERS.filter((p) => inferred.includes(p.provider) && p.selectors.includes(selector));
  return owners.length === 1 ? (owners[0]?.provider ?? null) : null;
}

export type { SelectorRow };
