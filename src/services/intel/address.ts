// Practical email address syntax (RFC 5321 §4.1.2/§4.5.3.1, RFC 5322 §3.4.1 addr-spec, RFC 6531 UTF-8 local parts). No I/O.
import { normalizeDomainName } from "../../core/dns/names";

export type AddressSyntax = { ok: true; local: string; domain: string; address: string } | { ok: false; reason: string; domain: string | null };

const MAX_LOCAL = 64; // RFC 5321 §4.5.3.1.1 (octets)
const MAX_ADDRESS = 254; // RFC 5321 §4.5.3.1.3: a 256-octet path includes the angle brackets
/** RFC 5322 §3.2.3 atext, plus non-ASCII (RFC 6532 §3.2 utf8-non-ascii). */
const ATOM = /^[A-Za-z0-9!#$%&'*+/=?^_`{|}~\-\u0080-\uffff]+$/;
/** RFC 5322 §3.2.4 quoted-string: qtext (printable ASCII except \ and ") or a quoted-pair; no folding. */
const QUOTED = /^"(?:[\x20\x21\x23-\x5b\x5d-\x7e\u0080-\uffff]|\\[\x20-\x7e])*"$/;

const octets = (s: string): number => new TextEncoder().encode(s).length;

function checkLocal(local: string): string | null {
  if (local === "") return "the local part (before @) is empty";
  if (octets(local) > MAX_LOCAL) return `the local part is longer than ${MAX_LOCAL} octets (RFC 5321 §4.5.3.1.1)`;
  if (local.startsWith('"')) return QUOTED.test(local) ? null : "the quoted local part is malformed (RFC 5322 §3.2.4)";
  // RFC 5322 §3.2.3 dot-atom: atoms separated by single dots, none leading or trailing.
  if (local.startsWith(".") || local.endsWith(".")) return "the local part starts or ends with a dot";
  if (local.includes("..")) return "the local part has two dots in a row";
  if (!local.split(".").every((a) => ATOM.test(a))) return "the local part has characters not allowed outside quotes (RFC 5322 §3.2.3)";
  return null;
}

/** The last @ separates the domain, so quoted local parts may contain @ (RFC 5322 §3.4.1). */
export function parseAddress(input: string): AddressSyntax {
  const text = input.trim();
  const at = text.lastIndexOf("@");
  if (at < 0) return { ok: false, reason: "no @ between a local part and a domain", domain: null };
  const local = text.slice(0, at);
  const rawDomain = text.slice(at + 1);
  if (rawDomain.startsWith("[")) {
    return { ok: false, reason: "address literals ([...]) are not accepted: use a domain name (RFC 5321 §4.1.3)", domain: null };
  }
  const name = normalizeDomainName(rawDomain);
  const domain = name.ok ? name.value : null;
  const localError = checkLocal(local);
  if (localError) return { ok: false, reason: localError, domain };
  if (!name.ok) return { ok: false, reason: `the domain is invalid: ${name.error}`, domain: null };
  if (rawDomain.endsWith(".")) return { ok: false, reason: "the domain ends with a dot", domain };
  const address = `${local}@${name.value}`;
  if (octets(address) > MAX_ADDRESS) return { ok: false, reason: `the address is longer than ${MAX_ADDRESS} octets (RFC 5321 §4.5.3.1.3)`, domain };
  return { ok: true, local, domain: name.value, address };
}
