// A hosted MTA-STS policy (issue 32 §1): built from the domain's live MX hosts, rendered byte for byte
// per RFC 8461 §3.2, a fresh id on every change (§3.1), retirement per §8.3, and the rule that lets a
// domain move from testing to enforce (no TLS failures reported, RFC 8460). Pure: no I/O, no clock.
import { err, ok, type Result } from "../types";
import { MAX_AGE_LIMIT, mxMatches, parseStsPolicy, type StsMode, validMxPattern } from "./policy";

/**
 * RFC 8461 §3.2 sets no minimum max_age; we refuse less than one day. A policy only protects a sender
 * while it is cached, and the RFC recommends "weeks or greater" (§3.2): a shorter cache means a sender
 * re-fetches often and an attacker who blocks one re-fetch downgrades it. One day is also the max_age
 * §8.3 suggests for the retiring `mode: none` policy, so every policy we serve is at least that.
 */
export const MIN_MAX_AGE = 86_400;
/** One week: long enough to protect, short enough that a mistake in testing mode heals quickly. */
export const DEFAULT_MAX_AGE = 604_800;
/** RFC 8461 §8.3 step 1: the retiring `mode: none` policy has "a small max_age (e.g., 86400)". */
export const RETIRING_MAX_AGE = 86_400;
/** More patterns than any real MX set; bounds the policy file and the editor. */
export const MAX_MX_PATTERNS = 20;

export interface HostedPolicy {
  mode: StsMode;
  mx: readonly string[];
  maxAge: number;
}

export { MAX_AGE_LIMIT };

/** RFC 8461 §3.2: "version", "mode", "mx" (repeated), "max_age" as key: value lines, each ended by CRLF. */
export function renderPolicy(p: HostedPolicy): string {
  return ["version: STSv1", `mode: ${p.mode}`, ...p.mx.map((m) => `mx: ${m}`), `max_age: ${p.maxAge}`, ""].join("\r\n");
}

/** RFC 8461 §3.1: the TXT record that tells senders which policy id is current. */
export const stsRecord = (id: string): string => `v=STSv1; id=${id}`;

/** Lower case, no trailing dot: the form a pattern is stored, compared and served in. */
export const normalizePattern = (p: string): string => p.trim().toLowerCase().replace(/\.$/, "");

/** The patterns a new policy starts with: each MX host itself (the narrowest patterns that cover them). */
export function patternsFromMx(mxHosts: readonly string[]): string[] {
  return [...new Set(mxHosts.map(normalizePattern).filter((h) => h !== ""))];
}

/** MX hosts no pattern matches (RFC 8461 §4.1): with `mode: enforce` senders would refuse to deliver to them. */
export function uncoveredMx(patterns: readonly string[], mxHosts: readonly string[]): string[] {
  return mxHosts.filter((h) => !patterns.some((p) => mxMatches(p, h)));
}

export type FieldErrors = Record<string, string[]>;

/**
 * RFC 8461 §3.2: sts-policy-mx-value = ["*."] Domain, with Domain from RFC 5321 §4.1.2: labels of letters,
 * digits and inner hyphens only. validMxPattern also reads policies others publish and lets "_" through;
 * what we serve must pass a strict parser, which refuses the whole policy for one such line.
 */
const RFC5321_PATTERN = /^(?:\*\.)?[a-z0-9](?:[a-z0-9-]*[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]*[a-z0-9])?)+$/;

/**
 * The editor's input checked against the RFC and the live MX set: every pattern well-formed (§3.2,
 * "*." only as the whole leftmost label), every live MX covered (§4.1), max_age from MIN_MAX_AGE to
 * the RFC's 31557600. Returns the normalized patterns, or errors by field.
 */
export function validatePolicyInput(
  input: { mx: readonly string[]; maxAge: number },
  mxHosts: readonly string[],
): Result<{ mx: string[]; maxAge: number }, FieldErrors> {
  const errors: FieldErrors = {};
  const add = (field: string, message: string) => {
    errors[field] = [...(errors[field] ?? []), message];
  };
  const mx = [...new Set(input.mx.map(normalizePattern))];
  if (mx.length === 0) add("mx", "At least one mx pattern is required (RFC 8461 §3.2).");
  if (mx.length > MAX_MX_PATTERNS) add("mx", `At most ${MAX_MX_PATTERNS} mx patterns.`);
  for (const p of mx) {
    if (!validMxPattern(p))
      add("mx", `"${p.slice(0, 80)}" is not a host name or a "*.<domain>" wildcard (RFC 8461 §3.2: "*" only as the whole leftmost label).`);
    else if (!RFC5321_PATTERN.test(p))
      add("mx", `"${p.slice(0, 80)}" is not an RFC 5321 domain name (letters, digits and hyphens; RFC 8461 §3.2): senders would refuse the whole policy.`);
  }
  const missing = uncoveredMx(mx, mxHosts);
  if (missing.length > 0) {
    add(
      "mx",
      `No pattern matches ${missing.join(", ")}: every MX host must match an mx pattern (RFC 8461 §4.1; "*.example.com" matches one extra label only).`,
    );
  }
  if (!Number.isInteger(input.maxAge) || input.maxAge < MIN_MAX_AGE || input.maxAge > MAX_AGE_LIMIT) {
    add("max_age", `max_age must be a whole number of seconds from ${MIN_MAX_AGE} (one day) to ${MAX_AGE_LIMIT} (RFC 8461 §3.2).`);
  }
  return Object.keys(errors).length > 0 ? err(errors) : ok({ mx, maxAge: input.maxAge });
}

const ID_ALPHABET = "0123456789abcdefghijklmnopqrstuvwxyz";

/**
 * A new policy id (RFC 8461 §3.1: 1 to 32 letters or digits): the UTC time to the second, readable in a
 * zone file, then 6 random characters so two changes in one second still differ. `random` is bytes from
 * the caller's random source; never equal to `previous`.
 */
export function newPolicyId(now: Date, random: Uint8Array, previous: string | null = null): string {
  const stamp = now
    .toISOString()
    .replace(/[-:TZ.]/g, "")
    .slice(0, 14);
  const suffix = Array.from(random.slice(0, 6), (b) => ID_ALPHABET[b % ID_ALPHABET.length]).join("");
  const id = `${stamp}${suffix.padEnd(6, "0")}`;
  // The same second and the same random bytes: bump the last character, still [a-z0-9].
  if (id !== previous) return id;
  const last = ID_ALPHABET.indexOf(id.slice(-1));
  return `${id.slice(0, -1)}${ID_ALPHABET[(last + 1) % ID_ALPHABET.length]}`;
}

export const validPolicyId = (id: string): boolean => /^[A-Za-z0-9]{1,32}$/.test(id);

/** What the TLS reports of the chosen window say (the service's TLS analytics summary). */
export interface TlsEvidence {
  days: number;
  reports: number;
  successful: number;
  failed: number;
}

export type EnforceVerdict = { allowed: true; reason: string } | { allowed: false; reason: string; code: "no_reports" | "failures" | "no_sessions" };

/**
 * Testing -> enforce (RFC 8461 §5: in testing mode senders report failures but deliver anyway): allowed only
 * when the domain's TLS reports (RFC 8460) for the chosen window show sessions under the STS policy
 * (`successful` counts those only) and not one failure. No
 * report is no evidence: enforcing blind could make senders refuse mail that testing mode would have let
 * through, so that is refused too.
 */
export function enforceVerdict(e: TlsEvidence): EnforceVerdict {
  const window = `the last ${e.days} day${e.days === 1 ? "" : "s"}`;
  if (e.reports === 0) {
    return {
      allowed: false,
      code: "no_reports",
      reason: `No TLS report arrived in ${window}: publish the TLS-RPT record and wait for reports before enforcing.`,
    };
  }
  if (e.failed > 0) {
    return {
      allowed: false,
      code: "failures",
      reason: `TLS reports show ${e.failed} failed session${e.failed === 1 ? "" : "s"} in ${window}: fix them (see TLS reports) before enforcing.`,
    };
  }
  if (e.successful === 0) {
    return {
      allowed: false,
      code: "no_sessions",
      reason: `TLS reports in ${window} count no session under the MTA-STS policy (policy-type sts): senders have not applied it yet, so there is nothing to judge.`,
    };
  }
  return { allowed: true, reason: `${e.successful} sessions and no failure in ${window} (${e.reports} report${e.reports === 1 ? "" : "s"}).` };
}

/**
 * RFC 8461 §8.3 step 3: the records may go once every policy served before has expired from senders'
 * caches: the moment `mode: none` started plus the largest max_age ever served (the retiring policy's own
 * max_age counts too, though a cached `none` policy is harmless).
 */
export function safeToRemoveAt(retiringSince: Date, largestMaxAgeServed: number): Date {
  return new Date(retiringSince.getTime() + Math.max(largestMaxAgeServed, RETIRING_MAX_AGE) * 1000);
}

/** What senders would get from the policy host and the TXT record, compared with what we serve. */
export interface ServedComparison {
  /** The id in DNS: "same", "stale" (another id, or records senders cannot use), "absent" (no v=STSv1 record), "unknown" (DNS failed: never stale). */
  id: "same" | "stale" | "absent" | "unknown";
  /** The fetched policy: "same", "different", "unreachable" (fetch failed or host missing), "unknown" (not fetched). */
  policy: "same" | "different" | "unreachable" | "unknown";
}

/** RFC 8461 §3.2 says nothing of mx order; compare the sets. */
const samePolicy = (a: HostedPolicy, b: HostedPolicy): boolean =>
  a.mode === b.mode && a.maxAge === b.maxAge && [...a.mx].map(normalizePattern).sort().join(" ") === [...b.mx].map(normalizePattern).sort().join(" ");

/** `dnsId` of a `_mta-sts` answer senders cannot use: several v=STSv1 records, or one that does not parse. */
export const UNUSABLE_ID = "";

/**
 * The posture check's MTA-STS result against the hosted row. `dnsId`: undefined when DNS failed; null
 * when no v=STSv1 record is published; UNUSABLE_ID when senders find no policy in what is published
 * (RFC 8461 §3.1), which is stale, never absent: the published id is not ours. `fetched`: the policy text senders got, null when the fetch failed,
 * undefined when it was not tried.
 */
export function compareServed(
  served: { id: string; policy: HostedPolicy },
  dnsId: string | null | undefined,
  fetched: string | null | undefined,
): ServedComparison {
  const id: ServedComparison["id"] = dnsId === undefined ? "unknown" : dnsId === null ? "absent" : dnsId === served.id ? "same" : "stale";
  let policy: ServedComparison["policy"] = "unknown";
  if (fetched === null) policy = "unreachable";
  else if (fetched !== undefined) {
    const parsed = parseStsPolicy(fetched);
    policy = parsed.ok && samePolicy(parsed.value, served.policy) ? "same" : "different";
  }
  return { id, policy };
}
