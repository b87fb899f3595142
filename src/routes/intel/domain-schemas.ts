// OpenAPI schemas of GET /intel/domain: the summary and the complete (full=1) analysis.
// The records, categories and record examples come from the posture registry, so a new part documents itself.
import { z } from "@hono/zod-openapi";
import { RemediationPlan } from "./plan-schema";
import { CATEGORIES, RECORD_PARTS } from "../../core/posture/registry";
import { booleanQuery } from "../query";

const Status = z
  .enum(["present", "missing", "invalid", "temperror"])
  .openapi({ description: "temperror: DNS could not answer now; the part is unknown, never missing." });
const Severity = z.enum(["Critical", "High", "Medium", "Low", "Info"]);
const Category = z.enum(CATEGORIES as [string, ...string[]]);
/** A part's own statuses (an insecure DNSSEC answer, say) beside the four every part has. */
const statusOf = (extra: readonly string[] | undefined) =>
  extra && extra.length > 0
    ? z
        .enum(["present", "missing", "invalid", "temperror", ...extra] as [string, ...string[]])
        .openapi({ description: "temperror: DNS could not answer now; insecure: the answer was not DNSSEC-authenticated, so it proves neither." })
    : Status;

/** Every status any part may report: the shared record allows them all and each part's own schema
 *  narrows it (OpenAPI renders a part as allOf [IntelRecord, part], so the base must not be narrower). */
const AnyStatus = z
  .enum(["present", "missing", "invalid", "temperror", ...new Set(RECORD_PARTS.flatMap((p) => p.extraStatuses ?? []))] as [string, ...string[]])
  .openapi({ description: "temperror: DNS could not answer now; insecure: the answer was not DNSSEC-authenticated, so it proves neither." });

export const IntelRecord = z
  .object({
    status: AnyStatus,
    record: z.string().nullable(),
    stale: z.boolean().optional().openapi({ description: "In a stored check: the lookup failed, and this is the last good value carried over." }),
  })
  .openapi("IntelRecord");

export const IntelDnsFix = z
  .object({
    host: z.string(),
    type: z.enum(["TXT", "MX", "CNAME"]),
    value: z.string().openapi({ description: "Ready to paste." }),
    reason: z.string(),
  })
  .openapi("IntelDnsFix", {
    example: {
      host: "_dmarc.example.com",
      type: "TXT",
      value: "v=DMARC1; p=none; rua=mailto:dmarc-reports@example.com",
      reason: "No DMARC policy is published.",
    },
  });

export const IntelRecommendation = z
  .object({
    category: Category,
    severity: Severity,
    rule: z.string(),
    message: z.string(),
    fix: z.string().nullable(),
  })
  .openapi("IntelRecommendation");

export const IntelFinding = z
  .object({
    category: Category,
    rule: z.string().openapi({ description: "Stable rule id." }),
    severity: Severity,
    description: z.string(),
    fix: z.string().nullable(),
  })
  .openapi("IntelFinding");

const Listed = z.object({
  list: z.string(),
  zone: z.string(),
  kind: z.enum(["ip", "domain"]),
  target: z.string(),
  reasons: z.array(z.string()),
  severity: Severity,
});
export const IntelBlacklistSummary = z
  .object({
    status: z.enum(["clean", "listed", "unknown", "not_checked"]).openapi({ description: "unknown: every list query failed or was refused." }),
    checked: z.number().int(),
    unknown: z.number().int().openapi({ description: "Queries whose answer is unknown (never counted as listed)." }),
    listed: z.array(Listed),
  })
  .openapi("IntelBlacklistSummary");

const records = Object.fromEntries(RECORD_PARTS.map((p) => [p.id, IntelRecord.extend({ status: statusOf(p.extraStatuses) })]));
/** Each part's example record view, as the part declares it. */
const exampleViews = Object.fromEntries(RECORD_PARTS.map((p) => [p.id, p.example]));

export const IntelDomainSummary = z
  .object({
    view: z.literal("summary").openapi({ description: "Which shape this is: the summary, or with full=1 the complete analysis." }),
    domain: z.string(),
    score: z.number().int().nullable(),
    grade: z.enum(["A+", "A", "B", "C", "D", "F"]).nullable(),
    dmarc_policy: z.enum(["none", "quarantine", "reject"]).nullable(),
    records: z.object(records),
    blacklists: IntelBlacklistSummary,
    plan: RemediationPlan,
    recommendations: z.array(IntelRecommendation),
    fixes: z.array(IntelDnsFix),
  })
  .openapi("IntelDomainSummary", {
    example: {
      view: "summary",
      domain: "example.com",
      score: 93,
      grade: "A",
      dmarc_policy: "reject",
      records: Object.fromEntries(RECORD_PARTS.map((p) => [p.id, { status: p.example?.status ?? "missing", record: p.example?.record ?? null }])),
      blacklists: { status: "clean", checked: 8, unknown: 0, listed: [] },
      plan: { score: 93, grade: "A", steps: [], final: { score: 93, grade: "A" }, blockers: [], unresolved: [] },
      recommendations: [],
      fixes: [],
    },
  });

export const FullRecords = z
  .object(
    Object.fromEntries(RECORD_PARTS.map((p) => [p.id, IntelRecord.extend({ status: statusOf(p.extraStatuses), host: z.string(), ...(p.viewSchema ?? {}) })])),
  )
  .openapi("IntelRecordDetails");

const SpfDetail = z
  .object({
    status: z.enum(["pass-able", "permerror", "temperror", "none"]),
    status_reason: z.string(),
    records_found: z.array(z.string()),
    lookups: z.object({
      total: z.number().int(),
      limit: z.number().int(),
      truncated: z.boolean(),
      by_term: z.array(
        z.object({
          term: z.string(),
          position: z.number().int(),
          lookups: z.number().int(),
          void_lookups: z.number().int(),
          dynamic: z.boolean(),
          note: z.string().nullable(),
          target: z.string().nullable().openapi({ description: "Domain analyzed for include:/redirect=." }),
        }),
      ),
    }),
    void_lookups: z.number().int(),
    tree: z
      .array(
        z.object({
          domain: z.string(),
          via: z.enum(["root", "include", "redirect"]),
          depth: z.number().int(),
          parent: z.string().nullable(),
          record: z.string().nullable(),
          lookups: z.number().int(),
          error: z.string().nullable(),
        }),
      )
      .openapi({ description: "The include/redirect tree, depth first, with parent links." }),
    networks: z.array(z.object({ cidr: z.string(), version: z.union([z.literal(4), z.literal(6)]), domain: z.string(), term: z.string() })),
    dynamic: z.array(z.object({ domain: z.string(), term: z.string() })),
    temperror: z.object({ at: z.string(), reason: z.string() }).nullable(),
    suggested_record: z.string().nullable(),
  })
  .openapi("IntelSpfDetail");

const Policy = z.enum(["none", "quarantine", "reject"]);
const DmarcDetail = z
  .object({
    discovery: z.object({
      status: z.enum(["found", "none", "temperror"]),
      policy_domain: z.string().nullable(),
      org_domain: z.string().nullable(),
      inherited: z.boolean(),
      queries: z.number().int(),
      temperror: z.object({ name: z.string(), reason: z.string() }).nullable(),
      steps: z
        .array(z.object({ domain: z.string(), name: z.string(), result: z.enum(["record", "multiple", "none", "temperror"]), record: z.string().nullable() }))
        .openapi({ description: "RFC 9989 §4.10 DNS Tree Walk queries in order." }),
    }),
    tags: z
      .object({
        p: Policy.nullable(),
        sp: Policy.nullable(),
        np: Policy.nullable(),
        t: z.boolean(),
        psd: z.enum(["y", "n", "u"]),
        adkim: z.enum(["r", "s"]),
        aspf: z.enum(["r", "s"]),
        rua: z.array(z.string()),
        ruf: z.array(z.string()),
        fo: z.array(z.string()),
        pct: z.number().nullable(),
        rf: z.string().nullable(),
        ri: z.number().nullable(),
        effective: z.object({ p: Policy, sp: Policy, np: Policy }),
      })
      .nullable(),
    suggested_record: z.string().nullable(),
  })
  .openapi("IntelDmarcDetail");

const Listing = z.object({
  zone: z.string(),
  list: z.string(),
  kind: z.enum(["ip", "domain"]),
  target: z.string(),
  codes: z.array(z.string()),
  reasons: z.array(z.string()),
  severity: Severity,
  txt: z.string().nullable(),
});
export const BlacklistDetails = z
  .object({
    listed: z.array(Listing),
    unknown: z.array(z.object({ zone: z.string(), list: z.string(), target: z.string(), reason: z.string() })),
    clean: z.number().int(),
    checked: z.number().int(),
    cleared: z
      .array(z.object({ list: z.string(), target: z.string() }))
      .optional()
      .openapi({ description: "Every list and target that answered not listed (only these prove a delisting)." }),
    skipped: z.array(z.string()).optional().openapi({ description: "Targets not asked because the query cap was reached." }),
  })
  .nullable()
  .openapi("IntelBlacklistDetails");

// A fresh object, not .extend(): an extension would be documented as allOf with the summary, whose
// short records would then forbid the full records' fields.
export const IntelDomainFull = z
  .object({
    ...IntelDomainSummary.shape,
    view: z.literal("full"),
    records: FullRecords,
    blacklist_details: BlacklistDetails,
    findings: z.array(IntelFinding),
    spf: SpfDetail,
    dmarc: DmarcDetail,
    mta_sts: z.object({ policy_text: z.string().nullable() }),
    queries: z.number().int().openapi({ description: "DNS queries sent for this analysis." }),
    // A real answer of this service for a well-configured domain (the summary's example is not inherited).
  })
  .openapi("IntelDomainAnalysis", {
    example: {
      view: "full",
      domain: "example.com",
      score: 55,
      grade: "F",
      dmarc_policy: "reject",
      records: exampleViews,
      blacklists: { status: "clean", checked: 8, unknown: 0, listed: [] },
      recommendations: [
        {
          category: "dmarc",
          severity: "High",
          rule: "dmarc.external-auth-missing",
          message:
            'Reports go to example.org, outside example.com, but example.org does not authorise it: receivers drop these reports (RFC 9990 §3.2.3). example.org must publish TXT "v=DMARC1" at example.com._report._dmarc.example.org (or *._report._dmarc.example.org).',
          fix: 'example.com._report._dmarc.example.org TXT "v=DMARC1"',
        },
        {
          category: "mta_sts",
          severity: "High",
          rule: "mta_sts.no-policy-host",
          message: "mta-sts.example.com does not exist (no A or AAAA record): senders cannot fetch the policy, so there is none (RFC 8461 §3.3).",
          fix: "Publish mta-sts.example.com (A/AAAA or CNAME) serving https://mta-sts.example.com/.well-known/mta-sts.txt over HTTPS.",
        },
        {
          category: "dmarc",
          severity: "Medium",
          rule: "dmarc.report-domain-no-mx",
          message: "The report destination domain example.org has no usable MX records, so reports to it may bounce.",
          fix: null,
        },
        {
          category: "tls_rpt",
          severity: "Low",
          rule: "tls_rpt.without-mta-sts",
          message: "TLS-RPT without MTA-STS (or DANE) only reports; pair it with an MTA-STS policy.",
          fix: null,
        },
      ],
      plan: {
        score: 55,
        grade: "F",
        steps: [
          {
            id: "mta-sts",
            category: "mta_sts",
            title: "Serve an MTA-STS policy in testing mode, then announce it",
            why: "Serve this policy at https://mta-sts.example.com/.well-known/mta-sts.txt (text/plain, over HTTPS with a valid certificate for mta-sts.example.com) first, then publish the record (RFC 8461 §3.1-3.2, RFC 8460 §3).",
            gate: "decision",
            decision:
              "Serve the policy file at https://mta-sts.example.com/.well-known/mta-sts.txt before publishing the record (a web host or the service's hosting).",
            records: [{ host: "_mta-sts.example.com", type: "TXT", value: "v=STSv1; id=20261128120155", strings: ["v=STSv1; id=20261128120155"] }],
            remove: [],
            files: [
              {
                url: "https://mta-sts.example.com/.well-known/mta-sts.txt",
                content_type: "text/plain",
                body: "version: STSv1\r\nmode: testing\r\nmx: mx1.example.com\r\nmax_age: 604800\r\n",
              },
            ],
            closes: ["mta_sts.no-policy-host", "tls_rpt.without-mta-sts"],
            score_after: 71,
            grade_after: "C",
          },
        ],
        final: { score: 71, grade: "C" },
        blockers: [
          "Serve an MTA-STS policy in testing mode, then announce it: Serve the policy file at https://mta-sts.example.com/.well-known/mta-sts.txt before publishing the record (a web host or the service's hosting).",
          "High: Reports go to example.org, outside example.com, but example.org does not authorise it: receivers drop these reports (RFC 9990 §3.2.3).",
        ],
        unresolved: [
          {
            category: "dmarc",
            rule: "dmarc.external-auth-missing",
            severity: "High",
            message: "Reports go to example.org, outside example.com, but example.org does not authorise it: receivers drop these reports (RFC 9990 §3.2.3).",
          },
        ],
      },
      fixes: [],
      blacklist_details: {
        listed: [],
        unknown: [],
        clean: 8,
        cleared: [
          { list: "Spamhaus DBL", target: "example.com" },
          { list: "SURBL", target: "example.com" },
          { list: "URIBL", target: "example.com" },
          { list: "Spamhaus ZEN", target: "192.0.2.10" },
          { list: "SpamCop", target: "192.0.2.10" },
          { list: "PSBL", target: "192.0.2.10" },
          { list: "Mailspike", target: "192.0.2.10" },
          { list: "UCEPROTECT L1", target: "192.0.2.10" },
        ],
        checked: 8,
        skipped: [],
      },
      findings: [
        {
          rule: "dmarc.external-auth-missing",
          severity: "High",
          description:
            'Reports go to example.org, outside example.com, but example.org does not authorise it: receivers drop these reports (RFC 9990 §3.2.3). example.org must publish TXT "v=DMARC1" at example.com._report._dmarc.example.org (or *._report._dmarc.example.org).',
          fix: 'example.com._report._dmarc.example.org TXT "v=DMARC1"',
          category: "dmarc",
        },
        {
          rule: "dmarc.report-domain-no-mx",
          severity: "Medium",
          description: "The report destination domain example.org has no usable MX records, so reports to it may bounce.",
          fix: null,
          category: "dmarc",
        },
        { rule: "bimi.missing", severity: "Info", description: "No BIMI record: no brand logo is shown in supporting inboxes.", fix: null, category: "bimi" },
        {
          rule: "mta_sts.no-policy-host",
          severity: "High",
          description: "mta-sts.example.com does not exist (no A or AAAA record): senders cannot fetch the policy, so there is none (RFC 8461 §3.3).",
          fix: "Publish mta-sts.example.com (A/AAAA or CNAME) serving https://mta-sts.example.com/.well-known/mta-sts.txt over HTTPS.",
          category: "mta_sts",
        },
        {
          rule: "tls_rpt.without-mta-sts",
          severity: "Low",
          description: "TLS-RPT without MTA-STS (or DANE) only reports; pair it with an MTA-STS policy.",
          fix: null,
          category: "tls_rpt",
        },
      ],
      spf: {
        status: "pass-able",
        status_reason: "the record is valid and can produce pass",
        records_found: ["v=spf1 include:_spf.google.com -all"],
        lookups: {
          total: 1,
          limit: 10,
          truncated: false,
          by_term: [
            { term: "include:_spf.google.com", position: 7, lookups: 1, void_lookups: 0, dynamic: false, note: null, target: "_spf.google.com" },
            { term: "-all", position: 31, lookups: 0, void_lookups: 0, dynamic: false, note: null, target: null },
          ],
        },
        void_lookups: 0,
        tree: [
          { domain: "example.com", via: "root", depth: 0, parent: null, record: "v=spf1 include:_spf.google.com -all", lookups: 1, error: null },
          { domain: "_spf.google.com", via: "include", depth: 1, parent: "example.com", record: "v=spf1 ip4:203.0.113.0/24 -all", lookups: 0, error: null },
        ],
        networks: [{ cidr: "203.0.113.0/24", version: 4, domain: "_spf.google.com", term: "ip4:203.0.113.0/24" }],
        dynamic: [],
        temperror: null,
        suggested_record: null,
      },
      dmarc: {
        discovery: {
          status: "found",
          policy_domain: "example.com",
          org_domain: null,
          inherited: false,
          queries: 1,
          temperror: null,
          steps: [{ domain: "example.com", name: "_dmarc.example.com", result: "record", record: "v=DMARC1; p=reject; rua=mailto:dmarc@example.org" }],
        },
        tags: {
          p: "reject",
          sp: null,
          np: null,
          t: false,
          psd: "u",
          adkim: "r",
          aspf: "r",
          rua: ["mailto:dmarc@example.org"],
          ruf: [],
          fo: [],
          pct: null,
          rf: null,
          ri: null,
          effective: { p: "reject", sp: "reject", np: "reject" },
        },
        suggested_record: null,
      },
      mta_sts: { policy_text: null },
      queries: 26,
    },
  });

export const DomainQuery = z.object({
  domain: z.string().min(1).max(300).openapi({ example: "example.com", description: "Domain name; IDNs are converted to punycode." }),
  full: booleanQuery("1 or true: the complete analysis; 0, false or omitted: the summary."),
});
