// The audit log over REST (docs/audit.md): list with filters and a cursor, the NDJSON export, and the chain
// verified. Owners and admins only: a full-access token reads it, a read-only token gets 403 (D233).
import { createRoute, z } from "@hono/zod-openapi";
import { createRouter } from "../../app-router";
import { AUTH_ERRORS, BEARER, dataOf, errorResponses, jsonContent, rateHeaders } from "../../lib/openapi";
import { exportAuditEntries, listAuditEntries, verifyAuditChain } from "../../services/audit/read";
import { AuditEntry, AuditFilterQuery, AuditListMeta, AuditListQuery, AuditVerification } from "./schemas";

const tags = ["Audit log"];
const security = BEARER;
const ERRORS = errorResponses(...AUTH_ERRORS, 403, 422);

const list = createRoute({
  method: "get",
  path: "/audit",
  tags,
  security,
  operationId: "listAuditEntries",
  summary: "Who did what: the team's audit log, newest first",
  description:
    "Every change through any face (REST, dashboard, agent, operator) and every security event, with its actor, face, client address and a summary. Filter by actor, verb (or family `domain.*`), target and time; page with `before` = meta.next_before (a cursor: entries written meanwhile never shift a page). Owners and admins only: a read-only token gets 403.",
  request: { query: AuditListQuery },
  responses: { 200: jsonContent(z.object({ data: z.array(AuditEntry), meta: AuditListMeta }), "A page of entries."), ...ERRORS },
});

const exportRoute = createRoute({
  method: "get",
  path: "/audit/export",
  tags,
  security,
  operationId: "exportAuditEntries",
  summary: "The audit log as NDJSON, oldest first",
  description:
    "The entries matching the same filters as the list, oldest first, one AuditEntry JSON object per line (application/x-ndjson), streamed; each line carries its chain hash, so the export can be checked offline (docs/audit.md).",
  request: { query: AuditFilterQuery },
  responses: {
    200: {
      description: "One AuditEntry per line.",
      headers: {
        ...rateHeaders,
        "Content-Disposition": { schema: { type: "string" as const }, description: 'attachment; filename="audit-<team>-<date>.ndjson"' },
      },
      content: { "application/x-ndjson": { schema: z.string().openapi({ description: "Lines of AuditEntry JSON." }) } },
    },
    ...ERRORS,
  },
});

const verify = createRoute({
  method: "get",
  path: "/audit/verify",
  tags,
  security,
  operationId: "verifyAuditChain",
  summary: "Prove no entry was altered or removed",
  description:
    "Recomputes the hash chain from its anchor (where retention last removed entries) to the head: ok, how many entries were checked, and the first altered entry, missing seq (gap) or head mismatch. Entries written moments ago and not sealed yet are counted in `unsealed`.",
  responses: { 200: jsonContent(dataOf(AuditVerification), "The verification."), ...errorResponses(...AUTH_ERRORS, 403) },
});

export const auditRoutes = () =>
  createRouter()
    .openapi(list, async (c) => {
      const { rows, next_before } = await listAuditEntries(c.get("services"), c.get("ctx"), c.req.valid("query"));
      return c.json({ data: rows, meta: { next_before } }, 200);
    })
    .openapi(exportRoute, async (c) => {
      const ctx = c.get("ctx");
      const stream = exportAuditEntries(c.get("services"), ctx, c.req.valid("query"));
      const day = new Date().toISOString().slice(0, 10);
      // A stream, which the typed responses of @hono/zod-openapi do not model (they know JSON and text).
      return c.body(stream, 200, {
        "Content-Type": "application/x-ndjson; charset=utf-8",
        "Content-Disposition": `attachment; filename="audit-${ctx.teamId}-${day}.ndjson"`,
        "Cache-Control": "no-store",
      }) as never;
    })
    .openapi(verify, async (c) => c.json({ data: await verifyAuditChain(c.get("services"), c.get("ctx")) }, 200));
