// The blocklist posture part: the domain and the addresses it sends and receives from on DNSBLs, weight, listing diffs. I/O via Resolver only.
import { mxPart } from "../mx/part";
import { definePart, type FieldChange, type PartSnapshot } from "../part/types";
import type { SpfAnalysis } from "../spf/analyze";
import { spfPart } from "../spf/part";
import { blacklistFindings, type BlacklistResult, checkBlacklists, MAX_DNSBL_QUERIES } from "./check";
import type { DnsblList } from "./zones";

/**
 * Every job goes to the resolver as soon as its address is known: the resolver's queue holds the Worker's
 * 6 connections (docs/decisions.md D20, D63) and sends these leaf queries into any slot nothing else needs.
 * A cap of its own here would let queued domain-list jobs hold back the addresses' jobs.
 */
const DNSBL_CONCURRENCY = MAX_DNSBL_QUERIES;

/**
 * Single addresses the domain's own SPF authorises (ip4:/32, ip6:/128, and a/mx expansions of its own
 * names): its sending hosts, checked on blocklists after the MX hosts. A provider's ranges (includes of
 * other domains) are not the team's to fix and are left out.
 */
function ownSendingHosts(spf: SpfAnalysis, domain: string): string[] {
  const own = (name: string) => name === domain || name.endsWith(`.${domain}`);
  return spf.networks
    .filter((n) => own(n.domain.toLowerCase()) && (n.cidr.endsWith("/32") || n.cidr.endsWith("/128")))
    .map((n) => n.cidr.slice(0, n.cidr.lastIndexOf("/")));
}

const key = (l: { list: string; target: string }) => `${l.list}:${l.target}`;

function blacklistSnapshot(b: BlacklistResult): PartSnapshot {
  const allUnknown = b.checked > 0 && b.unknown.length === b.checked;
  return {
    status: allUnknown ? "temperror" : "present",
    record: null,
    fields: { listed: b.listed.map(key), unknown: b.unknown.map(key), cleared: b.cleared.map(key) },
  };
}

const list = (p: PartSnapshot, k: string): string[] => {
  const v = p.fields?.[k];
  return Array.isArray(v) ? v : [];
};

/** Listings compared one by one. Only a query that answered "not listed" proves a delisting: a listing
 *  that is now unknown (refused query, temperror) or was not asked (its address did not resolve) is no change. */
function diffListings(prev: PartSnapshot, curr: PartSnapshot): FieldChange[] {
  const before = new Set(list(prev, "listed"));
  const after = new Set(list(curr, "listed"));
  const cleared = new Set(list(curr, "cleared"));
  const out: FieldChange[] = [];
  for (const k of after) if (!before.has(k)) out.push({ field: k, before: "not_listed", after: "listed", severity: "High" });
  for (const k of before) if (!after.has(k) && cleared.has(k)) out.push({ field: k, before: "listed", after: "not_listed", severity: "Info" });
  return out;
}

export const blacklistPart = definePart({
  id: "blacklist",
  label: "Blocklist",
  weight: 5,
  recordEvent: false,
  removal: "Info",
  lookups: "leaf",
  recordChange: "Info",
  // Each group of addresses joins the queue as soon as it is known, so the wave starts with the MX answers.
  run: (ctx): Promise<BlacklistResult | null> =>
    ctx.settings.dnsbl === false
      ? Promise.resolve(null)
      : checkBlacklists(
          {
            domain: ctx.domain,
            ips: [],
            later: [
              ctx.result(mxPart).then((m) => m.ips),
              ctx.result(spfPart).then((s) => ownSendingHosts(s, ctx.domain)),
              Promise.resolve(ctx.settings.extraIps ?? []),
            ],
          },
          ctx.resolver,
          // The settings type lives below the DNSBL folder, so it cannot name DnsblList itself.
          ctx.settings.dnsbl as DnsblList[] | undefined,
          { concurrency: DNSBL_CONCURRENCY },
        ),
  scored: (b) => (b === null ? null : blacklistSnapshot(b).status === "present" ? "present" : "temperror"),
  findings: (b) => (b ? blacklistFindings(b) : []),
  snapshot: (b) => (b ? blacklistSnapshot(b) : null),
  diff: diffListings,
});
