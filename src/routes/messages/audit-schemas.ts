// OpenAPI schemas of POST /messages/audit, with an example. No I/O.
import { z } from "@hono/zod-openapi";
import { DkimVerification } from "../dkim/tools-schemas";
import { AUDIT_EXAMPLE } from "./audit-example";

export { AuditBody, AuditQuery } from "../../services/message-audit/inputs";

const SPF_RESULTS = ["pass", "fail", "softfail", "neutral", "none", "permerror", "temperror"] as const;
const POLICIES = ["none", "quarantine", "reject"] as const;
const SOURCES = ["input", "authentication-results", "received", "return-path", "none"] as const;

const EnvelopeValue = z.object({
  value: z.string().nullable(),
  source: z
    .enum(SOURCES)
    .openapi({ description: "Where the value came from: given, the trusted Authentication-Results, its Received field, Return-Path, or nowhere." }),
});

const SpfCheck = z.object({
  result: z.enum(SPF_RESULTS),
  domain: z.string(),
  sender: z.string(),
  mechanism: z.string().nullable().openapi({ description: 'The matching term, e.g. "ip4:192.0.2.0/24" or "-all".' }),
  decided_by: z.string().openapi({ description: "The domain whose record decided (an include or redirect target, or the start)." }),
  reason: z.string(),
  explanation: z.string().nullable(),
  lookups: z.number().int(),
  void_lookups: z.number().int(),
  path: z.array(
    z.object({ domain: z.string(), record: z.string().nullable(), via: z.string().nullable(), term: z.string().nullable(), result: z.enum(SPF_RESULTS) }),
  ),
});

const Alignment = z.enum(["aligned", "unaligned", "temperror", "not_applicable"]);

const Dmarc = z.object({
  result: z.enum(["pass", "fail", "none", "temperror", "permerror"]),
  from_domain: z.string().nullable(),
  organizational_domain: z.string().nullable().openapi({ description: "By the RFC 9989 DNS Tree Walk." }),
  policy: z
    .object({
      record: z.string(),
      domain: z.string().openapi({ description: "Where the record was found." }),
      inherited: z.boolean(),
      p: z.enum(POLICIES).nullable(),
      sp: z.enum(POLICIES).nullable(),
      np: z.enum(POLICIES).nullable(),
      adkim: z.enum(["r", "s"]),
      aspf: z.enum(["r", "s"]),
      pct: z.number().int().nullable(),
      t: z.boolean(),
    })
    .nullable(),
  policy_tag: z.enum(["p", "sp", "np"]).nullable(),
  spf: z.object({ domain: z.string().nullable(), spf_result: z.string(), alignment: Alignment }),
  dkim: z.array(z.object({ domain: z.string().nullable(), selector: z.string().nullable(), dkim_result: z.string(), alignment: Alignment })),
  disposition: z.enum(POLICIES).openapi({ description: "What a receiver applies: none (deliver), quarantine (spam folder) or reject." }),
  disposition_rule: z.string(),
  reason: z.string(),
});

const ArcSig = z.object({
  result: z.enum(["pass", "fail", "neutral", "permerror", "temperror", "not_checked", "missing"]),
  domain: z.string().nullable(),
  selector: z.string().nullable(),
  reason: z.string().optional(),
});

const Arc = z.object({
  result: z.enum(["none", "pass", "fail", "temperror"]),
  cv: z.enum(["none", "pass", "fail"]).nullable(),
  sets: z.array(
    z.object({
      instance: z.number().int(),
      ams: ArcSig,
      as: ArcSig.extend({ cv: z.string() }),
      aar: z.object({ authserv_id: z.string().nullable(), results: z.string() }),
    }),
  ),
  broken_at: z.number().int().nullable().openapi({ description: "The instance whose AMS or AS first failed: where the chain broke." }),
  oldest_pass: z.number().int().nullable(),
  reason: z.string().nullable(),
  warnings: z.array(z.string()),
  override: z.object({
    applicable: z.boolean(),
    sealer: z.string().nullable().openapi({ description: "AS d= of the oldest passing set: the sealer a receiver would have to trust." }),
    instance: z.number().int().nullable(),
    recorded: z
      .object({ authserv_id: z.string().nullable(), dmarc: z.string().nullable(), spf: z.string().nullable(), dkim: z.string().nullable() })
      .nullable(),
    result_if_trusted: z.enum(["pass", "fail"]).nullable(),
    disposition_if_trusted: z.enum(POLICIES).nullable(),
    explanation: z.string(),
  }),
});

const ProviderTable = z.object({
  provider: z.enum(["gmail", "yahoo", "microsoft"]),
  name: z.string(),
  source: z.object({ title: z.string(), url: z.string(), published: z.string() }),
  threshold: z.string(),
  rows: z.array(
    z.object({
      id: z.enum(["spf_pass", "dkim_pass", "dmarc_record", "dmarc_alignment", "fcrdns", "tls", "format", "one_click"]),
      label: z.string(),
      requirement: z.enum(["required", "recommended", "not_published"]),
      state: z.enum(["met", "not_met", "cannot_tell"]),
      detail: z.string(),
      fix: z.string().nullable(),
    }),
  ),
  failing: z.number().int().openapi({ description: "Required rows not met." }),
});

export const MessageAudit = z
  .object({
    envelope: z.object({
      ip: EnvelopeValue,
      helo: EnvelopeValue,
      mail_from: EnvelopeValue,
      trusted_authserv_id: z.string().nullable(),
      received_hop: z.string().nullable().openapi({ description: "The Received field the envelope and TLS were read from." }),
      notes: z.array(z.string()),
    }),
    spf: z.object({
      identity: z.enum(["mail_from", "helo"]).nullable(),
      result: z.enum([...SPF_RESULTS, "not_checked"]),
      domain: z.string().nullable(),
      mail_from: SpfCheck.nullable(),
      helo: SpfCheck.nullable(),
      reason: z.string().nullable(),
    }),
    dkim: DkimVerification,
    dmarc: Dmarc,
    arc: Arc,
    one_click: z.object({
      status: z.enum(["present", "absent", "invalid", "unsigned"]),
      list_unsubscribe: z.string().nullable(),
      list_unsubscribe_post: z.string().nullable(),
      https_uri: z.string().nullable(),
      signed_by: z.string().nullable(),
      problems: z.array(z.string()),
      fix: z.string().nullable(),
    }),
    reverse_dns: z
      .object({ result: z.enum(["pass", "fail", "temperror", "none"]), ptr: z.array(z.string()), confirmed: z.string().nullable(), reason: z.string() })
      .nullable(),
    tls: z.object({ used: z.boolean().nullable(), hop: z.string().nullable(), detail: z.string() }),
    format: z.object({ from_count: z.number().int(), message_id: z.boolean(), date: z.boolean(), ok: z.boolean(), problems: z.array(z.string()) }),
    marketing: z.object({ marketing: z.boolean().nullable(), evidence: z.array(z.string()) }),
    bimi: z.object({
      eligible: z.boolean().nullable(),
      record: z.string().nullable(),
      host: z.string().nullable(),
      status: z.enum(["present", "missing", "invalid", "temperror", "not_checked"]),
      dmarc_enforcing: z.boolean().nullable(),
      problems: z.array(z.string()),
      notes: z.array(z.string()),
    }),
    providers: z.array(ProviderTable),
    headers_only: z
      .boolean()
      .openapi({ description: "Only the header block was given: DKIM body hashes cannot be checked, and rows that depend on them say cannot tell." }),
    receiver_reported: z
      .record(z.string(), z.string())
      .nullable()
      .openapi({ description: "The results the trusted receiver's Authentication-Results recorded, by method (spf, dkim, dmarc...)." }),
    warnings: z.array(z.string()),
  })
  .openapi("MessageAudit", { example: AUDIT_EXAMPLE });
