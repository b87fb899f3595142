// The facts of one audited message as bulk-sender requirement rows: met / not met / cannot tell, with
// the record or header to change. Pure, no I/O.
import type { VerifyReport } from "../dkim/verify";
import type { DmarcEvaluation } from "./dmarc";
import type { FcrdnsCheck } from "./fcrdns";
import type { FormatCheck, MarketingGuess } from "./format";
import type { RowFact, RowFacts } from "./providers";
import type { SpfAudit } from "./spf";
import type { OneClickCheck } from "./unsubscribe";

export interface TlsCheck {
  used: boolean | null;
  /** The Received field read (the hop into the receiver), unfolded. */
  hop: string | null;
  detail: string;
}

export interface RowInputs {
  ip: string | null;
  spf: SpfAudit;
  dkim: VerifyReport;
  dmarc: DmarcEvaluation;
  fcrdns: FcrdnsCheck | null;
  tls: TlsCheck;
  format: FormatCheck;
  marketing: MarketingGuess;
  oneClick: OneClickCheck;
  /** Only the header block was given: body hashes cannot match, so they prove nothing either way. */
  headersOnly: boolean;
  /** What the trusted receiver's Authentication-Results said, by method (spf, dkim, dmarc...). */
  receiver: Record<string, string> | null;
}

const said = (receiver: Record<string, string> | null, method: string): string =>
  receiver?.[method] ? ` Your receiver reported ${method}=${receiver[method]}.` : "";

/** Every failing signature failed only on its body hash, and the body was not given. */
const bodyOnlyFailures = (dkim: VerifyReport, headersOnly: boolean): boolean =>
  headersOnly && dkim.signatures.some((s) => s.body_hash === "fail") && dkim.signatures.every((s) => s.result === "pass" || s.body_hash === "fail");

const met = (detail: string): RowFact => ({ state: "met", detail, fix: null });
const notMet = (detail: string, fix: string): RowFact => ({ state: "not_met", detail, fix });
const unknown = (detail: string, fix: string | null = null): RowFact => ({ state: "cannot_tell", detail, fix });

function spfRow(spf: SpfAudit, ip: string | null): RowFact {
  const s = spf.identity === "helo" ? spf.helo : spf.mail_from;
  if (spf.result === "not_checked")
    return unknown(spf.reason ?? "SPF was not checked", "Give the connecting IP and MAIL FROM (or trusted_authserv_id) to check SPF.");
  if (spf.result === "pass") return met(`SPF pass for ${spf.domain} (${s?.mechanism ?? "matched"})`);
  if (spf.result === "temperror") return unknown(`SPF temperror: ${s?.reason ?? "a DNS lookup failed"}`, "Check again; a DNS lookup failed transiently.");
  const fix =
    spf.result === "permerror"
      ? `Fix the SPF record of ${s?.decided_by ?? spf.domain}: ${s?.reason ?? "it is invalid"}.`
      : spf.result === "none"
        ? `Publish an SPF record at ${spf.domain} that authorizes ${ip ?? "the sending IP"}, e.g. "v=spf1 ip4:${ip ?? "192.0.2.1"} -all" or your provider's include:.`
        : `Authorize ${ip ?? "the sending IP"} in the SPF record of ${spf.domain} (ip4:/ip6: or your provider's include:), before the ${s?.mechanism ?? "all"} that ${spf.result === "fail" ? "rejects" : "does not pass"} it.`;
  return notMet(`SPF ${spf.result} for ${spf.domain}: ${s?.reason ?? ""}`.trim(), fix);
}

function dkimRow(dkim: VerifyReport, fromDomain: string | null, headersOnly: boolean, receiver: Record<string, string> | null): RowFact {
  if (dkim.result !== "pass" && bodyOnlyFailures(dkim, headersOnly))
    return unknown(
      `only the headers were given, so the body hash of each signature cannot be checked.${said(receiver, "dkim")}`,
      "Paste the whole message (headers and body) to verify DKIM.",
    );
  if (dkim.result === "pass") {
    const d = dkim.signatures.filter((s) => s.result === "pass").map((s) => s.domain);
    return met(`DKIM pass (d=${d.join(", d=")})`);
  }
  if (dkim.result === "temperror") return unknown("a DKIM key lookup failed transiently", "Check again; the key lookup failed transiently.");
  if (dkim.result === "none")
    return notMet(
      "the message has no DKIM-Signature",
      `Sign every message with DKIM using d=${fromDomain ?? "your From domain"} (publish the key at <selector>._domainkey.${fromDomain ?? "your domain"}).`,
    );
  const first = dkim.signatures.find((s) => s.result !== "pass");
  return notMet(
    `DKIM ${dkim.result}: ${first?.reason ?? "no signature verified"}`,
    first?.body_hash === "fail"
      ? "The body changed after signing: sign after the last change (footers, tracking rewrites), or have the system that changes it sign."
      : `Make sure the key of s=${first?.selector ?? "?"} is published at ${first?.selector ?? "<selector>"}._domainkey.${first?.domain ?? "<domain>"} and matches the signing key.`,
  );
}

function dmarcRecordRow(d: DmarcEvaluation): RowFact {
  if (d.result === "permerror" && d.from_domain === null) return notMet(`no single From domain: ${d.reason}`, "Send exactly one From with one address.");
  if (d.result === "temperror" && d.policy === null) return unknown(d.reason, "Check again; the DMARC lookup failed transiently.");
  if (d.policy === null)
    return notMet(
      `no DMARC record for ${d.from_domain}`,
      `Publish "v=DMARC1; p=none; rua=mailto:dmarc-reports@${d.organizational_domain ?? d.from_domain}" at _dmarc.${d.organizational_domain ?? d.from_domain}.`,
    );
  return met(`${d.policy.record} (at _dmarc.${d.policy.domain})`);
}

function alignmentRow(d: DmarcEvaluation, spf: SpfAudit, dkimBodyOnly: boolean, receiver: Record<string, string> | null): RowFact {
  if (d.result === "pass") return met(d.reason);
  if (d.result === "fail" && dkimBodyOnly)
    return unknown(
      `no aligned pass here, but only the headers were given, so DKIM could not be checked.${said(receiver, "dmarc")}`,
      "Paste the whole message (headers and body).",
    );
  if (d.result === "temperror") return unknown(d.reason, "Check again; a lookup failed transiently.");
  if (d.from_domain === null) return notMet(d.reason, "Send exactly one From with one address.");
  if (spf.result === "not_checked" && !d.dkim.some((x) => x.alignment === "aligned"))
    return unknown(
      `no aligned DKIM pass, and SPF could not be checked (${spf.reason})`,
      `Sign with DKIM using d=${d.from_domain} (or a subdomain of ${d.organizational_domain ?? d.from_domain}).`,
    );
  return notMet(
    d.reason,
    `Sign with DKIM using d=${d.from_domain} (or another domain under ${d.organizational_domain ?? d.from_domain}), or send with a MAIL FROM (Return-Path) under ${d.organizational_domain ?? d.from_domain} that SPF authorizes.`,
  );
}

function fcrdnsRow(f: FcrdnsCheck | null, ip: string | null): RowFact {
  if (f === null || ip === null) return unknown("the connecting IP is unknown", "Give the connecting IP (or trusted_authserv_id) to check reverse DNS.");
  if (f.result === "pass") return met(f.reason);
  if (f.result === "temperror") return unknown(f.reason, "Check again; a DNS lookup failed transiently.");
  return notMet(f.reason, `Ask the owner of ${ip} (your provider or ISP) for a PTR record naming a host whose A/AAAA record is ${ip}.`);
}

function oneClickRow(m: MarketingGuess, o: OneClickCheck, dkimBodyOnly: boolean): RowFact {
  if (o.status === "unsigned" && dkimBodyOnly)
    return unknown("only the headers were given, so whether a valid DKIM signature covers the unsubscribe fields cannot be checked", o.fix);
  if (o.status === "present") return met(`one-click unsubscribe to ${o.https_uri}, signed by d=${o.signed_by}`);
  if (m.marketing === null)
    return unknown(
      "nothing in the headers marks this as marketing or list mail (no List-Unsubscribe, Precedence: bulk/list or List-Id); only marketing mail needs one-click unsubscribe",
      o.fix,
    );
  return notMet(
    `marketing mail (${m.evidence.join(", ")}) without valid one-click unsubscribe: ${o.problems.join("; ") || "no List-Unsubscribe"}`,
    o.fix ?? "Add RFC 8058 one-click unsubscribe.",
  );
}

export function rowFacts(i: RowInputs): RowFacts {
  const bodyOnly = bodyOnlyFailures(i.dkim, i.headersOnly);
  return {
    spf_pass: spfRow(i.spf, i.ip),
    dkim_pass: dkimRow(i.dkim, i.dmarc.from_domain, i.headersOnly, i.receiver),
    dmarc_record: dmarcRecordRow(i.dmarc),
    dmarc_alignment: alignmentRow(i.dmarc, i.spf, bodyOnly, i.receiver),
    fcrdns: fcrdnsRow(i.fcrdns, i.ip),
    tls:
      i.tls.used === true
        ? met(i.tls.detail)
        : i.tls.used === false
          ? notMet(i.tls.detail, "Enable STARTTLS on the sending server (a certificate and TLS 1.2 or later) so the receiver records ESMTPS.")
          : unknown(i.tls.detail),
    format: i.format.ok
      ? met("one From, one Message-ID, one Date")
      : notMet(i.format.problems.join("; "), "Have the sending software add exactly one From, one Date and one Message-ID to every message."),
    one_click: oneClickRow(i.marketing, i.oneClick, bodyOnly),
  };
}
