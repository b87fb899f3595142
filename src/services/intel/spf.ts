// GET /intel/spf: SPF check_host() (RFC 7208 §4) for one sending IP, live, nothing stored. DNS I/O via svc.createResolver().
import { normalizeDomainName } from "../../core/dns/names";
import type { Resolver } from "../../core/dns/types";
import { formatIPv4, formatIPv6 } from "../../core/ip/address";
import { evaluateSpf, type SpfEvaluation } from "../../core/spf/evaluate";
import { parseIp } from "../../core/spf/ip";
import { dependencyUnavailable, type FieldErrors, validationFailed } from "../../lib/errors";
import type { Services } from "../../services";
import { parseAddress } from "./address";

export interface SpfCheckInput {
  domain: string;
  ip: string;
  helo?: string;
  sender?: string;
}

/** Counts lookups that got an answer (records, NODATA or NXDOMAIN), so a temperror with none tells "no resolver answered". */
class AnsweredCounter implements Resolver {
  answered = 0;
  constructor(private readonly inner: Resolver) {}
  get queriesSent(): number {
    return this.inner.queriesSent;
  }
  async query<T extends Parameters<Resolver["query"]>[1]>(name: string, type: T) {
    const res = await this.inner.query(name, type);
    if (res.kind !== "temperror") this.answered++;
    return res;
  }
}

interface Checked {
  domain: string;
  ip: string;
  helo: string | null;
  sender: string;
}

function validate(input: SpfCheckInput): Checked {
  const errors: FieldErrors = {};
  // SPF targets are often attrleaf names (_spf.example.com), so underscores are allowed (RFC 8552).
  const domain = normalizeDomainName(input.domain, { allowUnderscore: true });
  if (!domain.ok) errors.domain = [domain.error];
  const ip = parseIp(input.ip.trim());
  if (ip === null) errors.ip = [`"${input.ip}" is not an IPv4 or IPv6 address`];
  let helo: string | null = null;
  if (input.helo !== undefined) {
    const h = normalizeDomainName(input.helo, { allowUnderscore: true });
    if (h.ok) helo = h.value;
    else errors.helo = [h.error];
  }
  let sender: string | null = null;
  if (input.sender !== undefined) {
    const a = parseAddress(input.sender);
    if (a.ok) sender = a.address;
    else errors.sender = [a.reason];
  }
  if (!domain.ok || ip === null || Object.keys(errors).length > 0) throw validationFailed(errors);
  return {
    domain: domain.value,
    // IPv4-mapped IPv6 is evaluated as IPv4 (RFC 7208 §5.6 compares like with like); IPv6 in RFC 5952 form.
    ip: ip.version === 4 ? formatIPv4(ip.bytes) : formatIPv6(ip.bytes),
    helo,
    // RFC 7208 §2.4: without a MAIL FROM identity the sender is postmaster@<domain>.
    sender: sender ?? `postmaster@${domain.value}`,
  };
}

export async function checkSpf(svc: Services, input: SpfCheckInput) {
  const q = validate(input);
  const resolver = new AnsweredCounter(svc.createResolver());
  const r: SpfEvaluation = await evaluateSpf(q.ip, q.domain, q.sender, resolver, { helo: q.helo ?? undefined });
  // A temperror where not one query was answered is the resolvers failing, not the domain's DNS:
  // the same 503 as every live lookup (docs/decisions.md D1, D70).
  if (r.result === "temperror" && resolver.answered === 0) throw dependencyUnavailable();
  return {
    result: r.result,
    domain: q.domain,
    ip: q.ip,
    sender: q.sender,
    helo: q.helo,
    mechanism: r.mechanism,
    decided_by: r.domain,
    explanation: r.explanation,
    reason: r.reason,
    lookups: r.lookups,
    void_lookups: r.voidLookups,
    path: r.path.map((p) => ({ domain: p.domain, record: p.record, via: p.via, term: p.term, result: p.result })),
  };
}

export type SpfCheck = Awaited<ReturnType<typeof checkSpf>>;
