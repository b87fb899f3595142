// Parses a DMARC policy record (RFC 9989 §5.3 tags, §5.4 formal definition; removed 7489 tags). Pure, no I/O.
import { err, ok, type Finding, type Result } from "../types";

export type DmarcPolicy = "none" | "quarantine" | "reject";

export interface DmarcUri {
  uri: string;
  /** Lower-case scheme, e.g. "mailto". */
  scheme: string;
  /** For mailto: the address and its domain (lower case). */
  address: string | null;
  domain: string | null;
  /** The obsolete "!size" suffix (RFC 7489 §6.2; gone in RFC 9989), if present. */
  size: string | null;
  valid: boolean;
}

export interface DmarcTag {
  name: string;
  value: string;
  position: number;
}

export interface DmarcRecord {
  text: string;
  tags: DmarcTag[];
  p: DmarcPolicy | null;
  sp: DmarcPolicy | null;
  np: DmarcPolicy | null;
  t: boolean;
  psd: "y" | "n" | "u";
  adkim: "r" | "s";
  aspf: "r" | "s";
  rua: DmarcUri[];
  ruf: DmarcUri[];
  fo: string[];
  /** Removed by RFC 9989 but still honoured by RFC 7489 receivers. */
  pct: number | null;
  rf: string | null;
  ri: number | null;
  /** Policies after defaults: sp defaults to p; np to sp, else p (RFC 9989 §5.3). */
  effective: { p: DmarcPolicy; sp: DmarcPolicy; np: DmarcPolicy };
  /** False when p is missing/invalid and no valid rua exists: receivers apply no DMARC (RFC 9989 §4.10.1). */
  policyApplies: boolean;
  findings: Finding[];
}

/** RFC 9989 §5.4: "v=DMARC1" (case-sensitive value) must be the first tag. */
export const isDmarcRecord = (txt: string): boolean => /^v\s*=\s*DMARC1\s*(;|$)/.test(txt);

const POLICIES: readonly string[] = ["none", "quarantine", "reject"];
const KNOWN = new Set(["v", "p", "sp", "np", "t", "psd", "adkim", "aspf", "rua", "ruf", "fo", "pct", "rf", "ri"]);

export function parseUri(raw: string): DmarcUri {
  const uri = raw.trim();
  const bang = uri.lastIndexOf("!");
  const size = bang > 0 && /^[0-9]+[kmgt]?$/i.test(uri.slice(bang + 1)) ? uri.slice(bang + 1) : null;
  const base = size !== null ? uri.slice(0, bang) : uri;
  const scheme = /^([a-z][a-z0-9+.-]*):/i.exec(base)?.[1]?.toLowerCase() ?? "";
  if (scheme !== "mailto") return { uri, scheme, address: null, domain: null, size, valid: scheme !== "" && !base.includes(" ") };
  const address = decodeURIComponent(base.slice(7).split("?")[0] ?? "").toLowerCase();
  const m = /^[^@\s]+@([a-z0-9-]+(?:\.[a-z0-9-]+)+)$/.exec(address);
  return { uri, scheme, address, domain: m?.[1] ?? null, size, valid: m !== null };
}

const f = (rule: string, severity: Finding["severity"], description: string, fix: string | null = null): Finding => ({ rule, severity, description, fix });

/** Parses a record; an error only when it is not a DMARC record at all (v=DMARC1 not first). */
export function parseDmarc(text: string): Result<DmarcRecord> {
  if (!isDmarcRecord(text)) return err('not a DMARC record: "v=DMARC1" must be the first tag (RFC 9989 §5.3)');
  const findings: Finding[] = [];
  const tags: DmarcTag[] = [];
  const seen = new Map<string, string>();
  let pos = 0;
  for (const part of text.split(";")) {
    const position = pos + (part.length - part.trimStart().length);
    pos += part.length + 1;
    const trimmed = part.trim();
    if (trimmed === "") continue;
    const eq = trimmed.indexOf("=");
    const name = (eq > 0 ? trimmed.slice(0, eq) : trimmed).trim().toLowerCase();
    const value = eq > 0 ? trimmed.slice(eq + 1).trim() : "";
    if (eq <= 0) {
      findings.push(f("dmarc.syntax", "Medium", `"${trimmed}" at character ${position} is not a tag=value pair and is ignored (RFC 9989 §5.4).`));
      continue;
    }
    if (seen.has(name)) {
      // Receivers disagree on which copy wins; checkdmarc treats duplicates as an error.
      findings.push(
        f("dmarc.duplicate-tag", "High", `Tag "${name}" appears more than once (at character ${position}); receivers may use either value. Keep one.`),
      );
      continue;
    }
    seen.set(name, value);
    tags.push({ name, value, position });
    if (!KNOWN.has(name))
      findings.push(f("dmarc.unknown-tag", "Low", `Unknown tag "${name}" is ignored by receivers (RFC 9989 §5.3); check it is not a typo.`));
  }
  const get = (n: string): string | undefined => seen.get(n);
  const policy = (n: "p" | "sp" | "np"): DmarcPolicy | null => {
    const v = get(n);
    if (v === undefined) return null;
    if (POLICIES.includes(v.toLowerCase())) return v.toLowerCase() as DmarcPolicy;
    findings.push(f("dmarc.invalid-value", "High", `${n}=${v} is not none, quarantine or reject; receivers discard it (RFC 9989 §5.3).`));
    return null;
  };
  const enumTag = <T extends string>(n: string, allowed: readonly T[], dflt: T): T => {
    const v = get(n)?.toLowerCase();
    if (v === undefined) return dflt;
    if ((allowed as readonly string[]).includes(v)) return v as T;
    findings.push(
      f("dmarc.invalid-value", "Medium", `${n}=${get(n)} is invalid (allowed: ${allowed.join(", ")}); the default ${dflt} applies (RFC 9989 §5.3).`),
    );
    return dflt;
  };
  const uris = (n: string): DmarcUri[] =>
    (get(n) ?? "")
      .split(",")
      .filter((u) => u.trim() !== "")
      .map(parseUri);
  const p = policy("p");
  const sp = policy("sp");
  const np = policy("np");
  const rua = uris("rua");
  const pctRaw = get("pct");
  const pct = pctRaw !== undefined && /^[0-9]{1,3}$/.test(pctRaw) && Number(pctRaw) <= 100 ? Number(pctRaw) : null;
  const riRaw = get("ri");
  const fo = (get("fo") ?? "")
    .split(":")
    .map((x) => x.trim().toLowerCase())
    .filter((x) => x !== "");
  const badFo = fo.filter((x) => !["0", "1", "d", "s"].includes(x));
  if (badFo.length > 0)
    findings.push(f("dmarc.invalid-value", "Low", `fo=${get("fo")} contains invalid option(s) ${badFo.join(", ")} (allowed: 0, 1, d, s; RFC 9989 §5.3).`));
  const effP: DmarcPolicy = p ?? "none";
  const effSp: DmarcPolicy = sp ?? effP;
  const record: DmarcRecord = {
    text,
    tags,
    p,
    sp,
    np,
    t: enumTag("t", ["y", "n"] as const, "n") === "y",
    psd: enumTag("psd", ["y", "n", "u"] as const, "u"),
    adkim: enumTag("adkim", ["r", "s"] as const, "r"),
    aspf: enumTag("aspf", ["r", "s"] as const, "r"),
    rua,
    ruf: uris("ruf"),
    fo: fo.filter((x) => badFo.indexOf(x) < 0),
    pct,
    rf: get("rf") ?? null,
    ri: riRaw !== undefined && /^[0-9]+$/.test(riRaw) ? Number(riRaw) : null,
    // RFC 9989 §5.3: np defaults to sp when sp is present, else to p.
    effective: { p: effP, sp: effSp, np: np ?? sp ?? effP },
    // RFC 9989 §4.10.1: without a valid p, act as p=none only when a valid rua exists.
    policyApplies: p !== null || rua.some((u) => u.valid),
    findings,
  };
  return ok(record);
}
