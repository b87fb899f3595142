// Service verbs for GET /intel/email and POST /intel/emails: one resolver per request, each distinct domain resolved once. DNS I/O.
import { dependencyUnavailable, validationFailed } from "../../lib/errors";
import type { Services } from "../../services";
import { parseAddress } from "./address";
import { checkAddress, type EmailCheck } from "./email-check";
import { DomainFactsCache } from "./domain-facts";

/** Distinct domains resolved at the same time within one batch. */
export const DOMAIN_CONCURRENCY = 8;

/** Runs `fn` over items with at most `limit` in flight; results keep input order. */
async function mapLimit<T, R>(items: readonly T[], limit: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const out = new Array<R>(items.length);
  let next = 0;
  const worker = async () => {
    for (let i = next++; i < items.length; i = next++) out[i] = await fn(items[i] as T);
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return out;
}

/** One address; an address that is not an addr-spec is a 422 (issue: invalid addresses are 422). */
export async function checkEmail(svc: Services, email: string): Promise<EmailCheck> {
  const syntax = parseAddress(email);
  if (!syntax.ok) throw validationFailed({ email: [syntax.reason] }, "The email address is invalid.");
  const { result, facts } = await checkAddress(email, new DomainFactsCache(svc.createResolver()), svc.env.ASSETS);
  if (facts?.unreachable) throw dependencyUnavailable();
  return result;
}

/** A batch: invalid addresses are reported per item (valid_syntax false); 503 only when no domain could be resolved at all. */
export async function checkEmailBatch(svc: Services, emails: readonly string[]) {
  const cache = new DomainFactsCache(svc.createResolver());
  const domains = [...new Set(emails.map(parseAddress).flatMap((s) => (s.ok ? [s.domain] : [])))];
  // Resolve each distinct domain with bounded parallelism; the addresses then share those promises.
  const facts = await mapLimit(domains, DOMAIN_CONCURRENCY, (d) => cache.get(d));
  if (facts.length > 0 && facts.every((f) => f.unreachable)) throw dependencyUnavailable();
  const checked = await Promise.all(emails.map((e) => checkAddress(e, cache, svc.env.ASSETS)));
  return { results: checked.map((c) => c.result), count: checked.length, domains: domains.length };
}
