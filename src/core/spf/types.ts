// Shapes of parsed SPF records and evaluation results (RFC 7208). No I/O here.

export type Qualifier = "+" | "-" | "~" | "?";
export type MechanismName = "all" | "include" | "a" | "mx" | "ptr" | "ip4" | "ip6" | "exists";

export interface Mechanism {
  kind: "mechanism";
  qualifier: Qualifier;
  name: MechanismName;
  /** include/exists always; a/mx/ptr when given after ":". Unexpanded macro-string. */
  domainSpec: string | null;
  /** ip4/ip6 network address text. */
  network: string | null;
  /** dual-cidr-length (RFC 7208 §5.6); null when absent (means /32 or /128). */
  cidr4: number | null;
  cidr6: number | null;
  raw: string;
  /** 0-based character offset of the term in the record text. */
  position: number;
}

export interface Modifier {
  kind: "modifier";
  name: string; // lower case
  value: string;
  raw: string;
  position: number;
}

export type Term = Mechanism | Modifier;

export interface SpfSyntaxError {
  position: number;
  message: string;
  /** The offending term, when the error is inside one. */
  term: string | null;
}

export interface ParsedSpf {
  text: string;
  terms: Term[];
  mechanisms: Mechanism[];
  redirect: Modifier | null;
  exp: Modifier | null;
  unknownModifiers: Modifier[];
  /** Any syntax error makes check_host() return permerror (RFC 7208 §4.6). */
  errors: SpfSyntaxError[];
  /** Terms after "all" that are not exp= (never evaluated, RFC 7208 §5.1). */
  ignoredAfterAll: Term[];
}

/** RFC 7208 §2.6 results. */
export type SpfResult = "pass" | "fail" | "softfail" | "neutral" | "none" | "permerror" | "temperror";

export const QUALIFIER_RESULT: Record<Qualifier, SpfResult> = {
  "+": "pass",
  "-": "fail",
  "~": "softfail",
  "?": "neutral",
};

/** Mechanisms and modifiers that cost a DNS-querying term (RFC 7208 §4.6.4). */
export const LOOKUP_TERMS: ReadonlySet<string> = new Set(["include", "a", "mx", "ptr", "exists", "redirect"]);
export const MAX_LOOKUPS = 10;
export const MAX_VOID_LOOKUPS = 2;
