// SPF macro syntax check and expansion (RFC 7208 §7). Pure, no I/O: %{p} is supplied by the caller.
import { err, ok, type Result } from "../types";
import { dotFormat, formatIp, parseIp } from "./ip";

export interface MacroContext {
  /** MAIL FROM (or postmaster@helo when empty, RFC 7208 §2.4). */
  sender: string;
  ip: string;
  helo: string;
  /** The current <domain> of check_host(). */
  domain: string;
  /** Validated domain of the client (%{p}); "unknown" when absent (RFC 7208 §7.3). */
  validatedName?: string;
  receiver?: string;
  /** Seconds since the epoch for %{t}; the core never reads the clock itself. */
  timestamp?: number;
}

const LETTERS = "slodiphcrtv";
const EXP_ONLY = "crt"; // RFC 7208 §7.2: c, r, t are allowed only in "exp" text.
const MACRO_RE = /^%\{([a-zA-Z])([0-9]*)(r?)([.\-+,/_=]*)\}/;

export interface MacroSyntaxError {
  offset: number;
  message: string;
}

/** Checks a macro-string (RFC 7208 §7.1 ABNF); `exp` allows the c/r/t letters. */
export function checkMacroString(s: string, exp = false): MacroSyntaxError | null {
  for (let i = 0; i < s.length; i++) {
    const ch = s[i] ?? "";
    const code = ch.charCodeAt(0);
    if (ch !== "%") {
      // macro-literal = %x21-24 / %x26-7E (exp text also allows spaces).
      if (code < 0x21 || code > 0x7e) {
        if (!(exp && ch === " ")) return { offset: i, message: `invalid character ${JSON.stringify(ch)}` };
      }
      continue;
    }
    const next = s[i + 1];
    if (next === "%" || next === "_" || next === "-") {
      i++;
      continue;
    }
    const m = MACRO_RE.exec(s.slice(i));
    if (!m) return { offset: i, message: "malformed macro: expected %{letter...}, %%, %_ or %-" };
    const letter = (m[1] ?? "").toLowerCase();
    if (!LETTERS.includes(letter)) return { offset: i, message: `unknown macro letter "${m[1]}"` };
    if (!exp && EXP_ONLY.includes(letter)) return { offset: i, message: `macro letter "${m[1]}" is allowed only in exp text (RFC 7208 §7.2)` };
    if (m[2] && Number(m[2]) === 0) return { offset: i, message: "macro digit transformer must be nonzero (RFC 7208 §7.3)" };
    i += m[0].length - 1;
  }
  return null;
}

export const hasMacro = (s: string): boolean => s.includes("%");

/** Macro letters used in a macro-string, lower case. */
export function macroLetters(s: string): Set<string> {
  const out = new Set<string>();
  for (const m of s.matchAll(/%\{([a-zA-Z])/g)) out.add((m[1] ?? "").toLowerCase());
  return out;
}

function senderParts(sender: string): { local: string; domain: string } {
  const at = sender.lastIndexOf("@");
  const local = at > 0 ? sender.slice(0, at) : "postmaster"; // RFC 7208 §4.3
  return { local, domain: at >= 0 ? sender.slice(at + 1) : sender };
}

function letterValue(letter: string, ctx: MacroContext): string | null {
  const ip = parseIp(ctx.ip);
  const { local, domain } = senderParts(ctx.sender);
  switch (letter) {
    case "s":
      return `${local}@${domain}`;
    case "l":
      return local;
    case "o":
      return domain;
    case "d":
      return ctx.domain;
    case "i":
      return ip ? dotFormat(ip) : null;
    case "p":
      return ctx.validatedName ?? "unknown";
    case "v":
      return ip ? (ip.version === 4 ? "in-addr" : "ip6") : null;
    case "h":
      return ctx.helo;
    case "c":
      return ip ? formatIp(ip) : null;
    case "r":
      return ctx.receiver ?? "unknown";
    case "t":
      return String(ctx.timestamp ?? 0);
    default:
      return null;
  }
}

/** RFC 3986 unreserved characters stay; everything else is %-escaped (uppercase macro letters). */
const urlEscape = (s: string): string =>
  Array.from(new TextEncoder().encode(s))
    .map((b) => (/[A-Za-z0-9\-._~]/.test(String.fromCharCode(b)) ? String.fromCharCode(b) : `%${b.toString(16).toUpperCase().padStart(2, "0")}`))
    .join("");

/** Expands a macro-string (RFC 7208 §7.3). Errors are syntax errors, i.e. permerror. */
export function expandMacros(s: string, ctx: MacroContext, exp = false): Result<string> {
  const bad = checkMacroString(s, exp);
  if (bad) return err(`${bad.message} at offset ${bad.offset}`);
  let out = "";
  for (let i = 0; i < s.length; i++) {
    const ch = s[i] ?? "";
    if (ch !== "%") {
      out += ch;
      continue;
    }
    const next = s[i + 1];
    if (next === "%") {
      out += "%";
      i++;
      continue;
    }
    if (next === "_") {
      out += " ";
      i++;
      continue;
    }
    if (next === "-") {
      out += "%20";
      i++;
      continue;
    }
    const m = MACRO_RE.exec(s.slice(i));
    if (!m) return err(`malformed macro at offset ${i}`);
    const letter = m[1] ?? "";
    const value = letterValue(letter.toLowerCase(), ctx);
    if (value === null) return err(`macro %{${letter}} has no value for ip ${ctx.ip}`);
    const delims = m[4] ? m[4] : ".";
    let parts = value.split(new RegExp(`[${delims.replace(/[-\\\]^]/g, "\\$&")}]`));
    if (m[3]) parts = parts.reverse();
    if (m[2]) parts = parts.slice(Math.max(0, parts.length - Number(m[2])));
    const joined = parts.join(".");
    out += letter === letter.toUpperCase() ? urlEscape(joined) : joined;
    i += m[0].length - 1;
  }
  return ok(out);
}

/** RFC 7208 §7.3: an expanded domain over 253 characters loses left-hand labels until it fits. */
export function truncateDomain(name: string): string {
  let n = name.replace(/\.$/, "");
  while (n.length > 253 && n.includes(".")) n = n.slice(n.indexOf(".") + 1);
  return n;
}
