// Validation and normalisation of user-supplied domain names (IDN to punycode, LDH labels). No I/O.
import { err, ok, type Result } from "../types";
import { parseIPv4, parseIPv6 } from "../ip/address";

export interface NameOptions {
  /** Accept underscores in labels other than the top-level one, for attrleaf/service names such
   *  as `_dmarc.example.com` or `s1._domainkey.example.com` (RFC 8552). */
  allowUnderscore?: boolean;
}

const MAX_NAME = 253; // RFC 1035 §2.3.4 (255 octets on the wire = 253 characters of text)
const MAX_LABEL = 63;

/** Lower-cases, strips one trailing dot, converts an IDN to punycode (UTS 46 via WHATWG URL) and
 *  checks the result is a host name (RFC 1123 §2.1): 1-63 character LDH labels, no leading or
 *  trailing hyphen, at most 253 characters, at least two labels, not an IP literal. */
export function normalizeDomainName(input: string, opts: NameOptions = {}): Result<string> {
  let name = input.trim().toLowerCase();
  if (name.endsWith(".")) name = name.slice(0, -1);
  if (name === "") return err("empty domain name");
  if (name.startsWith("[") || parseIPv6(name) || parseIPv4(name)) return err(`"${input}" is an IP address, not a domain name`);
  // WHATWG URL would reinterpret these (ports, paths, credentials), so refuse them up front.
  if (/[\s/\\?#@:%[\]]/.test(name)) return err(`"${input}" contains characters not allowed in a domain name`);
  // The URL parser treats a numeric or 0x-prefixed last label as an IPv4 number ("1.2.3" -> 1.2.0.3).
  const last = name.slice(name.lastIndexOf(".") + 1);
  if (/^(0x[0-9a-f]*|[0-9]+)$/.test(last)) return err(`"${input}" ends in a numeric label (looks like an IP address)`);
  if (/[^\p{ASCII}]/u.test(name)) {
    try {
      name = new URL(`http://${name}/`).hostname;
    } catch {
      return err(`"${input}" is not a valid internationalised domain name`);
    }
  }
  if (name.length > MAX_NAME) return err(`domain name longer than ${MAX_NAME} characters`);
  const labels = name.split(".");
  if (labels.length < 2) return err(`"${input}" needs at least two labels`);
  for (const [i, label] of labels.entries()) {
    if (label.length === 0) return err(`"${input}" has an empty label`);
    if (label.length > MAX_LABEL) return err(`label "${label}" is longer than ${MAX_LABEL} characters`);
    const underscoreOk = opts.allowUnderscore === true && i < labels.length - 1;
    const allowed = underscoreOk ? /^[a-z0-9_-]+$/ : /^[a-z0-9-]+$/;
    if (!allowed.test(label)) return err(`label "${label}" has characters other than letters, digits and hyphens`);
    if (label.startsWith("-") || label.endsWith("-")) return err(`label "${label}" starts or ends with a hyphen`);
  }
  return ok(name);
}
