// DNSBL checks of IPs and domains with bounded parallelism; unknown answers are never "clean". I/O via Resolver only.
import { reverseName } from "../dns/reverse";
import type { Resolver } from "../dns/types";
import type { Finding, Severity } from "../types";
import { SEVERITIES } from "../types";
import { defaultLists, type DnsblList, type Verdict } from "./zones";

export interface Listing {
  zone: string;
  list: string;
  kind: "ip" | "domain";
  target: string;
  codes: string[];
  reasons: string[];
  severity: Severity;
  /** The zone's TXT explanation (reason / delisting URL) when it publishes one. */
  txt: string | null;
}

export interface UnknownCheck {
  zone: string;
  list: string;
  target: string;
  reason: string;
}

export interface BlacklistResult {
  listed: Listing[];
  unknown: UnknownCheck[];
  /** Queries that answered "not listed". */
  clean: number;
  /** The list and target of every query that answered "not listed": only these prove a delisting. */
  cleared: Array<{ list: string; target: string }>;
  /** Queries made (listed + unknown + clean). */
  checked: number;
  /** Targets not asked because the query cap was reached (docs/limits.md), in priority order. */
  skipped: string[];
}

export interface BlacklistOptions {
  concurrency?: number;
  /** At most this many blocklist queries (lists x targets); the domain first, then IPs in the order given. */
  maxQueries?: number;
}

/** Blocklist queries per check at most: MX hosts x addresses x lists would otherwise be unbounded. */
export const MAX_DNSBL_QUERIES = 60;

type Outcome = { kind: "listed"; codes: string[]; reasons: string[]; severity: Severity } | { kind: "unknown"; reason: string } | { kind: "clean" };

/** Combine the verdicts of every A record in one answer: any error code makes the whole answer unknown. */
export function combineVerdicts(codes: string[], verdicts: Verdict[]): Outcome {
  const unknown = verdicts.find((v) => v.kind === "unknown");
  if (unknown?.kind === "unknown") return { kind: "unknown", reason: unknown.reason };
  const hits = verdicts.flatMap((v, i) => (v.kind === "listed" ? [{ v, code: codes[i] ?? "" }] : []));
  if (hits.length === 0) return { kind: "clean" };
  const rank = (s: Severity) => SEVERITIES.indexOf(s);
  const severity = hits.map((h) => h.v.severity).reduce((a, b) => (rank(b) < rank(a) ? b : a));
  return { kind: "listed", codes: hits.map((h) => h.code), reasons: hits.map((h) => h.v.reason), severity };
}

interface Job {
  list: DnsblList;
  target: string;
  name: string;
}

/**
 * `ips` are asked at once; each of `later` (e.g. the MX addresses, still being resolved) joins the queue
 * as soon as it and every group before it have arrived, so the queue keeps the order domain, ips, later
 * groups, and the query cap skips the same targets whenever the groups arrive. At most `concurrency`
 * queries are in flight (Workers allow 6 open connections, docs/decisions.md D20).
 */
export async function checkBlacklists(
  targets: { domain?: string | null; ips: string[]; later?: Promise<string[]>[] },
  resolver: Resolver,
  lists: DnsblList[] = defaultLists(),
  opts: BlacklistOptions = {},
): Promise<BlacklistResult> {
  const result: BlacklistResult = { listed: [], unknown: [], clean: 0, cleared: [], checked: 0, skipped: [] };
  const jobs: Job[] = [];
  const domain = targets.domain?.trim().toLowerCase().replace(/\.$/, "");
  if (domain) for (const list of lists.filter((l) => l.target === "domain")) jobs.push({ list, target: domain, name: `${domain}.${list.zone}` });
  const seen = new Set<string>();
  const addIps = (group: string[]) => {
    for (const ip of group.map((x) => x.trim().toLowerCase())) {
      if (seen.has(ip)) continue;
      seen.add(ip);
      for (const list of lists.filter((l) => l.target === "ip")) {
        const name = reverseName(ip, list.zone);
        if (!name.ok) continue; // not an address: nothing to ask
        // RFC 5782 §2.4: IPv6 is nibble-reversed, but only some zones answer for it.
        if (ip.includes(":") && !list.ipv6) continue;
        jobs.push({ list, target: ip, name: name.value });
      }
    }
  };
  const max = opts.maxQueries ?? MAX_DNSBL_QUERIES;
  const limit = Math.max(1, opts.concurrency ?? 4);
  let next = 0;
  let running = 0;
  let arrived = false;
  let finish: () => void = () => {};
  const finished = new Promise<void>((resolve) => {
    finish = resolve;
  });
  const pump = () => {
    while (running < limit && next < Math.min(jobs.length, max)) {
      const job = jobs[next++] as Job;
      running++;
      void askOne(job, resolver, result).finally(() => {
        running--;
        pump();
      });
    }
    if (arrived && running === 0 && next >= Math.min(jobs.length, max)) finish();
  };
  addIps(targets.ips);
  pump();
  for (const group of targets.later ?? []) {
    addIps(await group);
    pump();
  }
  arrived = true;
  pump();
  await finished;
  // Answers arrive in any order; the lists keep the queue's, so two checks of the same answers store the same snapshot.
  const rank = new Map(jobs.map((j, i) => [`${j.list.name} ${j.target}`, i]));
  const byQueue = (a: { list: string; target: string }, b: { list: string; target: string }) =>
    (rank.get(`${a.list} ${a.target}`) ?? 0) - (rank.get(`${b.list} ${b.target}`) ?? 0);
  result.listed.sort(byQueue);
  result.unknown.sort(byQueue);
  result.cleared.sort(byQueue);
  result.skipped = [...new Set(jobs.slice(max).map((j) => j.target))];
  return result;
}

async function askOne(job: Job, resolver: Resolver, result: BlacklistResult): Promise<void> {
  const outcome = await queryOne(job, resolver);
  result.checked++;
  const base = { zone: job.list.publicZone ?? job.list.zone, list: job.list.name, target: job.target };
  if (outcome.kind === "clean") {
    result.clean++;
    result.cleared.push({ list: job.list.name, target: job.target });
  } else if (outcome.kind === "unknown") result.unknown.push({ ...base, reason: outcome.reason });
  else {
    const txt = await resolver.query(job.name, "TXT");
    result.listed.push({
      ...base,
      kind: job.list.target,
      codes: outcome.codes,
      reasons: outcome.reasons,
      severity: outcome.severity,
      txt: txt.kind === "records" ? txt.records.join(" ") : null,
    });
  }
}

async function queryOne(job: Job, resolver: Resolver): Promise<Outcome> {
  if (job.list.unavailable) return { kind: "unknown", reason: job.list.unavailable };
  const r = await resolver.query(job.name, "A");
  // RFC 5782 §2.1: NXDOMAIN is "not listed"; a name with no A record lists nothing either.
  if (r.kind === "nxdomain" || r.kind === "nodata") return { kind: "clean" };
  // A failed lookup proves nothing: unknown, never clean.
  if (r.kind === "temperror") return { kind: "unknown", reason: `lookup failed: ${r.reason}` };
  return combineVerdicts(
    r.records,
    r.records.map((c) => job.list.interpret(c)),
  );
}

/** Findings for the posture: one per listing, plus one note when some lists could not be checked. */
export function blacklistFindings(r: BlacklistResult): Finding[] {
  const out: Finding[] = r.listed.map((l) => {
    const abused = l.reasons.some((x) => x.includes("abused-legit"));
    return {
      rule: l.kind === "ip" ? "dnsbl.ip-listed" : abused ? "dnsbl.domain-compromised" : "dnsbl.domain-listed",
      severity: l.severity,
      description: abused
        ? `${l.target} is listed on ${l.list} as a compromised legitimate domain: ${l.reasons.join("; ")}. Clean up the site or account that was abused.`
        : `${l.target} is listed on ${l.list}: ${l.reasons.join("; ")}.`,
      fix: l.txt,
    };
  });
  if (r.skipped.length > 0) {
    out.push({
      rule: "dnsbl.capped",
      severity: "Info",
      description: `The blocklist query cap was reached: ${r.skipped.length} address(es) were not checked (${r.skipped.slice(0, 5).join(", ")}${r.skipped.length > 5 ? ", ..." : ""}).`,
      fix: null,
    });
  }
  if (r.unknown.length > 0) {
    out.push({
      rule: "dnsbl.unknown",
      severity: "Info",
      description: `${r.unknown.length} blocklist queries gave no usable answer (${[...new Set(r.unknown.map((u) => u.list))].join(", ")}); status unknown: ${[
        ...new Set(r.unknown.map((u) => u.reason)),
      ]
        .slice(0, 3)
        .join("; ")}.`,
      fix: null,
    });
  }
  return out;
}
