// OpenAPI schemas of GET /intel/domain: the summary and the complete (full=1) analysis.
import { z } from "@hono/zod-openapi";
import { booleanQuery } from "../query";

const Status = z
  .enum(["present", "missing", "invalid", "temperror"])
  .openapi({ description: "temperror: DNS could not answer now; the part is unknown, never missing." });
const Severity = z.enum(["Critical", "High", "Medium", "Low", "Info"]);
const Category = z.enum(["spf", "dmarc", "dkim", "mx", "mta_sts", "tls_rpt", "bimi", "blacklist"]);

export const IntelRecord = z
  .object({
    status: Status,
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

const records = {
  spf: IntelRecord,
  dmarc: IntelRecord,
  bimi: IntelRecord,
  mta_sts: IntelRecord,
  tls_rpt: IntelRecord,
  mx: IntelRecord,
};

export const IntelDomainSummary = z
  .object({
    view: z.literal("summary").openapi({ description: "Which shape this is: the summary, or with full=1 the complete analysis." }),
    domain: z.string(),
    score: z.number().int().nullable(),
    grade: z.enum(["A+", "A", "B", "C", "D", "F"]).nullable(),
    dmarc_policy: z.enum(["none", "quarantine", "reject"]).nullable(),
    records: z.object(records),
    blacklists: IntelBlacklistSummary,
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
      records: {
        spf: { status: "present", record: "v=spf1 include:_spf.google.com -all" },
        dmarc: { status: "present", record: "v=DMARC1; p=reject; rua=mailto:dmarc@example.com" },
        bimi: { status: "missing", record: null },
        mta_sts: { status: "present", record: "v=STSv1; id=20261101" },
        tls_rpt: { status: "present", record: "v=TLSRPTv1; rua=mailto:tls@example.com" },
        mx: { status: "present", record: "10 mx1.example.com" },
      },
      blacklists: { status: "clean", checked: 8, unknown: 0, listed: [] },
      recommendations: [],
      fixes: [],
    },
  });

const MxHost = z.object({
  host: z.string(),
  preference: z.number().int(),
  status: z.enum(["ok", "unresolvable", "temperror", "ip-literal"]),
  cname: z.array(z.string()),
  ipv4: z.array(z.string()),
  ipv6: z.array(z.string()),
});

export const FullRecords = z
  .object({
    spf: IntelRecord.extend({ host: z.string(), lookups: z.number().int() }),
    dmarc: IntelRecord.extend({ host: z.string(), policy: z.enum(["none", "quarantine", "reject"]).nullable(), inherited: z.boolean() }),
    bimi: IntelRecord.extend({ host: z.string(), declined: z.boolean(), logo: z.string().nullable(), authority: z.string().nullable() }),
    mta_sts: IntelRecord.extend({
      host: z.string(),
      id: z.string().nullable(),
      policy: z.object({
        status: z.enum(["valid", "invalid", "temperror", "not-fetched"]),
        url: z.string(),
        failure: z.enum(["no_policy_host", "private_address", "unreachable", "http_error", "invalid_policy"]).nullable().optional().openapi({
          description:
            "Why there is no valid policy: the policy host does not exist, resolves to a private address (never fetched), cannot be reached, answers an HTTP error, or serves an invalid policy.",
        }),
        mode: z.enum(["enforce", "testing", "none"]).nullable(),
        max_age: z.number().int().nullable(),
        mx: z.array(z.string()),
      }),
      coverage: z
        .array(z.object({ host: z.string(), covered: z.boolean() }))
        .openapi({ description: "Each live MX host and whether a policy mx pattern covers it." }),
    }),
    tls_rpt: IntelRecord.extend({ host: z.string(), rua: z.array(z.string()) }),
    mx: IntelRecord.extend({ host: z.string(), null_mx: z.boolean(), hosts: z.array(MxHost) }),
  })
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

export const IntelDomainFull = IntelDomainSummary.extend({
  view: z.literal("full"),
  records: FullRecords,
  blacklist_details: BlacklistDetails,
  findings: z.array(IntelFinding),
  spf: SpfDetail,
  dmarc: DmarcDetail,
  mta_sts: z.object({ policy_text: z.string().nullable() }),
  queries: z.number().int().openapi({ description: "DNS queries sent for this analysis." }),
  // The summary's example does not describe this shape, so it is not inherited.
}).openapi("IntelDomainAnalysis", { example: undefined });

export const DomainQuery = z.object({
  domain: z.string().min(1).max(300).openapi({ example: "example.com", description: "Domain name; IDNs are converted to punycode." }),
  full: booleanQuery("1 or true: the complete analysis; 0, false or omitted: the summary."),
});
