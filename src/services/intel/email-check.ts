// Risk check of email addresses: syntax, MX, provider, free/disposable/role flags, domain policy, score. DNS via one shared resolver.
import { parseAddress } from "./address";
import { type AssetFetcher, isDisposableDomain } from "./disposable";
import type { DomainFacts, DomainFactsCache, MxStatus, PolicyStrength, SpfAll, DmarcState } from "./domain-facts";
import { isFreeDomain, isRoleLocal, type Provider } from "./tables";

export interface Reason {
  code: string;
  message: string;
  /** Points taken off the score (0 for informational reasons). */
  points: number;
}

export interface EmailCheck {
  email: string;
  valid_syntax: boolean;
  syntax_error: string | null;
  domain: string | null;
  mx: { status: MxStatus | "not_checked"; hosts: { host: string; preference: number; status: string }[] };
  provider: Provider | null;
  free: boolean;
  disposable: boolean;
  role: boolean;
  policy: { strength: PolicyStrength | "not_checked"; spf: SpfAll | "not_checked"; dmarc: DmarcState | "not_checked" };
  score: number;
  reasons: Reason[];
}

const CONSUMER_NAMES: Record<string, string> = { "Google Workspace": "Gmail", "Microsoft 365": "Outlook.com" };

function score(facts: DomainFacts, flags: { free: boolean; disposable: boolean; role: boolean }): Reason[] {
  const r: Reason[] = [];
  const add = (code: string, points: number, message: string) => r.push({ code, points, message });
  if (facts.nxdomain) add("domain_not_found", 100, `${facts.domain} does not exist in DNS (NXDOMAIN).`);
  else if (facts.mx.status === "null_mx") add("null_mx", 90, `${facts.domain} publishes a null MX (RFC 7505): it accepts no mail.`);
  else if (facts.mx.status === "none") add("no_mx", 40, `${facts.domain} has no MX; delivery relies on the implicit A/AAAA fallback (RFC 5321 §5.1).`);
  else if (facts.mx.status === "temperror") add("mx_unknown", 0, `The MX of ${facts.domain} could not be resolved right now; deliverability is unknown.`);
  else if (facts.mxUnreachable) add("mx_unreachable", 60, `No MX host of ${facts.domain} resolves to an address.`);
  if (flags.disposable) add("disposable", 70, `${facts.domain} is a disposable (throwaway) address provider.`);
  if (flags.role) add("role_account", 20, "A role mailbox (a team or system), not a person.");
  if (flags.free) add("free_provider", 10, `${facts.domain} is a free consumer mailbox service.`);
  const strength: Record<PolicyStrength, [number, string] | null> = {
    strong: null,
    moderate: [5, "The domain's SPF/DMARC policy is only partly enforced."],
    weak: [10, "The domain publishes SPF/DMARC records that do not enforce anything; its name is easy to spoof."],
    none: [15, "The domain publishes neither SPF nor DMARC; its name is easy to spoof."],
    unknown: [0, "The domain's SPF/DMARC policy could not be resolved right now."],
  };
  const s = strength[facts.strength];
  if (s && !facts.nxdomain && facts.mx.status !== "null_mx") add(`policy_${facts.strength}`, s[0], s[1]);
  return r;
}

export async function checkAddress(input: string, cache: DomainFactsCache, assets: AssetFetcher): Promise<{ result: EmailCheck; facts: DomainFacts | null }> {
  const syntax = parseAddress(input);
  const base: EmailCheck = {
    email: input,
    valid_syntax: false,
    syntax_error: null,
    domain: syntax.domain,
    mx: { status: "not_checked", hosts: [] },
    provider: null,
    free: false,
    disposable: false,
    role: false,
    policy: { strength: "not_checked", spf: "not_checked", dmarc: "not_checked" },
    score: 0,
    reasons: [],
  };
  if (!syntax.ok) {
    return {
      result: { ...base, syntax_error: syntax.reason, reasons: [{ code: "invalid_syntax", points: 100, message: `Invalid address: ${syntax.reason}.` }] },
      facts: null,
    };
  }
  const [facts, disposable] = await Promise.all([cache.get(syntax.domain), isDisposableDomain(assets, syntax.domain)]);
  const free = isFreeDomain(syntax.domain);
  const role = isRoleLocal(syntax.local);
  const reasons = score(facts, { free, disposable, role });
  const provider =
    facts.provider && free && CONSUMER_NAMES[facts.provider.name]
      ? { ...facts.provider, name: CONSUMER_NAMES[facts.provider.name] ?? facts.provider.name }
      : facts.provider;
  return {
    facts,
    result: {
      ...base,
      email: syntax.address,
      valid_syntax: true,
      domain: syntax.domain,
      mx: facts.mx,
      provider,
      free,
      disposable,
      role,
      policy: { strength: facts.strength, spf: facts.spf, dmarc: facts.dmarc },
      score: Math.max(0, 100 - reasons.reduce((n, x) => n + x.points, 0)),
      reasons,
    },
  };
}
