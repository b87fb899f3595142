// The audit log's query and response schemas (docs/audit.md), shared by the list and the export.
import { z } from "@hono/zod-openapi";
import { AUDIT_ACTOR_KINDS, AUDIT_FACES } from "../../db/schema";
import { VERB_FILTER } from "../../services/audit/read";

const instant = (description: string, example: string) =>
  z.iso
    .datetime({ offset: true })
    .transform((v) => new Date(v))
    .optional()
    .openapi({ type: "string", format: "date-time", description, example });

export const AuditFilterQuery = z.object({
  actor: z
    .string()
    .trim()
    .min(1)
    .max(320)
    .optional()
    .openapi({ description: 'Who: a member\'s address, a token as "token <name> (<prefix>)", or an actor id (as in actor.id).', example: "alice@example.com" }),
  actor_kind: z.enum(AUDIT_ACTOR_KINDS).optional().openapi({ description: "Only entries by this kind of actor." }),
  face: z.enum(AUDIT_FACES).optional().openapi({ description: "Only entries made through this face." }),
  verb: z
    .string()
    .max(100)
    .regex(VERB_FILTER, 'A verb ("domain.create") or a family ("domain.*").')
    .optional()
    .openapi({ description: 'One verb ("domain.create") or a family of verbs ("domain.*"); docs/audit.md lists them.', example: "domain.*" }),
  target_type: z
    .string()
    .max(50)
    .regex(/^[a-z_]+$/, "Lowercase letters and underscores.")
    .optional()
    .openapi({ description: "The kind of thing changed (domain, token, member, webhook_endpoint...).", example: "domain" }),
  target_id: z.string().trim().min(1).max(200).optional().openapi({ description: "The id of the thing changed (with target_type).", example: "13" }),
  from: instant("Only entries at or after this time (RFC 3339).", "2026-11-01T00:00:00Z"),
  to: instant("Only entries at or before this time (RFC 3339).", "2026-11-30T23:59:59Z"),
});

export const AuditListQuery = AuditFilterQuery.extend({
  limit: z.coerce.number().int().min(1).max(200).default(50).openapi({ description: "Entries per page, 1 to 200.", example: 50 }),
  before: z.coerce
    .number()
    .int()
    .min(1)
    .optional()
    .openapi({ description: "A seq: only older entries (meta.next_before of the previous page).", example: 120 }),
});

export const AuditEntry = z
  .object({
    seq: z.number().int().openapi({ description: "1, 2, 3... per team, in the order the changes committed." }),
    at: z.string().openapi({ format: "date-time" }),
    actor: z.object({
      kind: z.enum(AUDIT_ACTOR_KINDS),
      id: z.string().openapi({ description: 'A user id, a token id, "user:<id>" for an agent grant, "operator" or "system".' }),
      label: z.string().openapi({ description: 'What a person reads: the member\'s address, "token <name> (<prefix>)", the agent client and who granted it.' }),
    }),
    face: z.enum(AUDIT_FACES),
    verb: z.string().openapi({ example: "domain.create" }),
    target: z.object({ type: z.string(), id: z.string().nullable() }).nullable(),
    summary: z.string().openapi({ description: "What changed, never a secret." }),
    ip: z.string().nullable().openapi({ description: "The client's address (CF-Connecting-IP); null for scheduled work." }),
    user_agent: z.string().nullable(),
    hash: z.string().nullable().openapi({ description: "SHA-256 chain hash, hex; null until sealed (moments after the change)." }),
  })
  .openapi("AuditEntry", {
    example: {
      seq: 42,
      at: "2026-11-28T17:05:12.345Z",
      actor: { kind: "member", id: "7", label: "alice@example.com" },
      face: "dashboard",
      verb: "domain.create",
      target: { type: "domain", id: "13" },
      summary: "added example.com",
      ip: "203.0.113.9",
      user_agent: "Mozilla/5.0 (X11; Linux x86_64)",
      hash: "2c7c5832615278a3f0ac1500df7b02432cbee91f6c2fffa19739caa0433979d3",
    },
  });

export const AuditListMeta = z
  .object({ next_before: z.number().int().nullable().openapi({ description: "Pass as `before` for the next (older) page; null on the last page." }) })
  .openapi("AuditListMeta");

export const AuditVerification = z
  .object({
    ok: z.boolean(),
    checked: z.number().int().openapi({ description: "Sealed entries whose hash was recomputed and matched." }),
    anchor: z
      .object({ seq: z.number().int(), hash: z.string() })
      .openapi({ description: "Where the chain starts: retention removed entries up to seq; hash is the last removed one's (64 zeros when none)." }),
    head: z
      .object({ sealed_seq: z.number().int(), hash: z.string() })
      .openapi({ description: "The last sealed entry and its hash: keep it to prove later that the log still extends it." }),
    unsealed: z.number().int().openapi({ description: "Entries written after the head, waiting to be sealed (normally 0)." }),
    problem: z
      .object({
        seq: z.number().int(),
        reason: z.enum(["altered", "gap", "unsealed_inside", "head_mismatch"]),
        message: z.string(),
      })
      .nullable()
      .openapi({ description: "The first problem in seq order; null when ok." }),
  })
  .openapi("AuditVerification", {
    example: {
      ok: false,
      checked: 41,
      anchor: { seq: 0, hash: "0000000000000000000000000000000000000000000000000000000000000000" },
      head: { sealed_seq: 57, hash: "27ba05b19f7ae51e89a4997811e50851d1b9366b323d3c99948b9cff7bfcb537" },
      unsealed: 0,
      problem: { seq: 42, reason: "altered", message: "Entry 42 does not match its hash: it was changed after it was sealed, or its hash was." },
    },
  });
