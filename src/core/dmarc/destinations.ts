// rua/ruf destination checks: external-destination authorization (RFC 9990 §3.2.3 per checkdmarc) and MX presence. I/O only via the Resolver.
import type { Resolver } from "../dns/types";
import type { Finding } from "../types";
import { treeWalkOrgDomain } from "./align";
import { isDmarcRecord, type DmarcRecord } from "./parse";

export type AuthorizationCheck = "authorized" | "missing" | "temperror";

/** `<policy>._report._dmarc.<dest>` or the wildcard `*._report._dmarc.<dest>` must publish v=DMARC1. */
export async function externalAuthorization(policyDomain: string, destDomain: string, resolver: Resolver): Promise<AuthorizationCheck> {
  for (const name of [`${policyDomain}._report._dmarc.${destDomain}`, `*._report._dmarc.${destDomain}`]) {
    const res = await resolver.query(name, "TXT");
    if (res.kind === "temperror") return "temperror";
    if (res.kind === "records" && res.records.some(isDmarcRecord)) return "authorized";
  }
  return "missing";
}

export async function destinationFindings(r: DmarcRecord, policyDomain: string, resolver: Resolver): Promise<Finding[]> {
  const out: Finding[] = [];
  const orgOf = treeWalkOrgDomain(resolver);
  const dests = [...new Set([...r.rua, ...r.ruf].filter((u) => u.valid && u.domain !== null).map((u) => u.domain ?? ""))];
  // Destinations are independent: check them concurrently, and each one's MX alongside its authorization.
  const ownP = orgOf(policyDomain);
  const perDest = await Promise.all(
    dests.map(async (dest) => {
      const found: Finding[] = [];
      const [own, destOrg, mx] = await Promise.all([ownP, orgOf(dest), resolver.query(dest, "MX")]);
      if (destOrg === null || own === null) {
        found.push({
          rule: "dmarc.report-check-temperror",
          severity: "Info",
          description: `Could not determine the organizational domain of ${dest} (DNS temperror); the report destination was not checked.`,
          fix: null,
        });
        return found;
      }
      if (destOrg !== own) {
        const auth = await externalAuthorization(policyDomain, dest, resolver);
        if (auth === "missing") {
          found.push({
            rule: "dmarc.external-auth-missing",
            severity: "High",
            description: `Reports go to ${dest}, outside ${policyDomain}, but ${dest} does not authorise it: receivers drop these reports (RFC 9990 §3.2.3). ${dest} must publish TXT "v=DMARC1" at ${policyDomain}._report._dmarc.${dest} (or *._report._dmarc.${dest}).`,
            fix: `${policyDomain}._report._dmarc.${dest} TXT "v=DMARC1"`,
          });
        } else if (auth === "temperror") {
          found.push({
            rule: "dmarc.report-check-temperror",
            severity: "Info",
            description: `The external report authorization of ${dest} could not be checked (DNS temperror).`,
            fix: null,
          });
        }
      }
      if (mx.kind === "temperror") return found;
      if (mx.kind !== "records" || mx.records.every((m) => m.exchange === "")) {
        found.push({
          rule: "dmarc.report-domain-no-mx",
          severity: "Medium",
          description: `The report destination domain ${dest} has no usable MX records, so reports to it may bounce.`,
          fix: null,
        });
      }
      return found;
    }),
  );
  out.push(...perDest.flat());
  return out;
}
