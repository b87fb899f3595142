// BIMI discovery at default._bimi.<domain> with organizational-domain fallback, plus DMARC, logo and mark-certificate checks. I/O via Resolver and HttpFetch.
import type { Resolver } from "../dns/types";
import type { Finding, HttpFetch } from "../types";
import { bimiDmarcFindings, type BimiRecord, type DmarcFacts, isBimiCandidate, parseBimiRecord } from "./record";
import type { MarkPosture } from "./mark-check";
import { checkBimiSvg, type SvgCheck } from "./svg";

export interface BimiCheckOptions {
  /** DMARC facts of the policy that governs the domain; null = no DMARC. A promise lets the BIMI
   *  lookup run concurrently with DMARC discovery; it is awaited only once a record is found. */
  dmarc: DmarcFacts | null | Promise<DmarcFacts | null>;
  /** Organizational domain of a name (null when unknown), e.g. the RFC 9989 tree walk; for the fallback. */
  /** The Organizational Domain for the fallback; null when it cannot be determined (DNS failure). */
  orgDomain?: (domain: string) => string | null | Promise<string | null>;
  selector?: string;
  /** When given, the logo at l= is fetched and checked. */
  fetch?: HttpFetch;
  timeoutMs?: number;
  /** The time certificates are judged at (required with fetch to check a=). */
  now?: Date;
}

export interface BimiResult {
  status: "present" | "missing" | "invalid" | "temperror";
  /** Where the record was found (or last looked). */
  host: string;
  record: string | null;
  parsed: BimiRecord | null;
  fromOrgDomain: boolean;
  declined: boolean;
  svg: SvgCheck | null;
  /** The mark certificate at a=, when fetched and judged. */
  mark: MarkPosture | null;
  findings: Finding[];
}

type Found = { kind: "one"; txt: string } | { kind: "none" } | { kind: "multiple"; count: number } | { kind: "temperror"; reason: string };

async function lookupAt(host: string, resolver: Resolver): Promise<Found> {
  const r = await resolver.query(host, "TXT");
  if (r.kind === "temperror") return { kind: "temperror", reason: r.reason };
  if (r.kind !== "records") return { kind: "none" };
  const bimi = r.records.filter(isBimiCandidate);
  if (bimi.length === 0) return { kind: "none" };
  if (bimi.length > 1) return { kind: "multiple", count: bimi.length };
  return { kind: "one", txt: bimi[0] ?? "" };
}

export async function checkBimi(domain: string, resolver: Resolver, opts: BimiCheckOptions): Promise<BimiResult> {
  const selector = opts.selector ?? "default";
  let host = `${selector}._bimi.${domain}`;
  let found = await lookupAt(host, resolver);
  let fromOrgDomain = false;
  // Fallback only on a definitive absence: a temperror must not be replaced by the org record. And
  // when the walk to the Organizational Domain itself fails (null), the answer is unknown, not "missing".
  if (found.kind === "none" && opts.orgDomain) {
    const org = await opts.orgDomain(domain);
    if (org === null) found = { kind: "temperror", reason: "the Organizational Domain could not be determined" };
    else if (org !== domain) {
      host = `${selector}._bimi.${org}`;
      found = await lookupAt(host, resolver);
      fromOrgDomain = true;
    }
  }
  const base = { host, fromOrgDomain, record: null, parsed: null, declined: false, svg: null, mark: null };
  switch (found.kind) {
    case "temperror":
      return { ...base, status: "temperror", findings: [] };
    case "none":
      return {
        ...base,
        status: "missing",
        fromOrgDomain: false,
        host: `${selector}._bimi.${domain}`,
        findings: [{ rule: "bimi.missing", severity: "Info", description: "No BIMI record: no brand logo is shown in supporting inboxes.", fix: null }],
      };
    case "multiple":
      return {
        ...base,
        status: "invalid",
        findings: [
          {
            rule: "bimi.multiple-records",
            severity: "Medium",
            description: `${found.count} BIMI records at ${host}; receivers ignore all of them.`,
            fix: "Keep exactly one v=BIMI1 record.",
          },
        ],
      };
    case "one":
      break;
  }
  const parsed = parseBimiRecord(found.txt);
  if (!parsed.ok) return { ...base, record: found.txt, status: "invalid", findings: [parsed.error] };
  const { record, findings } = parsed.value;
  const result: BimiResult = { ...base, status: "present", record: found.txt, parsed: record, declined: record.declined, findings: [...findings] };
  if (record.declined) {
    result.findings.push({ rule: "bimi.declined", severity: "Info", description: `BIMI is explicitly declined at ${host} (empty l= and a=).`, fix: null });
    return result;
  }
  result.findings.push(...bimiDmarcFindings(await opts.dmarc));
  if (opts.fetch && record.logo?.startsWith("https:")) {
    result.svg = await checkBimiSvg(record.logo, opts.fetch, opts.timeoutMs);
    result.findings.push(...result.svg.findings);
  }
  if (opts.fetch && opts.now && record.authority?.startsWith("https:")) {
    // Loaded on first use: the ASN.1 schemas it needs (about 115 KiB minified, some 10 ms to evaluate) stay out
    // of the start of every isolate, most of which never judge a certificate.
    const { checkBimiMark } = await import("./mark-check");
    result.mark = await checkBimiMark({
      url: record.authority,
      // The SAN must name the domain whose record this is: the Organizational Domain after a fallback.
      domain: host.slice(selector.length + "._bimi.".length),
      selector,
      logoSvg: result.svg?.body ?? null,
      now: opts.now,
      fetch: opts.fetch,
      timeoutMs: opts.timeoutMs,
    });
    result.findings.push(...result.mark.findings);
  }
  return result;
}
