// Reads the trace fields a receiver adds (Received, RFC 5321 §4.4; Return-Path; Authentication-Results,
// RFC 8601 §2.2) to recover the SMTP envelope of a message: client IP, HELO and MAIL FROM. Pure, no I/O.
import type { HeaderField } from "../dkim/message";
import { parseIp } from "../spf/ip";

export interface ReceivedHop {
  /** The whole field value, unfolded. */
  text: string;
  /** The name the client gave in HELO/EHLO ("from" clause). */
  helo: string | null;
  /** The client address the receiving host recorded (TCP-info, RFC 5321 §4.4). */
  ip: string | null;
  /** The receiving host ("by" clause). */
  by: string | null;
  /** The protocol ("with" clause), upper-cased: SMTP, ESMTP, ESMTPS, ESMTPSA, LMTP... */
  with: string | null;
}

const unfold = (s: string): string => s.replace(/\r\n/g, "").replace(/\s+/g, " ").trim();

/** Parses one Received field (RFC 5321 §4.4 Stamp). Lenient: every MTA words it a little differently. */
export function parseReceived(value: string): ReceivedHop {
  const text = unfold(value);
  const clauses = text.split(";")[0] ?? text;
  // Clause words are read outside comments: Postfix writes "(using TLSv1.3 with cipher ...)".
  const bare = stripComments(clauses);
  const word = (name: string): string | null => {
    const m = new RegExp(`(?:^|\\s)${name}\\s+([^\\s()]+)`, "i").exec(bare);
    return m?.[1]?.replace(/\.$/, "").toLowerCase() ?? null;
  };
  const fromAt = /(?:^|\s)from\s/i.exec(clauses);
  const byAt = /(?:^|\s)by\s/i.exec(clauses);
  // The client's address sits in the from clause's comment, e.g. "(host.example [192.0.2.1])",
  // "([IPv6:2001:db8::1])" or Exchange's "(192.0.2.1)".
  const fromClause = fromAt ? clauses.slice(fromAt.index, byAt && byAt.index > fromAt.index ? byAt.index : undefined) : "";
  let ip: string | null = null;
  for (const m of fromClause.matchAll(/\[(?:IPv6:)?([0-9a-fA-F:.]+)\]|\(([0-9a-fA-F:.]{7,})\)/g)) {
    const candidate = m[1] ?? m[2] ?? "";
    if (parseIp(candidate) !== null) {
      ip = candidate.toLowerCase();
      break;
    }
  }
  const helo = word("from");
  return { text, helo: helo?.startsWith("[") ? null : helo, ip, by: word("by"), with: word("with")?.toUpperCase() ?? null };
}

/**
 * TLS on a hop: RFC 3848 protocol types ESMTPS/ESMTPSA (and RFC 6531's UTF8SMTPS), or the TLS details
 * many MTAs add (Postfix "(using TLSv1.3 ...)", Gmail "(version=TLS1_3 ...)"). null: cannot tell.
 */
export function hopUsedTls(hop: ReceivedHop): boolean | null {
  const proto = hop.with ?? "";
  if (/^(ESMTPS|ESMTPSA|UTF8SMTPS|UTF8SMTPSA|LMTPS|LMTPSA|SMTPS|ESMTPTLS)$/.test(proto)) return true;
  if (/\bTLS(v?1[._]?[0-3])?\b|version=TLS/i.test(hop.text)) return true;
  if (/^(SMTP|ESMTP|ESMTPA|UTF8SMTP|UTF8SMTPA|LMTP)$/.test(proto)) return false;
  return null;
}

export interface AuthResult {
  method: string;
  result: string;
  /** ptype.property=value, keys lower-case, e.g. "smtp.mailfrom", "header.d", "policy.iprev". */
  props: Record<string, string>;
  comment: string;
}

export interface AuthResults {
  authservId: string;
  /** ARC-Authentication-Results instance (RFC 8617 §4.1.1); null for Authentication-Results. */
  instance: number | null;
  results: AuthResult[];
}

/** Parses an Authentication-Results (or ARC-Authentication-Results) value, RFC 8601 §2.2. */
export function parseAuthResults(value: string): AuthResults | null {
  let text = unfold(value);
  let instance: number | null = null;
  const arc = /^i\s*=\s*(\d+)\s*;\s*/i.exec(text);
  if (arc) {
    instance = Number(arc[1]);
    text = text.slice(arc[0].length);
  }
  const parts = splitOutsideComments(text, ";");
  const head = stripComments(parts.shift() ?? "").trim();
  const authservId = head.split(/\s+/)[0]?.toLowerCase() ?? "";
  if (authservId === "") return null;
  const results: AuthResult[] = [];
  for (const part of parts) {
    const comment = [...part.matchAll(/\(([^)]*)\)/g)].map((m) => m[1]).join(" ");
    const tokens = stripComments(part).trim().split(/\s+/).filter(Boolean);
    const first = /^([a-z0-9_-]+)(?:\/\d+)?=([a-z0-9_-]+)$/i.exec(tokens[0] ?? "");
    if (!first) continue;
    const props: Record<string, string> = {};
    for (const t of tokens.slice(1)) {
      const m = /^([a-z0-9_-]+\.[a-z0-9_-]+)=(.+)$/i.exec(t);
      if (m) props[(m[1] ?? "").toLowerCase()] = (m[2] ?? "").replace(/^"|"$/g, "");
    }
    results.push({ method: (first[1] ?? "").toLowerCase(), result: (first[2] ?? "").toLowerCase(), props, comment });
  }
  return { authservId, instance, results };
}

function stripComments(s: string): string {
  let out = "";
  let depth = 0;
  for (const ch of s) {
    if (ch === "(") depth++;
    else if (ch === ")" && depth > 0) depth--;
    else if (depth === 0) out += ch;
  }
  return out;
}

function splitOutsideComments(s: string, sep: string): string[] {
  const out: string[] = [];
  let cur = "";
  let depth = 0;
  let quoted = false;
  for (const ch of s) {
    if (ch === '"' && depth === 0) quoted = !quoted;
    if (!quoted && ch === "(") depth++;
    if (!quoted && ch === ")" && depth > 0) depth--;
    if (ch === sep && depth === 0 && !quoted) {
      out.push(cur);
      cur = "";
    } else cur += ch;
  }
  out.push(cur);
  return out;
}

export type EnvelopeSource = "input" | "authentication-results" | "received" | "return-path" | "none";

export interface EnvelopeValue<T> {
  value: T | null;
  source: EnvelopeSource;
}

export interface Envelope {
  ip: EnvelopeValue<string>;
  helo: EnvelopeValue<string>;
  /** "" is the null reverse-path "<>" (a bounce). */
  mail_from: EnvelopeValue<string>;
  /** The Received field the values came from (the hop into the trusted receiver), if any. */
  hop: ReceivedHop | null;
  /** The Authentication-Results field used (the trusted authserv-id's topmost one), if any. */
  auth_results: AuthResults | null;
  notes: string[];
}

export interface EnvelopeInput {
  ip?: string;
  helo?: string;
  mail_from?: string;
  trusted_authserv_id?: string;
}

const norm = (d: string): string => d.toLowerCase().replace(/\.$/, "");
const isUnder = (host: string, id: string): boolean => host === id || host.endsWith(`.${id}`) || id.endsWith(`.${host}`);

/**
 * What the caller gave wins. Otherwise: the topmost Authentication-Results of the trusted authserv-id
 * (smtp.mailfrom, smtp.helo, policy.iprev), then the topmost Received written by that receiver (its
 * "by" host is the authserv-id or a name under it), then Return-Path (the MAIL FROM the final
 * delivery recorded, RFC 5321 §4.4). Without a trusted id the topmost Received with a client address
 * is used, and the report says that nothing vouches for it: header fields below the receiver's own
 * can be forged by the sender (RFC 8601 §5).
 */
export function deriveEnvelope(headers: HeaderField[], input: EnvelopeInput): Envelope {
  const notes: string[] = [];
  const trusted = input.trusted_authserv_id ? norm(input.trusted_authserv_id) : null;
  const received = headers.filter((h) => h.key === "received").map((h) => parseReceived(h.value));
  let ar: AuthResults | null = null;
  if (trusted !== null) {
    for (const h of headers) {
      if (h.key !== "authentication-results") continue;
      const parsed = parseAuthResults(h.value);
      if (parsed && parsed.authservId === trusted) {
        ar = parsed;
        break;
      }
    }
    if (ar === null) notes.push(`No Authentication-Results field of ${trusted} was found.`);
  }
  let hop: ReceivedHop | null = null;
  if (trusted !== null) {
    hop = received.find((r) => r.by !== null && r.ip !== null && isUnder(r.by, trusted)) ?? null;
    if (hop === null) notes.push(`No Received field written by ${trusted} records a client address.`);
  } else {
    hop = received.find((r) => r.ip !== null) ?? null;
    if (hop !== null)
      notes.push(
        "The envelope was read from the topmost Received field with a client address; give trusted_authserv_id (your receiver's name) so only its own fields are used.",
      );
  }

  const arProp = (key: string): string | null => {
    for (const r of ar?.results ?? []) if (r.props[key] !== undefined) return r.props[key] ?? null;
    return null;
  };
  // The client IP from A-R: iprev's policy.iprev (RFC 8601 §2.7.3), else the address in an SPF comment.
  const arIp = (() => {
    const direct = arProp("policy.iprev") ?? arProp("smtp.remote-ip") ?? arProp("smtp.client-ip");
    if (direct && parseIp(direct)) return direct;
    for (const r of ar?.results ?? []) {
      const m = /designates\s+([0-9a-fA-F:.]+)\s+as/i.exec(r.comment) ?? /client-ip=([0-9a-fA-F:.]+)/i.exec(r.comment);
      if (m?.[1] && parseIp(m[1])) return m[1];
    }
    return null;
  })();

  const pick = <T>(given: T | undefined, ...found: Array<[T | null, EnvelopeSource]>): EnvelopeValue<T> => {
    if (given !== undefined) return { value: given, source: "input" };
    for (const [v, source] of found) if (v !== null) return { value: v, source };
    return { value: null, source: "none" };
  };
  const returnPath = (() => {
    const rp = headers.find((h) => h.key === "return-path");
    if (!rp) return null;
    const v = unfold(rp.value);
    const m = /<([^>]*)>/.exec(v);
    return (m ? (m[1] ?? "") : v).trim();
  })();
  const arMailFrom = arProp("smtp.mailfrom");

  return {
    ip: pick(input.ip?.trim(), [arIp, "authentication-results"], [hop?.ip ?? null, "received"]),
    helo: pick(input.helo?.trim(), [arProp("smtp.helo"), "authentication-results"], [hop?.helo ?? null, "received"]),
    mail_from: pick(input.mail_from?.trim().replace(/^<|>$/g, ""), [arMailFrom, "authentication-results"], [returnPath, "return-path"]),
    hop,
    auth_results: ar,
    notes,
  };
}

/** The domain of an address (or a bare domain, as smtp.mailfrom sometimes carries), lower-case. */
export function domainOf(address: string): string | null {
  const at = address.lastIndexOf("@");
  const d = norm(at >= 0 ? address.slice(at + 1) : address);
  return /^[a-z0-9_-]+(\.[a-z0-9_-]+)+$/i.test(d) ? d : null;
}
