// GET /domains/{domain}/dkim and GET .../dkim/selectors/{selector}: inventory views over a days
// window. I/O: D1 reads (team-scoped through the domain).
import { ageBucket, STALE_KEY_DAYS } from "../../core/dkim";
import type { Finding } from "../../core/types";
import { notFound } from "../../lib/errors";
import { DAY_MS } from "../../lib/time";
import type { Services } from "../../services";
import { getDomainInTeam } from "../domains/get-domain";
import { selectorView, type SelectorView } from "./present";
import { findSelector, keyHistory, listSelectors, reportsBySelector, signers, type Signer, windowStartDay } from "./queries";
import { PUBLISHED } from "./transition";
import type { ServiceContext } from "../context";

export interface DkimSummary {
  selectors: number;
  active: number;
  invalid: number;
  revoked: number;
  missing: number;
  pending: number;
  health: { pass: number; warning: number; fail: number };
  rotations_in_window: number;
  oldest_key_days: number | null;
  stale_keys: number;
  age_buckets: { under_6_months: number; over_6_months: number; over_2_years: number };
  messages_in_window: number;
}

export interface DkimOverview {
  domain: string;
  days: number;
  summary: DkimSummary;
  selectors: SelectorView[];
  signers: Signer[];
  findings: Finding[];
}

export async function getDkimOverview(svc: Services, ctx: ServiceContext, domainId: number, days: number): Promise<DkimOverview> {
  const { teamId } = ctx;
  const domain = await getDomainInTeam(svc, teamId, domainId);
  const now = svc.clock.now();
  const from = windowStartDay(now, days);
  const rows = await listSelectors(svc.db, domain.id);
  const [history, reports, signerList] = await Promise.all([
    keyHistory(
      svc.db,
      rows.map((r) => r.id),
    ),
    reportsBySelector(svc, domain.id, domain.name, from),
    signers(svc, domain.id, domain.name, from),
  ]);
  const selectors = rows.map((r) => selectorView(r, domain.name, now, { history: history.get(r.id), reports: reports.get(r.selector) ?? null }));

  const count = (s: string) => selectors.filter((x) => x.status === s).length;
  const ages = selectors
    .filter((x) => x.status === "active")
    .map((x) => x.key?.age_days)
    .filter((a): a is number => typeof a === "number");
  const windowStart = now.getTime() - days * DAY_MS;
  const summary: DkimSummary = {
    selectors: selectors.length,
    active: count("active"),
    invalid: count("invalid"),
    revoked: count("revoked"),
    missing: count("missing"),
    pending: count("pending"),
    health: { pass: 0, warning: 0, fail: 0 },
    rotations_in_window: [...history.values()].flat().filter((k) => k.retiredReason === "rotated" && k.retiredAt && k.retiredAt.getTime() >= windowStart)
      .length,
    oldest_key_days: ages.length > 0 ? Math.max(...ages) : null,
    stale_keys: ages.filter((a) => a >= STALE_KEY_DAYS).length,
    age_buckets: { under_6_months: 0, over_6_months: 0, over_2_years: 0 },
    messages_in_window: signerList.reduce((n, s) => n + s.messages, 0),
  };
  for (const s of selectors) summary.health[s.health]++;
  for (const a of ages) summary.age_buckets[ageBucket(a)]++;

  // Findings: those of published selectors, plus evidence that mail is signed with a selector
  // that does not resolve (reports show it; DNS lost it).
  const findings: Finding[] = selectors.filter((s) => PUBLISHED.has(s.status)).flatMap((s) => s.issues);
  for (const s of selectors) {
    if (s.status === "missing" && s.reports && s.reports.messages > 0) {
      findings.push({
        rule: "dkim.selector.missing_but_used",
        severity: "High",
        description: `${s.selector}: DMARC reports show ${s.reports.messages} message(s) signed with this selector in the last ${days} days, but it no longer resolves.`,
        fix: `Republish ${s.host} or stop signing with it.`,
      });
    }
  }
  return { domain: domain.name, days, summary, selectors, signers: signerList, findings };
}

export async function getDkimSelector(svc: Services, ctx: ServiceContext, domainId: number, selector: string, days: number): Promise<SelectorView> {
  const { teamId } = ctx;
  const domain = await getDomainInTeam(svc, teamId, domainId);
  const row = await findSelector(svc.db, domain.id, selector);
  if (!row) throw notFound("Selector");
  const now = svc.clock.now();
  const [history, reports] = await Promise.all([
    keyHistory(svc.db, [row.id]),
    reportsBySelector(svc, domain.id, domain.name, windowStartDay(now, days), row.selector),
  ]);
  return selectorView(row, domain.name, now, { history: history.get(row.id), reports: reports.get(row.selector) ?? null });
}
