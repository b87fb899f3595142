// SPF for an audited message: check_host() (RFC 7208 §4) for the MAIL FROM identity, and for HELO,
// which is the MAIL FROM identity of a null reverse-path (§2.4). I/O only through the Resolver.
import type { Resolver } from "../dns/types";
import { evaluateSpf } from "../spf/evaluate";
import { parseIp } from "../spf/ip";
import type { SpfResult } from "../spf/types";
import { domainOf } from "./trace";

export interface SpfCheck {
  result: SpfResult;
  /** The domain check_host() started at. */
  domain: string;
  sender: string;
  /** The matching term, e.g. "ip4:192.0.2.0/24" or "-all". */
  mechanism: string | null;
  /** The record that decided (an include or redirect target, or the start domain). */
  decided_by: string;
  reason: string;
  explanation: string | null;
  lookups: number;
  void_lookups: number;
  path: Array<{ domain: string; record: string | null; via: string | null; term: string | null; result: SpfResult }>;
}

export interface SpfAudit {
  /** The identity DMARC uses: MAIL FROM, or HELO when the reverse-path is null; null when unknown. */
  identity: "mail_from" | "helo" | null;
  /** The result for that identity; "not_checked" when the IP or the identity is unknown. */
  result: SpfResult | "not_checked";
  /** The SPF-authenticated domain DMARC aligns (RFC 9989 "SPF-Authenticated Identifiers"). */
  domain: string | null;
  mail_from: SpfCheck | null;
  helo: SpfCheck | null;
  reason: string | null;
}

async function run(ip: string, domain: string, sender: string, helo: string | null, resolver: Resolver): Promise<SpfCheck> {
  const r = await evaluateSpf(ip, domain, sender, resolver, { helo: helo ?? undefined });
  return {
    result: r.result,
    domain,
    sender,
    mechanism: r.mechanism,
    decided_by: r.domain,
    reason: r.reason,
    explanation: r.explanation,
    lookups: r.lookups,
    void_lookups: r.voidLookups,
    path: r.path.map((p) => ({ domain: p.domain, record: p.record, via: p.via, term: p.term, result: p.result })),
  };
}

export async function auditSpf(ip: string | null, helo: string | null, mailFrom: string | null, resolver: Resolver): Promise<SpfAudit> {
  const none = (reason: string, identity: SpfAudit["identity"] = null): SpfAudit => ({
    identity,
    result: "not_checked",
    domain: null,
    mail_from: null,
    helo: null,
    reason,
  });
  if (ip === null) return none("the connecting IP is unknown: give ip, or trusted_authserv_id so it can be read from your receiver's Received field");
  if (parseIp(ip) === null) return none(`"${ip}" is not an IP address`);
  const heloDomain = helo !== null ? domainOf(helo) : null;
  const mailDomain = mailFrom ? domainOf(mailFrom) : null;
  // RFC 7208 §2.3: checking HELO is recommended on its own; for a null reverse-path it is the MAIL FROM check.
  const [heloCheck, mailCheck] = await Promise.all([
    heloDomain !== null ? run(ip, heloDomain, `postmaster@${heloDomain}`, heloDomain, resolver) : Promise.resolve(null),
    mailDomain !== null && mailFrom
      ? run(ip, mailDomain, mailFrom.includes("@") ? mailFrom : `postmaster@${mailDomain}`, heloDomain, resolver)
      : Promise.resolve(null),
  ]);
  if (mailCheck !== null) return { identity: "mail_from", result: mailCheck.result, domain: mailDomain, mail_from: mailCheck, helo: heloCheck, reason: null };
  if (mailFrom === "") {
    if (heloCheck === null) return none("the reverse-path is null and the HELO name is unknown or not a domain", "helo");
    return {
      identity: "helo",
      result: heloCheck.result,
      domain: heloDomain,
      mail_from: null,
      helo: heloCheck,
      reason: "null reverse-path: the HELO identity is checked (RFC 7208 §2.4)",
    };
  }
  const why = mailFrom === null ? "the MAIL FROM is unknown: give mail_from, or a message with Return-Path" : `"${mailFrom}" has no valid domain`;
  return { ...none(why), helo: heloCheck };
}
