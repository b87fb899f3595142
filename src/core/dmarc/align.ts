// Identifier alignment (RFC 9989 "Identifier Alignment Explained"; org domains per §4.10.2). Pure; I/O only through the injected orgDomainOf.
import type { Resolver } from "../dns/types";
import { organizationalDomain } from "./discover";

/** Returns the Organizational Domain, or null when it cannot be determined (DNS temperror). */
export type OrgDomainOf = (domain: string) => Promise<string | null>;

export type Alignment = "aligned" | "unaligned" | "temperror";

const norm = (d: string): string => d.toLowerCase().replace(/\.$/, "");

/** Strict: identical domains. Relaxed: same Organizational Domain (RFC 9989 "DKIM-/SPF-Authenticated Identifiers"). */
export async function aligned(authDomain: string, fromDomain: string, mode: "r" | "s", orgDomainOf: OrgDomainOf): Promise<Alignment> {
  const a = norm(authDomain);
  const f = norm(fromDomain);
  if (a === f) return "aligned";
  if (mode === "s") return "unaligned";
  const [oa, of] = await Promise.all([orgDomainOf(a), orgDomainOf(f)]);
  if (oa === null || of === null) return "temperror";
  return oa === of ? "aligned" : "unaligned";
}

/** An OrgDomainOf backed by the RFC 9989 tree walk, memoised per call site. */
export function treeWalkOrgDomain(resolver: Resolver): OrgDomainOf {
  const cache = new Map<string, Promise<string | null>>();
  return (domain) => {
    const d = norm(domain);
    let p = cache.get(d);
    if (!p) {
      p = organizationalDomain(d, resolver).then((r) => (r.ok ? r.value.orgDomain : null));
      cache.set(d, p);
    }
    return p;
  };
}
