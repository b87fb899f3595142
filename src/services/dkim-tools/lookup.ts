// GET /dkim/lookup service: validates the selector list, infers providers from MX and SPF, scans selectors. DNS I/O via svc.createResolver().
import { inferProviders, isValidSelector, lookupSelectors, type SelectorScan } from "../../core/dkim";
import { normalizeDomainName } from "../../core/dns/names";
import type { Resolver } from "../../core/dns/types";
import { fetchSpf } from "../../core/spf/discover";
import { parseSpf } from "../../core/spf/parse";
import { dependencyUnavailable, validationFailed, type FieldErrors } from "../../lib/errors";
import type { Services } from "../../services";

/** api-and-webhooks.md limits: selectors in /dkim/lookup, up to 20. */
export const MAX_SELECTORS = 20;

export interface LookupInput {
  domain: string;
  selector?: string;
  selectors?: string;
}

/**
 * `selector` and `selectors` may be given together: they are merged (selector first, duplicates
 * dropped, case-insensitive) and the merged list must stay within 20. Neither means a scan of the
 * curated table, with the providers suggested by the domain's MX and SPF tried first.
 */
export async function lookupDkim(svc: Services, input: LookupInput): Promise<SelectorScan> {
  const errors: FieldErrors = {};
  const domain = normalizeDomainName(input.domain);
  if (!domain.ok) errors.domain = [domain.error];
  const named = parseSelectorParams(input, errors);
  if (!domain.ok || Object.keys(errors).length > 0) throw validationFailed(errors);

  const resolver = svc.createResolver();
  const providers = named === null ? await providersOf(domain.value, resolver) : [];
  const scan = await lookupSelectors(domain.value, named, resolver, { providers });
  // A live lookup where no answer came back at all is a dependency failure, not "not found".
  const entries = Object.values(scan.selectors);
  if (scan.scanned > 0 && Object.keys(scan.missing).length === 0 && entries.every((e) => e.status === "temperror")) {
    throw dependencyUnavailable();
  }
  return scan;
}

/** The requested selectors (null: scan the curated table); records problems in `errors`. */
function parseSelectorParams(input: LookupInput, errors: FieldErrors): string[] | null {
  if (input.selector === undefined && input.selectors === undefined) return null;
  const list: string[] = [];
  if (input.selector !== undefined) {
    if (input.selector.trim() === "") errors.selector = ["must not be empty"];
    else list.push(input.selector.trim());
  }
  if (input.selectors !== undefined) {
    const parts = input.selectors
      .split(",")
      .map((s) => s.trim())
      .filter((s) => s !== "");
    if (parts.length === 0) errors.selectors = ["must name at least one selector"];
    list.push(...parts);
  }
  const unique = [...new Set(list.map((s) => s.toLowerCase()))];
  const bad = unique.filter((s) => !isValidSelector(s));
  if (bad.length > 0) {
    const msg = bad.slice(0, 5).map((s) => `"${s.slice(0, 64)}" is not a valid selector name`);
    if (input.selectors !== undefined) errors.selectors = [...(errors.selectors ?? []), ...msg];
    else errors.selector = msg;
  }
  if (unique.length > MAX_SELECTORS) errors.selectors = [...(errors.selectors ?? []), `at most ${MAX_SELECTORS} selectors per lookup (got ${unique.length})`];
  return unique;
}

/**
 * docs/decisions.md D19 (providers from MX and SPF first): two queries (MX, TXT) and
 * the direct include: targets only, so the scan stays bounded. A failure only loses the ordering hint.
 */
async function providersOf(domain: string, resolver: Resolver): Promise<string[]> {
  const [mx, spf] = await Promise.all([resolver.query(domain, "MX"), fetchSpf(domain, resolver)]);
  const hosts = mx.kind === "records" ? mx.records.map((r) => r.exchange).filter((h) => h !== "") : [];
  const includes =
    spf.kind === "record"
      ? parseSpf(spf.record)
          .mechanisms.filter((m) => m.name === "include" && m.domainSpec !== null)
          .map((m) => m.domainSpec ?? "")
      : [];
  return inferProviders({ mx: hosts, spfIncludes: includes });
}
