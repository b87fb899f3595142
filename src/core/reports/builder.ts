// Builds metadata, policy and one record at a time from the report's leaf elements. Pure, no I/O.
import { err, ok, type Result } from "../types";
import * as F from "./fields";
import type { DkimAuthResult, OverrideReason, PolicyPublished, ReportError, ReportMetadata, ReportRecord, SpfAuthResult } from "./types";

// Paths are relative to <feedback>. RFC 7489 Appendix C and RFC 9990 share this layout; 9990 adds
// generator, np, testing, discovery_method and makes the DKIM selector required.
const MD = "report_metadata/";
const PP = "policy_published/";
const ROW = "record/row/";
const PE = "record/row/policy_evaluated/";
const ID = "record/identifiers/";
const DK = "record/auth_results/dkim/";
const SP = "record/auth_results/spf/";
const FREE_TEXT = new Set([`${MD}extra_contact_info`, `${MD}error`, `${MD}generator`, `${PE}reason/comment`, `${DK}human_result`, `${SP}human_result`]);
const TOP_LEAVES = [
  "version",
  ...["org_name", "email", "report_id", "date_range/begin", "date_range/end", "extra_contact_info", "generator"].map((f) => MD + f),
  ...["domain", "adkim", "aspf", "p", "sp", "np", "pct", "fo", "testing", "discovery_method"].map((f) => PP + f),
];
const REC_LEAVES = [
  `${ROW}source_ip`,
  `${ROW}count`,
  `${PE}disposition`,
  `${PE}dkim`,
  `${PE}spf`,
  `${ID}header_from`,
  `${ID}envelope_from`,
  `${ID}envelope_to`,
];
/** Fields of a <reason>, <dkim> or <spf> result, by their last path segment. */
const SUB_FIELDS = ["domain", "selector", "result", "human_result", "scope", "type", "comment"];
const SUB_LEAVES = [
  ...["domain", "selector", "result", "human_result"].map((f) => DK + f),
  ...["domain", "scope", "result", "human_result"].map((f) => SP + f),
  ...["type", "comment"].map((f) => `${PE}reason/${f}`),
];
const MAX_ERRORS = 20;

/** What a node does when it closes (elements holding a record or one of its results). */
enum Kind {
  Plain,
  Record,
  Reason,
  Dkim,
  Spf,
}
/** Where a leaf's text goes. */
enum Store {
  None,
  Top,
  Rec,
  Sub,
  Error,
}

/**
 * The element tree as a trie: the parser walks it per tag, comparing raw name bytes with `kidList`
 * (ASCII case folded), so no string is built for a known element. Elements we do not read
 * (extensions, unknown fields) map to UNKNOWN and are skipped.
 */
export interface PathNode {
  path: string;
  leaf: boolean;
  free: boolean;
  kind: Kind;
  store: Store;
  slot: number;
  kids: Map<string, PathNode>;
  kidList: Array<{ name: Uint8Array; node: PathNode }>;
}
const node = (path: string): PathNode => ({ path, leaf: false, free: false, kind: Kind.Plain, store: Store.None, slot: 0, kids: new Map(), kidList: [] });
export const UNKNOWN: PathNode = node("?");
export const ROOT: PathNode = node("");

function add(leaf: string, store: Store, slot: number): void {
  let at = ROOT;
  for (const name of leaf.split("/")) {
    const path = at.path === "" ? name : `${at.path}/${name}`;
    let next = at.kids.get(name);
    if (next === undefined) {
      next = node(path);
      at.kids.set(name, next);
      at.kidList.push({ name: new TextEncoder().encode(name), node: next });
    }
    at = next;
  }
  at.leaf = true;
  at.free = FREE_TEXT.has(leaf);
  at.store = store;
  at.slot = slot;
}
// Record fields first: they are read 100,000 times in a large report, metadata once.
for (const [i, l] of REC_LEAVES.entries()) add(l, Store.Rec, i);
for (const l of SUB_LEAVES) add(l, Store.Sub, SUB_FIELDS.indexOf(l.slice(l.lastIndexOf("/") + 1)));
for (const [i, l] of TOP_LEAVES.entries()) add(l, Store.Top, i);
add(`${MD}error`, Store.Error, 0);
const at = (path: string): PathNode => path.split("/").reduce((n, s) => n.kids.get(s) ?? UNKNOWN, ROOT);
at("record").kind = Kind.Record;
at(`${PE}reason`).kind = Kind.Reason;
at("record/auth_results/dkim").kind = Kind.Dkim;
at("record/auth_results/spf").kind = Kind.Spf;
// Older reporters write <identities> (parsedmarc reads it too).
const identifiers = at("record/identifiers");
at("record").kids.set("identities", identifiers);
at("record").kidList.push({ name: new TextEncoder().encode("identities"), node: identifiers });

const TOP = (k: string): number => TOP_LEAVES.indexOf(k);
const T_VERSION = TOP("version");
const T_9990 = [`${MD}generator`, `${PP}np`, `${PP}testing`, `${PP}discovery_method`].map(TOP);
const [R_IP, R_COUNT, R_DISP, R_DKIM, R_SPF, R_FROM, R_ENV, R_TO] = REC_LEAVES.map((_, i) => i) as [
  number,
  number,
  number,
  number,
  number,
  number,
  number,
  number,
];
const [S_DOMAIN, S_SELECTOR, S_RESULT, S_HUMAN, S_SCOPE, S_TYPE, S_COMMENT] = SUB_FIELDS.map((_, i) => i) as [
  number,
  number,
  number,
  number,
  number,
  number,
  number,
];

interface Draft {
  f: Array<string | undefined>;
  reasons: OverrideReason[];
  dkim: DkimAuthResult[];
  spf: SpfAuthResult[];
}

const bad = (message: string): ReportError => ({ code: "not_a_report", message });

/** <record> elements one report may hold: the largest real reports carry about 100,000 (docs/limits.md). */
export const MAX_RECORDS_PER_REPORT = 200_000;
/** DKIM and SPF results kept per record: real records carry one to three; the rest are ignored. */
export const MAX_AUTH_RESULTS = 8;

export class ReportBuilder {
  private readonly top: Array<string | undefined> = new Array(TOP_LEAVES.length).fill(undefined);
  private readonly errors: string[] = [];
  private rec: Draft | null = null;
  private sub: Array<string | undefined> = []; // fields of the open dkim/spf/reason element
  records = 0;

  constructor(
    private readonly onRecord: (r: ReportRecord) => void,
    private readonly maxRecords = MAX_RECORDS_PER_REPORT,
  ) {}

  open(n: PathNode): void {
    // Literal arrays of the right length (REC_LEAVES, SUB_FIELDS): the cheapest to allocate per record.
    if (n.kind === Kind.Record)
      this.rec = { f: [undefined, undefined, undefined, undefined, undefined, undefined, undefined, undefined], reasons: [], dkim: [], spf: [] };
    else if (n.kind !== Kind.Plain) this.sub = [undefined, undefined, undefined, undefined, undefined, undefined, undefined];
  }

  /** Stores a leaf's text (the last occurrence of a field wins). */
  leaf(n: PathNode, text: string): void {
    switch (n.store) {
      case Store.Rec:
        if (this.rec !== null) this.rec.f[n.slot] = text;
        break;
      case Store.Sub:
        this.sub[n.slot] = text;
        break;
      case Store.Top:
        this.top[n.slot] = text;
        break;
      case Store.Error:
        if (this.errors.length < MAX_ERRORS && text.trim()) this.errors.push(text.trim());
        break;
    }
  }

  close(n: PathNode): ReportError | null {
    const r = this.rec;
    if (r === null || n.kind === Kind.Plain) return null;
    const s = this.sub;
    if (n.kind === Kind.Reason) {
      r.reasons.push({ type: F.reasonType(s[S_TYPE] ?? ""), comment: F.opt(s[S_COMMENT]) });
    } else if (n.kind === Kind.Dkim) {
      if (r.dkim.length >= MAX_AUTH_RESULTS) return null;
      const sel = F.opt(s[S_SELECTOR]);
      r.dkim.push({
        domain: F.domain(s[S_DOMAIN] ?? ""),
        selector: sel === null ? null : F.lower(sel).slice(0, F.MAX_DOMAIN_CHARS),
        result: F.dkimResult(s[S_RESULT] ?? "none"),
        humanResult: F.opt(s[S_HUMAN]),
      });
    } else if (n.kind === Kind.Spf) {
      if (r.spf.length >= MAX_AUTH_RESULTS) return null;
      r.spf.push({
        domain: F.domain(s[S_DOMAIN] ?? ""),
        scope: F.opt(s[S_SCOPE])?.toLowerCase() ?? null,
        result: F.spfResult(s[S_RESULT] ?? "none"),
      });
    } else {
      this.rec = null;
      return this.emit(r);
    }
    return null;
  }

  private emit(r: Draft): ReportError | null {
    const g = r.f;
    const ip = F.sourceIp(g[R_IP] ?? "");
    if (ip === null) return bad(`record ${this.records + 1}: missing or invalid source_ip`);
    const n = F.count(g[R_COUNT] ?? "");
    if (n === null) return bad(`record ${this.records + 1}: missing or invalid count`);
    if (this.records >= this.maxRecords) {
      return { code: "too_many_records", message: `more than ${this.maxRecords} records in one report` };
    }
    const env = F.opt(g[R_ENV]);
    const to = F.opt(g[R_TO]);
    this.records++;
    this.onRecord({
      sourceIp: ip,
      count: n,
      // Missing policy_evaluated fields are left visibly unknown rather than guessed.
      disposition: F.lower(g[R_DISP] ?? "") || "unknown",
      dkim: F.lower(g[R_DKIM] ?? "") || "unknown",
      spf: F.lower(g[R_SPF] ?? "") || "unknown",
      reasons: r.reasons,
      headerFrom: F.domain(g[R_FROM] ?? ""),
      envelopeFrom: env === null ? null : F.domain(env),
      envelopeTo: to === null ? null : F.domain(to),
      dkimResults: r.dkim,
      spfResults: r.spf,
    });
    return null;
  }

  /** RFC 9990-only fields, for reporters that adopt them before (or without) the new namespace. */
  uses9990(): boolean {
    return T_9990.some((k) => this.top[k] !== undefined) || this.top[T_VERSION]?.trim().startsWith("2") === true;
  }

  /** Checks the required fields once the document is complete. */
  finish(): Result<{ metadata: ReportMetadata; policy: PolicyPublished }, ReportError> {
    const t = (k: string): string | null => F.opt(this.top[TOP(k)]);
    const reportId = t(`${MD}report_id`);
    if (reportId === null) return err(bad("no report_metadata/report_id"));
    const domain = t(`${PP}domain`);
    if (domain === null) return err(bad("no policy_published/domain"));
    const begin = F.epochSeconds(t(`${MD}date_range/begin`) ?? "");
    const end = F.epochSeconds(t(`${MD}date_range/end`) ?? "");
    if (begin === null || end === null || end < begin) return err(bad("missing or invalid date_range"));
    // RFC 7489 Appendix C (and RFC 9990's schema): <record> has minOccurs="1"; a report without one
    // reports no traffic and is refused rather than counted.
    if (this.records === 0) return err({ code: "no_records", message: "the report has no <record> element; an aggregate report holds at least one" });
    const low = (k: string): string | null => t(PP + k)?.toLowerCase() ?? null;
    return ok({
      metadata: {
        orgName: t(`${MD}org_name`) ?? "",
        email: t(`${MD}email`),
        extraContactInfo: t(`${MD}extra_contact_info`),
        reportId,
        begin,
        end,
        errors: this.errors,
        generator: t(`${MD}generator`),
      },
      policy: {
        domain: F.domain(domain),
        adkim: low("adkim"),
        aspf: low("aspf"),
        p: low("p"),
        sp: low("sp"),
        np: low("np"),
        pct: F.pct(t(`${PP}pct`) ?? ""),
        fo: t(`${PP}fo`),
        testing: low("testing"),
        discoveryMethod: low("discovery_method"),
      },
    });
  }
}
