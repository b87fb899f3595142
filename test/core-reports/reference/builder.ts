// Test-only reference (was src/core/reports/builder.ts): the path-keyed builder of the saxes-based parser.
import { err, ok, type Result } from "../../../src/core/types";
import * as F from "../../../src/core/reports/fields";
import type {
  DkimAuthResult,
  OverrideReason,
  PolicyPublished,
  ReportError,
  ReportMetadata,
  ReportRecord,
  SpfAuthResult,
} from "../../../src/core/reports/types";

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
const LEAVES = new Set([
  ...FREE_TEXT,
  "version",
  ...["org_name", "email", "report_id", "date_range/begin", "date_range/end"].map((f) => MD + f),
  ...["domain", "adkim", "aspf", "p", "sp", "np", "pct", "fo", "testing", "discovery_method"].map((f) => PP + f),
  `${ROW}source_ip`,
  `${ROW}count`,
  `${PE}disposition`,
  `${PE}dkim`,
  `${PE}spf`,
  `${PE}reason/type`,
  `${ID}header_from`,
  `${ID}envelope_from`,
  `${ID}envelope_to`,
  `${DK}domain`,
  `${DK}selector`,
  `${DK}result`,
  `${SP}domain`,
  `${SP}scope`,
  `${SP}result`,
]);
const MAX_ERRORS = 20;

/**
 * The element tree as a trie of interned path strings: the parser walks it per tag instead of
 * concatenating and hashing a fresh path string per element (a third of the parse time).
 * Elements we do not read (extensions, unknown fields) map to UNKNOWN and are skipped.
 */
export interface PathNode {
  path: string;
  leaf: boolean;
  free: boolean;
  kids: Map<string, PathNode>;
}
export const UNKNOWN: PathNode = { path: "?", leaf: false, free: false, kids: new Map() };
export const ROOT: PathNode = { path: "", leaf: false, free: false, kids: new Map() };
for (const leaf of LEAVES) {
  let node = ROOT;
  for (const name of leaf.split("/")) {
    const path = node.path === "" ? name : `${node.path}/${name}`;
    let next = node.kids.get(name);
    if (next === undefined) {
      next = { path, leaf: false, free: false, kids: new Map() };
      node.kids.set(name, next);
    }
    node = next;
  }
  node.leaf = true;
  node.free = FREE_TEXT.has(leaf);
}

interface Draft {
  f: Map<string, string>;
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
  private readonly top = new Map<string, string>();
  private readonly errors: string[] = [];
  private rec: Draft | null = null;
  private sub = new Map<string, string>(); // fields of the open dkim/spf/reason element
  records = 0;

  constructor(
    private readonly onRecord: (r: ReportRecord) => void,
    private readonly maxRecords = MAX_RECORDS_PER_REPORT,
  ) {}

  open(path: string): void {
    if (path === "record") this.rec = { f: new Map(), reasons: [], dkim: [], spf: [] };
    else if (path === `${PE}reason` || path === "record/auth_results/dkim" || path === "record/auth_results/spf") {
      this.sub = new Map();
    }
  }

  /** Stores a leaf's text. Fields of nested elements go to `sub` until that element closes. */
  leaf(path: string, text: string): void {
    if (path === `${MD}error`) {
      if (this.errors.length < MAX_ERRORS && text.trim()) this.errors.push(text.trim());
    } else if (path.startsWith(DK) || path.startsWith(SP) || path.startsWith(`${PE}reason/`)) {
      this.sub.set(path.slice(path.lastIndexOf("/") + 1), text);
    } else if (path.startsWith("record/")) {
      this.rec?.f.set(path, text);
    } else {
      this.top.set(path, text);
    }
  }

  close(path: string): ReportError | null {
    const r = this.rec;
    if (r === null) return null;
    const s = this.sub;
    if (path === `${PE}reason`) {
      r.reasons.push({ type: F.reasonType(s.get("type") ?? ""), comment: F.opt(s.get("comment")) });
    } else if (path === "record/auth_results/dkim") {
      const sel = F.opt(s.get("selector"));
      if (r.dkim.length >= MAX_AUTH_RESULTS) return null;
      r.dkim.push({
        domain: F.domain(s.get("domain") ?? ""),
        selector: sel === null ? null : F.lower(sel).slice(0, F.MAX_DOMAIN_CHARS),
        result: F.dkimResult(s.get("result") ?? "none"),
        humanResult: F.opt(s.get("human_result")),
      });
    } else if (path === "record/auth_results/spf") {
      if (r.spf.length >= MAX_AUTH_RESULTS) return null;
      r.spf.push({
        domain: F.domain(s.get("domain") ?? ""),
        scope: F.opt(s.get("scope"))?.toLowerCase() ?? null,
        result: F.spfResult(s.get("result") ?? "none"),
      });
    } else if (path === "record") {
      this.rec = null;
      return this.emit(r);
    }
    return null;
  }

  private emit(r: Draft): ReportError | null {
    const g = (k: string): string | undefined => r.f.get(k);
    const ip = F.sourceIp(g(`${ROW}source_ip`) ?? "");
    if (ip === null) return bad(`record ${this.records + 1}: missing or invalid source_ip`);
    const n = F.count(g(`${ROW}count`) ?? "");
    if (n === null) return bad(`record ${this.records + 1}: missing or invalid count`);
    if (this.records >= this.maxRecords) {
      return { code: "too_many_records", message: `more than ${this.maxRecords} records in one report` };
    }
    const env = F.opt(g(`${ID}envelope_from`));
    const to = F.opt(g(`${ID}envelope_to`));
    this.records++;
    this.onRecord({
      sourceIp: ip,
      count: n,
      // Missing policy_evaluated fields are left visibly unknown rather than guessed.
      disposition: F.lower(g(`${PE}disposition`) ?? "") || "unknown",
      dkim: F.lower(g(`${PE}dkim`) ?? "") || "unknown",
      spf: F.lower(g(`${PE}spf`) ?? "") || "unknown",
      reasons: r.reasons,
      headerFrom: F.domain(g(`${ID}header_from`) ?? ""),
      envelopeFrom: env === null ? null : F.domain(env),
      envelopeTo: to === null ? null : F.domain(to),
      dkimResults: r.dkim,
      spfResults: r.spf,
    });
    return null;
  }

  /** RFC 9990-only fields, for reporters that adopt them before (or without) the new namespace. */
  uses9990(): boolean {
    return (
      ["generator", "np", "testing", "discovery_method"].some((f) => this.top.has(f === "generator" ? MD + f : PP + f)) ||
      this.top.get("version")?.trim().startsWith("2") === true
    );
  }

  /** Checks the required fields once the document is complete. */
  finish(): Result<{ metadata: ReportMetadata; policy: PolicyPublished }, ReportError> {
    const t = (k: string): string | null => F.opt(this.top.get(k));
    const reportId = t(`${MD}report_id`);
    if (reportId === null) return err(bad("no report_metadata/report_id"));
    const domain = t(`${PP}domain`);
    if (domain === null) return err(bad("no policy_published/domain"));
    const begin = F.epochSeconds(t(`${MD}date_range/begin`) ?? "");
    const end = F.epochSeconds(t(`${MD}date_range/end`) ?? "");
    if (begin === null || end === null || end < begin) return err(bad("missing or invalid date_range"));
    // RFC 7489 Appendix C: <record> has minOccurs="1".
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
