// Parses and validates a DKIM-Signature header field value (RFC 6376 §3.5, RFC 8463). No I/O.
import { err, ok, type Result } from "../types";
import { parseTagList, stripFws } from "./tags";

export type SigAlgorithm = "rsa-sha256" | "rsa-sha1" | "ed25519-sha256";
export type Canon = "simple" | "relaxed";

export interface DkimSignature {
  algorithm: SigAlgorithm;
  keyType: "rsa" | "ed25519";
  hash: "sha256" | "sha1";
  signature: string; // b=, FWS removed, base64
  bodyHash: string; // bh=, FWS removed, base64
  headerCanon: Canon;
  bodyCanon: Canon;
  domain: string; // d=, lower case
  selector: string; // s=, lower case
  headers: string[]; // h= as listed (original case)
  identity: string; // i=, defaulting to "@" + d= (§3.5)
  length: number | null; // l=
  timestamp: number | null; // t=, seconds since epoch
  expiration: number | null; // x=
  tags: Map<string, string>;
}

/** What could be read even from a signature that failed validation, for reporting. */
export interface SignatureParseError {
  reason: string;
  domain: string | null;
  selector: string | null;
  algorithm: string | null;
}

const ALGORITHMS: Record<string, [DkimSignature["keyType"], DkimSignature["hash"]]> = {
  "rsa-sha256": ["rsa", "sha256"],
  "rsa-sha1": ["rsa", "sha1"],
  "ed25519-sha256": ["ed25519", "sha256"], // RFC 8463 §3
};

const REQUIRED = ["v", "a", "b", "bh", "d", "h", "s"] as const; // §3.5 and §6.1.1
// RFC 8617 §4.1.2: an ARC-Message-Signature has no v= and its i= is the instance (§4.2.1).
const REQUIRED_AMS = ["a", "b", "bh", "d", "h", "i", "s"] as const;

export interface ParseOptions {
  /**
   * Read the value as an ARC-Message-Signature (RFC 8617 §4.1.2): the same tags as DKIM except that
   * v= is ignored and i= is the instance (1 to 50, §4.2.1), not an AUID, so `identity` is "@" + d=.
   * h= may list no field (the shared ARC test suite accepts an empty h=; ARC has no From rule).
   */
  arc?: boolean;
  /** The canonicalization when c= is absent; RFC 6376 §3.5 says simple/simple. */
  defaultCanon?: "simple/simple" | "relaxed/relaxed";
}

export function parseSignature(value: string, opts: ParseOptions = {}): Result<DkimSignature, SignatureParseError> {
  const parsed = parseTagList(value);
  // Best effort for reporting: a broken tag list still usually names its d=, s= and a=.
  const lenient = (tag: string) => new RegExp(`(?:^|;)[ \\t\\r\\n]*${tag}[ \\t\\r\\n]*=([^;]*)`).exec(value)?.[1]?.trim() || undefined;
  const partial = (t: Map<string, string> | null, reason: string): Result<never, SignatureParseError> =>
    err({
      reason,
      domain: (t ? t.get("d") : lenient("d"))?.toLowerCase() ?? null,
      selector: (t ? t.get("s") : lenient("s"))?.toLowerCase() ?? null,
      algorithm: (t ? t.get("a") : lenient("a"))?.toLowerCase() ?? null,
    });
  if (!parsed.ok) return partial(null, parsed.error);
  const t = parsed.value;
  const fail = (reason: string) => partial(t, reason);

  for (const tag of opts.arc ? REQUIRED_AMS : REQUIRED) if (!t.has(tag)) return fail(`missing required tag ${tag}=`);
  if (!opts.arc && t.get("v") !== "1") return fail(`unsupported version v=${t.get("v")}`); // §3.5: MUST be "1"

  const a = (t.get("a") ?? "").toLowerCase();
  const alg = ALGORITHMS[a];
  if (!alg) return fail(`unsupported algorithm a=${a}`);

  const b = stripFws(t.get("b") ?? "");
  const bh = stripFws(t.get("bh") ?? "");
  if (b === "" || !/^[A-Za-z0-9+/]+={0,2}$/.test(b)) return fail("b= is empty or not base64");
  if (bh === "" || !/^[A-Za-z0-9+/]+={0,2}$/.test(bh)) return fail("bh= is empty or not base64");

  // §3.5 c=: "header/body", body defaults to simple, whole tag defaults to simple/simple.
  const c = (t.get("c") ?? opts.defaultCanon ?? "simple/simple").toLowerCase().split("/");
  if (c.length > 2) return fail(`invalid canonicalization c=${t.get("c")}`);
  const hc = c[0] ?? "simple";
  const bc = c[1] ?? "simple";
  if (!isCanon(hc) || !isCanon(bc)) return fail(`unknown canonicalization c=${t.get("c")}`);

  const domain = (t.get("d") ?? "").toLowerCase().replace(/\.$/, "");
  if (!/^[a-z0-9_-]+(\.[a-z0-9_-]+)*$/.test(domain)) return fail(`invalid domain d=${domain}`);
  const selector = stripFws(t.get("s") ?? "").toLowerCase();
  if (!/^[a-z0-9_-]+(\.[a-z0-9_-]+)*$/.test(selector)) return fail(`invalid selector s=${selector}`);

  const headers = (t.get("h") ?? "")
    .split(":")
    .map((h) => h.replace(/[ \t\r\n]+/g, ""))
    .filter((h) => h !== "");
  if (headers.length === 0 && !opts.arc) return fail("h= is empty");
  if (opts.arc) {
    // RFC 8617 §3.9: position = 1*2DIGIT, 1 to 50.
    const instance = stripFws(t.get("i") ?? "");
    if (!/^[0-9]{1,2}$/.test(instance) || Number(instance) < 1 || Number(instance) > 50) return fail(`i= is not an ARC instance (1 to 50): ${t.get("i")}`);
  }

  // §3.5 i=: the domain part MUST be the same as, or a subdomain of, d= (PERMFAIL "domain mismatch").
  // RFC 6376 §3.5: i= is dkim-quoted-printable (§2.11): "=40" is "@", and "=XX" any octet.
  const decoded = opts.arc ? `@${domain}` : decodeQp(stripFws(t.get("i") ?? `@${domain}`));
  if (decoded === null) return fail(`i= is not valid dkim-quoted-printable: ${t.get("i")}`);
  const identity = decoded;
  const at = identity.lastIndexOf("@");
  if (at < 0) return fail(`i= has no "@": ${identity}`);
  const idDomain = identity.slice(at + 1).toLowerCase();
  if (idDomain !== domain && !idDomain.endsWith(`.${domain}`)) return fail(`i= domain ${idDomain} is not d= or a subdomain of it`);

  // §3.5 q=: dns/txt is the only defined method; a signature without it cannot be verified.
  const q = t.get("q");
  if (q !== undefined && !q.split(":").some((m) => m.trim().toLowerCase() === "dns/txt")) return fail(`unsupported query method q=${q}`);

  const num = (tag: string, maxDigits: number): number | null | "bad" => {
    const v = t.get(tag);
    if (v === undefined) return null;
    const s = stripFws(v);
    return new RegExp(`^[0-9]{1,${maxDigits}}$`).test(s) ? Number(s) : "bad";
  };
  const length = num("l", 76); // §3.5: 1*76DIGIT
  const timestamp = num("t", 12);
  const expiration = num("x", 12);
  if (length === "bad") return fail("l= is not a number");
  if (timestamp === "bad") return fail("t= is not a number");
  if (expiration === "bad") return fail("x= is not a number");
  // §3.5 x=: "the value of the x= tag MUST be greater than the value of the t= tag".
  if (timestamp !== null && expiration !== null && expiration <= timestamp) return fail("x= is not after t=");

  return ok({
    algorithm: a as SigAlgorithm,
    keyType: alg[0],
    hash: alg[1],
    signature: b,
    bodyHash: bh,
    headerCanon: hc,
    bodyCanon: bc,
    domain,
    selector,
    headers,
    identity,
    length,
    timestamp,
    expiration,
    tags: t,
  });
}

const isCanon = (s: string): s is Canon => s === "simple" || s === "relaxed";

/** dkim-quoted-printable (RFC 6376 §2.11): "=" followed by two hex digits is that octet (UTF-8); anything else after "=" is invalid. */
export function decodeQp(text: string): string | null {
  if (!text.includes("=")) return text;
  const bytes: number[] = [];
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c !== 0x3d) {
      for (const b of new TextEncoder().encode(text[i])) bytes.push(b);
      continue;
    }
    const hex = text.slice(i + 1, i + 3);
    if (!/^[0-9A-Fa-f]{2}$/.test(hex)) return null;
    bytes.push(Number.parseInt(hex, 16));
    i += 2;
  }
  try {
    return new TextDecoder("utf-8", { fatal: true, ignoreBOM: true }).decode(new Uint8Array(bytes));
  } catch {
    return null;
  }
}
