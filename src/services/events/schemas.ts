// The data schema of every webhook event (docs/events.md), in zod: the one source for the OpenAPI
// document's `webhooks` section and the delivery payload type; test/services/event-schemas.test.ts
// checks every emitted event against them. No I/O.
import { z } from "zod";
import type { API_VERSION, EventType } from "./emit";

const DomainRef = z.object({ id: z.number().int(), name: z.string() }).describe("The domain the event is about.");
const iso = () => z.string().describe("ISO 8601 timestamp.");
const Severity = z.enum(["Info", "Low", "Medium", "High", "Critical"]);
const PartStatus = z.string().describe("present, missing or invalid (stale parts never produce an event).");

const Change = z.object({
  category: z.string().describe("spf, dmarc, dkim, bimi, mta_sts, tls_rpt, mx, blacklist, ..."),
  field: z.string(),
  before: z.unknown(),
  after: z.unknown(),
  severity: Severity,
});

const domainEvent = <T extends z.ZodRawShape>(shape: T) => z.object({ domain: DomainRef, ...shape });
const selectorEvent = <T extends z.ZodRawShape>(shape: T) => domainEvent({ selector: z.string(), ...shape });
const KeyType = z.enum(["rsa", "ed25519"]).nullable();

export const EVENT_DATA = {
  "domain.created": domainEvent({}),
  "domain.verified": domainEvent({ verified_at: iso(), check_id: z.string().describe("The first check, already queued.") }),
  "domain.deleted": domainEvent({}),
  "domain.unverified": domainEvent({
    missing_since: iso().describe("The first daily re-check that found the ownership record gone."),
    record: z.object({ host: z.string(), type: z.literal("TXT"), value: z.string() }).describe("The record to publish again, then verify."),
  }),
  "check.completed": domainEvent({
    check: z.object({
      id: z.string(),
      status: z.enum(["completed", "failed"]),
      trigger: z.enum(["scheduled", "manual", "verify"]),
      score: z.number().int().nullable(),
      grade: z.string().nullable(),
      previous_score: z.number().int().nullable(),
      previous_grade: z.string().nullable(),
      dmarc_policy: z.string().nullable(),
      stale_parts: z.array(z.string()).describe("Parts whose lookup failed; their last good value was carried over."),
      changes: z.number().int().describe("Number of diffs this check found."),
      created_at: iso(),
      error: z.string().optional().describe("Why a failed check failed (status failed only)."),
    }),
  }),
  "posture.changed": domainEvent({ check_id: z.string(), changes: z.array(Change) }),
  "dns.record.changed": domainEvent({
    check_id: z.string(),
    record_type: z.string().describe("spf, dmarc, bimi, mta_sts, tls_rpt, dane or mx."),
    host: z.string().nullable(),
    before: z.string().nullable(),
    after: z.string().nullable(),
    status_before: PartStatus.nullable(),
    status_after: PartStatus.nullable(),
    changes: z.array(Change),
  }),
  "blacklist.listed": domainEvent({ check_id: z.string(), list: z.string(), target: z.string().describe("IP address or domain.") }),
  "blacklist.delisted": domainEvent({ check_id: z.string(), list: z.string(), target: z.string() }),
  "alert.created": z.object({
    domain: DomainRef.optional(),
    alert: z.object({ id: z.number().int(), kind: z.string(), subject: z.string(), severity: Severity, title: z.string(), body: z.string().nullable() }),
  }),
  "alert.resolved": z.object({
    domain: DomainRef.optional(),
    alert: z.object({ id: z.number().int(), kind: z.string(), subject: z.string(), severity: Severity, title: z.string(), resolved_at: iso() }),
  }),
  "dkim.selector.added": selectorEvent({
    source: z.enum(["discovered", "manual", "dmarc"]),
    status: z.string().describe("active, invalid or revoked."),
    fingerprint: z.string().nullable(),
    type: KeyType,
    bits: z.number().int().nullable(),
    provider: z.string().nullable(),
    delegated_to: z.string().nullable(),
  }),
  "dkim.selector.removed": selectorEvent({ fingerprint: z.string().nullable(), last_seen_at: iso().nullable() }),
  "dkim.key.rotated": selectorEvent({
    old_fingerprint: z.string().nullable(),
    new_fingerprint: z.string().nullable(),
    type: KeyType,
    bits: z.number().int().nullable(),
  }),
  "dkim.key.revoked": selectorEvent({ fingerprint: z.string().nullable() }),
  "dkim.record.changed": selectorEvent({
    fingerprint: z.string().nullable(),
    old_record: z.string().nullable(),
    new_record: z.string().nullable(),
    old_status: z.string().nullable(),
    new_status: z.string().nullable(),
  }),
  "dkim.key.stale": selectorEvent({
    fingerprint: z.string().nullable(),
    age_days: z.number().int().nullable(),
    first_seen_at: iso().nullable(),
    threshold_days: z.number().int(),
  }),
  "dmarc.report.received": domainEvent({
    report: z.object({ org_name: z.string(), report_id: z.string(), begin: iso(), end: iso(), messages: z.number().int(), records: z.number().int() }),
  }),
  "tlsrpt.report.received": domainEvent({
    report: z.object({
      org_name: z.string(),
      report_id: z.string(),
      begin: iso(),
      end: iso(),
      successful: z.number().int().describe("Successful TLS sessions, all policies."),
      failed: z.number().int().describe("Failed TLS sessions, all policies."),
      policies: z.array(z.enum(["sts", "tlsa", "no-policy-found"])).describe("The policy type of each policy the report covers."),
      via: z.enum(["https", "email"]),
    }),
  }),
  "webhook.test": z.object({ webhook: z.object({ id: z.number().int(), url: z.string() }), message: z.string() }),
} satisfies Record<EventType, z.ZodType>;

/** An event as delivered: the envelope around one type's data. */
export type EventPayload = {
  [K in EventType]: { id: string; type: K; api_version: typeof API_VERSION; timestamp: string; data: z.infer<(typeof EVENT_DATA)[K]> };
}[EventType];
