// OpenAPI component schemas of the DKIM inventory (docs/decisions.md D18).
import { z } from "@hono/zod-openapi";

const dateTime = z.string().nullable().openapi({ format: "date-time" });

export const FindingSchema = z
  .object({
    rule: z.string().openapi({ example: "dkim.key.weak" }),
    severity: z.enum(["Critical", "High", "Medium", "Low", "Info"]),
    description: z.string(),
    fix: z.string().nullable().openapi({ description: "Corrected record when the fix is mechanical." }),
  })
  .openapi("Finding");

export const DkimKeySchema = z
  .object({
    type: z.string().openapi({ example: "rsa" }),
    bits: z.number().int().nullable(),
    fingerprint: z.string().openapi({ description: "SHA-256 of the base64-decoded p= bytes, lower-case hex." }),
    testing: z.boolean(),
    first_seen_at: dateTime,
    age_days: z.number().int().nullable(),
    age_bucket: z.enum(["under_6_months", "over_6_months", "over_2_years"]).nullable(),
  })
  .openapi("DkimKey");

const ReportTotals = z.object({
  messages: z.number().int(),
  pass: z.number().int(),
  fail: z.number().int(),
  sources: z.array(z.string()).openapi({ description: "Sending IPs (up to 50)." }),
});

const HistoryEntry = z.object({
  fingerprint: z.string(),
  type: z.string(),
  bits: z.number().int().nullable(),
  record: z.string(),
  first_seen_at: dateTime,
  last_seen_at: dateTime,
  retired_at: dateTime,
  retired_reason: z.enum(["rotated", "revoked", "removed"]).nullable(),
});

export const DkimSelectorSchema = z
  .object({
    selector: z.string().openapi({ example: "selector1" }),
    host: z.string().openapi({ example: "selector1._domainkey.example.com" }),
    status: z.enum(["active", "invalid", "revoked", "missing", "pending"]),
    health: z.enum(["pass", "warning", "fail"]),
    source: z.enum(["discovered", "manual", "dmarc"]),
    provider: z.string().nullable(),
    delegated_to: z.string().nullable().openapi({ description: "First CNAME target of the selector host." }),
    key: DkimKeySchema.nullable(),
    record: z.string().nullable(),
    rotations: z.number().int(),
    issues: z.array(FindingSchema),
    first_seen_at: dateTime,
    last_seen_at: dateTime,
    missing_since: dateTime,
    last_report_at: dateTime,
    reports: ReportTotals.nullable().openapi({ description: "DMARC-report evidence for this selector in the window; null when none." }),
    history: z.array(HistoryEntry).openapi({ description: "One entry per key seen, newest first." }),
  })
  .openapi("DkimSelector", {
    example: {
      selector: "google",
      host: "google._domainkey.example.com",
      status: "active",
      health: "pass",
      source: "discovered",
      provider: "Google Workspace",
      delegated_to: null,
      key: {
        type: "ed25519",
        bits: 256,
        fingerprint: "e19a3817fd22b5ab60d88a04ebe6f0b9a9a06b6f177a8e5ea4976b63b99361df",
        testing: false,
        first_seen_at: "2026-11-24T23:38:52.900Z",
        age_days: 0,
        age_bucket: "under_6_months",
      },
      record: "v=DKIM1; k=ed25519; p=LA6OBlo9ZRzE2Jtgmy5n2pJK1PbUPKcBjMm0G2jDk3U=",
      rotations: 0,
      issues: [],
      first_seen_at: "2026-11-24T23:38:52.900Z",
      last_seen_at: "2026-11-24T23:38:52.900Z",
      missing_since: null,
      last_report_at: "2026-11-23T23:59:59.000Z",
      reports: { messages: 120, pass: 120, fail: 0, sources: ["209.85.220.41"] },
      history: [
        {
          fingerprint: "e19a3817fd22b5ab60d88a04ebe6f0b9a9a06b6f177a8e5ea4976b63b99361df",
          type: "ed25519",
          bits: 256,
          record: "v=DKIM1; k=ed25519; p=LA6OBlo9ZRzE2Jtgmy5n2pJK1PbUPKcBjMm0G2jDk3U=",
          first_seen_at: "2026-11-24T23:38:52.900Z",
          last_seen_at: "2026-11-24T23:38:52.900Z",
          retired_at: null,
          retired_reason: null,
        },
      ],
    },
  });

const Summary = z.object({
  selectors: z.number().int(),
  active: z.number().int(),
  invalid: z.number().int(),
  revoked: z.number().int(),
  missing: z.number().int(),
  pending: z.number().int(),
  health: z.object({ pass: z.number().int(), warning: z.number().int(), fail: z.number().int() }),
  rotations_in_window: z.number().int(),
  oldest_key_days: z.number().int().nullable().openapi({ description: "Age of the oldest active key." }),
  stale_keys: z.number().int().openapi({ description: "Active keys published 180 days or longer." }),
  age_buckets: z.object({ under_6_months: z.number().int(), over_6_months: z.number().int(), over_2_years: z.number().int() }),
  messages_in_window: z.number().int().openapi({ description: "DKIM-signed messages in DMARC reports in the window." }),
});

const Signer = ReportTotals.extend({
  domain: z.string().openapi({ description: "DKIM d= domain seen in DMARC reports." }),
  aligned: z.boolean().openapi({ description: "Relaxed alignment with the domain (same name or a parent/subdomain)." }),
});

export const DkimOverviewSchema = z
  .object({
    domain: z.string(),
    days: z.number().int(),
    summary: Summary,
    selectors: z.array(DkimSelectorSchema),
    signers: z.array(Signer),
    findings: z.array(FindingSchema),
  })
  .openapi("DkimOverview", {
    example: {
      domain: "example.com",
      days: 30,
      summary: {
        selectors: 1,
        active: 1,
        invalid: 0,
        revoked: 0,
        missing: 0,
        pending: 0,
        health: { pass: 1, warning: 0, fail: 0 },
        rotations_in_window: 0,
        oldest_key_days: 0,
        stale_keys: 0,
        age_buckets: { under_6_months: 1, over_6_months: 0, over_2_years: 0 },
        messages_in_window: 123,
      },
      selectors: [
        {
          selector: "google",
          host: "google._domainkey.example.com",
          status: "active",
          health: "pass",
          source: "discovered",
          provider: "Google Workspace",
          delegated_to: null,
          key: {
            type: "ed25519",
            bits: 256,
            fingerprint: "e19a3817fd22b5ab60d88a04ebe6f0b9a9a06b6f177a8e5ea4976b63b99361df",
            testing: false,
            first_seen_at: "2026-11-24T23:38:52.900Z",
            age_days: 0,
            age_bucket: "under_6_months",
          },
          record: "v=DKIM1; k=ed25519; p=LA6OBlo9ZRzE2Jtgmy5n2pJK1PbUPKcBjMm0G2jDk3U=",
          rotations: 0,
          issues: [],
          first_seen_at: "2026-11-24T23:38:52.900Z",
          last_seen_at: "2026-11-24T23:38:52.900Z",
          missing_since: null,
          last_report_at: "2026-11-23T23:59:59.000Z",
          reports: { messages: 120, pass: 120, fail: 0, sources: ["209.85.220.41"] },
          history: [
            {
              fingerprint: "e19a3817fd22b5ab60d88a04ebe6f0b9a9a06b6f177a8e5ea4976b63b99361df",
              type: "ed25519",
              bits: 256,
              record: "v=DKIM1; k=ed25519; p=LA6OBlo9ZRzE2Jtgmy5n2pJK1PbUPKcBjMm0G2jDk3U=",
              first_seen_at: "2026-11-24T23:38:52.900Z",
              last_seen_at: "2026-11-24T23:38:52.900Z",
              retired_at: null,
              retired_reason: null,
            },
          ],
        },
      ],
      signers: [
        { domain: "example.com", aligned: true, messages: 120, pass: 120, fail: 0, sources: ["209.85.220.41"] },
        { domain: "spammer.example", aligned: false, messages: 3, pass: 0, fail: 3, sources: ["203.0.113.5"] },
      ],
      findings: [],
    },
  });

export const DomainParam = z.object({
  domain: z.coerce
    .number()
    .int()
    .positive()
    .openapi({ param: { name: "domain", in: "path" }, description: "Domain id.", example: 1 }),
});

export const SelectorParam = DomainParam.extend({
  selector: z
    .string()
    .min(1)
    .max(253)
    .openapi({ param: { name: "selector", in: "path" }, example: "selector1" }),
});

export { DaysQuery } from "../../services/dkim-inventory/inputs";
