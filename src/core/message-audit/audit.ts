// Audits one message as a receiving mailbox provider would: SPF, DKIM, DMARC, ARC, one-click unsubscribe,
// reverse DNS, TLS, format, BIMI, and the Gmail/Yahoo/Microsoft bulk-sender tables. DNS only via the Resolver.
import { type ArcReport, validateArc } from "../arc";
import { DkimKeyCache } from "../dkim/key-cache";
import { extractFromDomain, parseMessage, type WireMessage } from "../dkim/message";
import { MAX_SIGNATURES, type VerifyReport, verifyMessage } from "../dkim/verify";
import { treeWalkOrgDomain } from "../dmarc/align";
import type { Resolver } from "../dns/types";
import { type ArcOverride, arcOverride } from "./arc-override";
import { type BimiEligibility, checkBimiEligibility } from "./bimi";
import { type DmarcEvaluation, evaluateDmarc } from "./dmarc";
import { checkFcrdns, type FcrdnsCheck } from "./fcrdns";
import { checkFormat, type FormatCheck, guessMarketing, type MarketingGuess } from "./format";
import { type ProviderTable, providerTables } from "./providers";
import { rowFacts, type TlsCheck } from "./rows";
import { auditSpf, type SpfAudit } from "./spf";
import { deriveEnvelope, type EnvelopeInput, type EnvelopeValue, hopUsedTls } from "./trace";
import { checkOneClick, type OneClickCheck } from "./unsubscribe";

export interface AuditDeps {
  resolver: Resolver;
  now: Date;
  keyCache?: DkimKeyCache;
}

export interface MessageAudit {
  envelope: {
    ip: EnvelopeValue<string>;
    helo: EnvelopeValue<string>;
    mail_from: EnvelopeValue<string>;
    trusted_authserv_id: string | null;
    received_hop: string | null;
    notes: string[];
  };
  spf: SpfAudit;
  dkim: VerifyReport;
  dmarc: DmarcEvaluation;
  arc: ArcReport & { override: ArcOverride };
  one_click: OneClickCheck;
  reverse_dns: FcrdnsCheck | null;
  tls: TlsCheck;
  format: FormatCheck;
  marketing: MarketingGuess;
  bimi: BimiEligibility;
  providers: ProviderTable[];
  /** Only the header block was given (no body): DKIM body hashes cannot be checked. */
  headers_only: boolean;
  /** The results the trusted receiver's Authentication-Results recorded, by method; null without one. */
  receiver_reported: Record<string, string> | null;
  warnings: string[];
}

function tlsOf(hop: { text: string; with: string | null } | null): TlsCheck {
  if (hop === null) return { used: null, hop: null, detail: "no Received field records the hop into the receiver" };
  const used = hopUsedTls({ ...hop, helo: null, ip: null, by: null });
  const detail =
    used === true
      ? `the receiver recorded TLS (with ${hop.with ?? "?"})`
      : used === false
        ? `the receiver recorded "with ${hop.with}" and no TLS: the last hop was not encrypted (RFC 3848 would say ESMTPS)`
        : "the Received field does not say whether TLS was used";
  return { used, hop: hop.text, detail };
}

/**
 * `raw` as for verifyMessage (best: a WireMessage made once by the caller to check its size). Every
 * DNS failure becomes a temperror of the check it belongs to, never a fail.
 */
export async function auditMessage(raw: string | Uint8Array | WireMessage, input: EnvelopeInput, deps: AuditDeps): Promise<MessageAudit> {
  const msg = parseMessage(raw);
  const { resolver, now } = deps;
  const keyCache = deps.keyCache ?? new DkimKeyCache(MAX_SIGNATURES * 3);
  const orgDomainOf = treeWalkOrgDomain(resolver);
  const env = deriveEnvelope(msg.headers, input);
  const ip = env.ip.value;
  const from = extractFromDomain(msg.headers);

  const [dkim, arc, spf, reverseDns] = await Promise.all([
    verifyMessage(raw, { resolver, now, orgDomain: orgDomainOf, keyCache }),
    validateArc(raw, { resolver, now, keyCache }),
    auditSpf(ip, env.helo.value, env.mail_from.value, resolver),
    ip !== null ? checkFcrdns(ip, resolver) : Promise.resolve(null),
  ]);
  const dmarc = await evaluateDmarc({
    fromDomain: from.domain,
    fromProblem: from.reason,
    spfDomain: spf.domain,
    spfResult: spf.result,
    signatures: dkim.signatures,
    resolver,
    orgDomainOf,
  });
  const bimi = await checkBimiEligibility(dmarc, resolver, orgDomainOf);
  const oneClick = checkOneClick(msg.headers, dkim.signatures);
  const format = checkFormat(msg.headers);
  const marketing = guessMarketing(msg.headers);
  const tls = tlsOf(env.hop);
  // A pasted header block has no body (RFC 5322 §2.1 allows none), so body hashes fail for that reason alone.
  const headersOnly = msg.bodyBytes.length === 0;
  const receiver = env.auth_results ? Object.fromEntries(env.auth_results.results.map((r) => [r.method, r.result])) : null;
  const providers = providerTables(rowFacts({ ip, spf, dkim, dmarc, fcrdns: reverseDns, tls, format, marketing, oneClick, headersOnly, receiver }));
  const notes: string[] = [];
  if (headersOnly && dkim.signatures.some((s) => s.body_hash === "fail"))
    notes.push(
      "Only the headers were given: every DKIM body hash fails for that reason, so DKIM, DMARC and one-click results that depend on it are shown as cannot tell in the provider tables. Paste the whole message to check them.",
    );

  return {
    envelope: {
      ip: env.ip,
      helo: env.helo,
      mail_from: env.mail_from,
      trusted_authserv_id: input.trusted_authserv_id?.toLowerCase() ?? null,
      received_hop: env.hop?.text ?? null,
      notes: env.notes,
    },
    spf,
    dkim,
    dmarc,
    arc: { ...arc, override: arcOverride(dmarc, arc) },
    one_click: oneClick,
    reverse_dns: reverseDns,
    tls,
    format,
    marketing,
    bimi,
    providers,
    headers_only: headersOnly,
    receiver_reported: receiver,
    warnings: [...new Set([...notes, ...dkim.warnings, ...arc.warnings])],
  };
}
