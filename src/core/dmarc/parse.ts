// Parses a DMARC policy record (RFC 9989 §5.3 tags, §5.4 formal definition; removed 7489 tags). Pure, no I/O.
import { DKIM_TAG_NAME, readTagList, type TagGrammar, type TagRule } from "../records/tag-list";
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
  /** p, sp or np tags whose value is not a policy; any of them puts the record in the p=none fallback. */
  invalidPolicyTags: { name: "p" | "sp" | "np"; value: string }[];
  /** The policies receivers apply: sp defaults to p, np to sp, else p (RFC 9989 §5.3); all none when
   *  p is missing or invalid or sp/np is invalid (RFC 7489 §6.6.3 step 6, RFC 9989 §4.10). */
  effective: { p: DmarcPolicy; sp: DmarcPolicy; np: DmarcPolicy };
  /** False when that fallback applies and no valid rua exists: receivers apply no DMARC (RFC 9989 §4.10.1). */
  policyApplies: boolean;
  findings: Finding[];
}

/** RFC 9989 §5.4: "v=DMARC1" (case-sensitive value) must be the first tag. */
export const isDmarcRecord = (txt: string): boolean => /^v\s*=\s*DMARC1\s*(;|$)/.test(txt);

const POLICIES: readonly string[] = ["none", "quarantine", "reject"];
const oneOf =
  (...allowed: string[]) =>
  (v: string): boolean =>
    allowed.includes(v.toLowerCase());
const policyRule: TagRule = {
  section: "RFC 7489 §6.6.3, RFC 9989 §4.10",
  expected: "none, quarantine or reject",
  valid: oneOf(...POLICIES),
  invalid: "ignore",
};
const enumRule = (...allowed: string[]): TagRule => ({ section: "RFC 9989 §5.3", expected: allowed.join(", "), valid: oneOf(...allowed), invalid: "ignore" });
const anyValue: TagRule = { section: "RFC 9989 §5.3" };

/**
 * RFC 9989 §5.4 (RFC 7489 §6.4): tags separated by ";" with optional whitespace around "=" and ";",
 * names case-insensitive, unknown tags ignored. A part that is not tag=value and extra copies of a tag
 * are reported and skipped; an invalid p, sp or np triggers the p=none fallback, other invalid values
 * give way to their defaults.
 */
export const DMARC_RECORD: TagGrammar = {
  record: "DMARC record",
  section: "RFC 9989 §5.4",
  name: DKIM_TAG_NAME,
  caseSensitive: false,
  spaceAroundEquals: true,
  duplicate: "keep-first",
  malformed: "skip",
  emptySpec: "allowed",
  first: { name: "v", value: "DMARC1" },
  tags: {
    v: { required: true, section: "RFC 9989 §5.3" },
    p: policyRule,
    sp: policyRule,
    np: policyRule,
    t: enumRule("y", "n"),
    psd: enumRule("y", "n", "u"),
    adkim: enumRule("r", "s"),
    aspf: enumRule("r", "s"),
    rua: anyValue,
    ruf: anyValue,
    fo: anyValue,
    pct: anyValue,
    rf: anyValue,
    ri: anyValue,
  },
};

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
  const read = readTagList(text, DMARC_RECORD);
  if (!read.ok) return err(`not a DMARC record: ${read.error.message} (${read.error.section})`);
  const findings: Finding[] = [];
  const invalidPolicyTags: DmarcRecord["invalidPolicyTags"] = [];
  const invalidTags = new Map<string, string>();
  for (const issue of read.value.issues) {
    const at = `at character ${issue.position}`;
    if (issue.kind === "malformed" || issue.kind === "invalid-name")
      findings.push(f("dmarc.syntax", "Medium", `${issue.message} ${at}; it is ignored (RFC 9989 §5.4).`));
    else if (issue.kind === "duplicate")
      // Receivers disagree on which copy wins; checkdmarc treats duplicates as an error.
      findings.push(f("dmarc.duplicate-tag", "High", `Tag "${issue.tag}" appears more than once (${at}); receivers may use either value. Keep one.`));
    else if (issue.kind === "unknown-tag")
      findings.push(f("dmarc.unknown-tag", "Low", `Unknown tag "${issue.tag}" is ignored by receivers (RFC 9989 §5.3); check it is not a typo.`));
    else if (issue.kind === "invalid-value" && issue.tag !== null) {
      invalidTags.set(issue.tag, issue.value ?? "");
      if (issue.tag === "p" || issue.tag === "sp" || issue.tag === "np") invalidPolicyTags.push({ name: issue.tag, value: issue.value ?? "" });
    }
  }
  const tags: DmarcTag[] = read.value.order
    .filter((name) => read.value.tags.has(name) || invalidTags.has(name))
    .map((name) => ({ name, value: read.value.tags.get(name) ?? invalidTags.get(name) ?? "", position: read.value.positions.get(name) ?? 0 }));
  const get = (n: string): string | undefined => read.value.tags.get(n);
  const policy = (n: "p" | "sp" | "np"): DmarcPolicy | null => (get(n)?.toLowerCase() as DmarcPolicy | undefined) ?? null;
  const enumTag = <T extends string>(n: string, allowed: readonly T[], dflt: T): T => {
    const bad = invalidTags.get(n);
    if (bad !== undefined)
      findings.push(
        f("dmarc.invalid-value", "Medium", `${n}=${bad} is invalid (allowed: ${allowed.join(", ")}); the default ${dflt} applies (RFC 9989 §5.3).`),
      );
    return (get(n)?.toLowerCase() as T | undefined) ?? dflt;
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
  // RFC 7489 §6.6.3 step 6 (and RFC 9989 §4.10): a record without a valid p, or with an invalid sp
  // (np in RFC 9989), is processed as if it were "v=DMARC1; p=none" when rua holds at least one valid
  // URI, and not at all otherwise.
  const fallback = p === null || invalidPolicyTags.length > 0;
  const effP: DmarcPolicy = fallback ? "none" : p;
  const effSp: DmarcPolicy = fallback ? "none" : (sp ?? effP);
  const effNp: DmarcPolicy = fallback ? "none" : (np ?? sp ?? effP);
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
    invalidPolicyTags,
    // RFC 9989 §5.3: np defaults to sp when sp is present, else to p.
    effective: { p: effP, sp: effSp, np: effNp },
    // RFC 9989 §4.10.1: in the fallback, act as p=none only when a valid rua exists.
    policyApplies: !fallback || rua.some((u) => u.valid),
    findings,
  };
  return ok(record);
}
