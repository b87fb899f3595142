// OpenAPI schemas of the Domains resource (docs/decisions.md D6).
import { z } from "@hono/zod-openapi";
import { RemediationPlan } from "../intel/plan-schema";
import { BlacklistDetails, FullRecords } from "../intel/domain-schemas";

const ts = (description: string) => z.string().nullable().openapi({ format: "date-time", description });
const SEVERITY = z.enum(["Critical", "High", "Medium", "Low", "Info"]);

export const DomainParams = z.object({
  domain: z.coerce
    .number()
    .int()
    .positive()
    .openapi({ param: { name: "domain", in: "path" }, description: "Domain id.", example: 1 }),
});

export const Domain = z
  .object({
    id: z.number().int().openapi({ example: 1 }),
    name: z.string().openapi({ example: "example.com" }),
    client: z.string().nullable().openapi({ description: "Client label (the client_id given on creation)." }),
    verified: z.boolean(),
    verified_at: ts("When ownership was proven."),
    score: z.number().int().nullable().openapi({ example: 87 }),
    grade: z.string().nullable().openapi({ example: "B" }),
    dmarc_policy: z.string().nullable().openapi({ example: "quarantine" }),
    last_checked_at: ts("Last completed check."),
    next_check_at: ts("When the scheduler next checks the domain (null until verified)."),
    registration_expires_at: ts("Registration expiry from RDAP, when known."),
    created_at: ts("When the domain was added."),
  })
  .openapi("Domain", {
    example: {
      id: 1,
      name: "example.com",
      client: null,
      verified: true,
      verified_at: "2026-11-20T09:00:00.000Z",
      score: 87,
      grade: "B",
      dmarc_policy: "quarantine",
      last_checked_at: "2026-11-24T08:00:00.000Z",
      next_check_at: "2026-11-24T14:00:00.000Z",
      registration_expires_at: "2027-06-01T00:00:00.000Z",
      created_at: "2026-11-20T08:55:00.000Z",
    },
  });

export const Verification = z
  .object({
    host: z.string().openapi({ example: "_emailauth-verify.example.com" }),
    type: z.literal("TXT"),
    value: z.string().openapi({ example: "emailauth-verify=3hT9..." }),
  })
  .openapi("DomainVerificationRecord");

export const CreatedDomain = Domain.extend({
  verification: Verification,
  dmarc_report_address: z.string().openapi({ example: "k3j2h1@reports.emailauth.example", description: "Put `mailto:` + this address in the DMARC rua tag." }),
}).openapi("CreatedDomain", {
  example: {
    ...{
      id: 1,
      name: "example.com",
      client: null,
      verified: true,
      verified_at: "2026-11-20T09:00:00.000Z",
      score: 87,
      grade: "B",
      dmarc_policy: "quarantine",
      last_checked_at: "2026-11-24T08:00:00.000Z",
      next_check_at: "2026-11-24T14:00:00.000Z",
      registration_expires_at: "2027-06-01T00:00:00.000Z",
      created_at: "2026-11-20T08:55:00.000Z",
    },
    verified: false,
    verified_at: null,
    score: null,
    grade: null,
    dmarc_policy: null,
    last_checked_at: null,
    next_check_at: null,
    verification: { host: "_emailauth-verify.example.com", type: "TXT", value: "emailauth-verify=3hT9xQ2aLm4Pz8Rk1Vn6Bw0Ys5Cd7Ef9" },
    dmarc_report_address: "k3j2h1q9z8x7w6v5u4t3@reports.emailauth.example",
  },
});

const Finding = z
  .object({
    rule: z.string(),
    severity: SEVERITY,
    description: z.string(),
    fix: z.string().nullable(),
    category: z.string(),
  })
  .openapi("PostureFinding");

export const DomainDetail = CreatedDomain.extend({
  posture: z
    .object({
      check_id: z.string(),
      checked_at: ts("When the check ran."),
      stale_parts: z.array(z.string()).openapi({
        description: "Parts whose lookup failed (temperror) in this check: their values are carried over from the last good check and marked `stale: true`.",
      }),
      records: FullRecords.partial().openapi({
        description: "Each part's record as the check stored it; a part the service added after this check ran is absent.",
      }),
      blacklists: BlacklistDetails,
      findings: z.array(Finding),
    })
    .nullable()
    .openapi({ description: "The latest completed check; null before the first one." }),
  plan: RemediationPlan.nullable().openapi({ description: "The remediation plan of the latest check; null before the first one." }),
  recommendations: z.array(
    z.object({
      category: z.string(),
      severity: SEVERITY,
      rule: z.string(),
      message: z.string(),
      fix: z.string().nullable(),
    }),
  ),
  fixes: z
    .array(
      z.object({
        host: z.string(),
        type: z.enum(["TXT", "MX", "CNAME"]),
        value: z.string(),
        reason: z.string(),
      }),
    )
    .openapi({ description: "The exact records to publish." }),
}).openapi("DomainDetail", {
  // A domain before its first check (posture null); after one, posture holds the typed records.
  example: {
    ...{
      id: 1,
      name: "example.com",
      client: null,
      verified: false,
      verified_at: null,
      score: null,
      grade: null,
      dmarc_policy: null,
      last_checked_at: null,
      next_check_at: null,
      registration_expires_at: null,
      created_at: "2026-11-20T08:55:00.000Z",
    },
    verification: { host: "_emailauth-verify.example.com", type: "TXT", value: "emailauth-verify=3hT9xQ2aLm4Pz8Rk1Vn6Bw0Ys5Cd7Ef9" },
    dmarc_report_address: "k3j2h1q9z8x7w6v5u4t3@reports.emailauth.example",
    posture: null,
    plan: null,
    recommendations: [],
    fixes: [],
  },
});

export { CreateDomainBody } from "../../services/domains/inputs";

export const VerifyResult = z
  .object({
    verified: z.boolean(),
    domain: Domain,
    checked_at: z.string().openapi({ format: "date-time" }),
    record_found: z
      .boolean()
      .nullable()
      .openapi({ description: "Whether any TXT record exists at the ownership host; null when the domain was already verified." }),
    reason: z.string().openapi({ example: "no TXT record at _emailauth-verify.example.com" }),
  })
  .openapi("DomainVerification", {
    example: {
      verified: true,
      domain: {
        id: 1,
        name: "example.com",
        client: null,
        verified: true,
        verified_at: "2026-11-20T09:00:00.000Z",
        score: 87,
        grade: "B",
        dmarc_policy: "quarantine",
        last_checked_at: "2026-11-24T08:00:00.000Z",
        next_check_at: "2026-11-24T14:00:00.000Z",
        registration_expires_at: "2027-06-01T00:00:00.000Z",
        created_at: "2026-11-20T08:55:00.000Z",
      },
      checked_at: "2026-11-20T09:00:00.000Z",
      record_found: true,
      reason: "ownership record found",
    },
  });

export const QueuedCheck = z
  .object({
    check_id: z.string().openapi({ example: "chk_7YxS0m7q2oM3c9kQw1ZtVb5n" }),
    status: z.literal("queued"),
  })
  .openapi("QueuedCheck", { example: { check_id: "chk_7YxS0m7q2oM3c9kQw1ZtVb5n", status: "queued" } });

export const CheckRecord = z
  .object({
    id: z.string(),
    status: z.enum(["completed", "failed"]),
    trigger: z.enum(["scheduled", "manual", "verify"]),
    score: z.number().int().nullable(),
    grade: z.string().nullable(),
    dmarc_policy: z.string().nullable(),
    stale_parts: z.array(z.string()),
    queries: z.number().int().openapi({ description: "DNS queries sent." }),
    duration_ms: z.number().int().nullable(),
    error: z.string().nullable(),
    created_at: ts("When the check ran."),
  })
  .openapi("CheckRecord", {
    example: {
      id: "chk_7YxS0m7q2oM3c9kQw1ZtVb5n",
      status: "completed",
      trigger: "scheduled",
      score: 87,
      grade: "B",
      dmarc_policy: "quarantine",
      stale_parts: [],
      queries: 38,
      duration_ms: 412,
      error: null,
      created_at: "2026-11-24T08:00:00.000Z",
    },
  });

export const DiffRecord = z
  .object({
    id: z.number().int(),
    check_id: z.string(),
    category: z.string().openapi({ example: "dmarc" }),
    field: z
      .string()
      .openapi({ example: "p", description: "`status`, `record`, a parsed field, a blocklist `list:target`, or `selector:<name>` for DKIM keys." }),
    before: z.string().nullable(),
    after: z.string().nullable(),
    severity: SEVERITY,
    created_at: ts("When the change was found."),
  })
  .openapi("DiffRecord", {
    example: {
      id: 91,
      check_id: "chk_7YxS0m7q2oM3c9kQw1ZtVb5n",
      category: "dmarc",
      field: "p",
      before: "reject",
      after: "none",
      severity: "High",
      created_at: "2026-11-24T08:00:00.000Z",
    },
  });
