// The audit log for agents (docs/audit.md): read only, and only for an owner or admin acting with a
// full-access grant or token (the same rule as REST, docs/decisions.md D233).
import { z } from "zod";
import { AUDIT_ACTOR_KINDS, AUDIT_FACES } from "../../db/schema";
import { listAuditEntries, VERB_FILTER } from "../../services/audit/read";
import { tool } from "../kit";

const instant = (what: string) => z.iso.datetime({ offset: true }).optional().describe(`${what} (RFC 3339, e.g. 2026-11-01T00:00:00Z).`);

export const auditTools = [
  tool({
    name: "list_audit_entries",
    title: "Who did what: the team's audit log",
    description:
      "The team's audit log newest first: every change through the dashboard, the REST API, agents and the operator, and every security event (sign-in, tokens, members, grants), each with seq, at, actor (kind, id, label: a member's address, 'token <name> (<prefix>)', an agent client and who granted it), face, verb, target, a summary of what changed (never a secret), client ip and user agent. Filter by actor, actor_kind, face, verb (or a family like 'domain.*'), target_type/target_id and time; page with before = meta.next_before. Owners and admins with a full-access credential only; others get a forbidden error.",
    input: z.object({
      actor: z.string().trim().min(1).max(320).optional().describe("A member's address, 'token <name> (<prefix>)', or an actor id."),
      actor_kind: z.enum(AUDIT_ACTOR_KINDS).optional(),
      face: z.enum(AUDIT_FACES).optional(),
      verb: z.string().max(100).regex(VERB_FILTER).optional().describe("One verb (domain.create) or a family (domain.*)."),
      target_type: z
        .string()
        .max(50)
        .regex(/^[a-z_]+$/)
        .optional()
        .describe("domain, token, member, webhook_endpoint..."),
      target_id: z.string().trim().min(1).max(200).optional(),
      from: instant("Only entries at or after this time"),
      to: instant("Only entries at or before this time"),
      limit: z.number().int().min(1).max(100).default(25).describe("Entries per page, 1 to 100 (default 25)."),
      before: z.number().int().min(1).optional().describe("meta.next_before of the previous page."),
    }),
    effect: "read",
    // Written by people and clients outside the team's control: a user agent, an agent client's chosen name, names typed into summaries.
    untrusted: ["[].actor.label", "[].summary", "[].user_agent"],
    run: async ({ svc, ctx }, { from, to, ...rest }) => {
      const { rows, next_before } = await listAuditEntries(svc, ctx, {
        ...rest,
        ...(from ? { from: new Date(from) } : {}),
        ...(to ? { to: new Date(to) } : {}),
      });
      return { data: rows, meta: { next_before } };
    },
  }),
];
