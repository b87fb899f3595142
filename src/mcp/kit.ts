// The tool kit of the agent endpoint (docs/decisions.md D40-D42): every tool call is counted against the
// team's limits through the same verb as REST, a write tool refuses a read-only credential with a tool
// error that says so, and every failure (validation, not found, limits, DNS) comes back as a tool error
// carrying the API's {code, message} instead of a protocol error, so a model can read it and adapt.
import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import type { z } from "zod";
import { ApiError, type ErrorCode, type FieldErrors } from "../lib/errors";
import type { Services } from "../services";
import type { ServiceContext, TeamFacts } from "../services/context";
import { countCall, refusalMessage } from "../services/teams/bearer";

/** Who is calling, as every verb sees it: the same ServiceContext a REST request builds. */
export interface AgentCall {
  svc: Services;
  ctx: ServiceContext;
  team: TeamFacts;
  /** Correlates log lines of one HTTP request. */
  requestId: string;
}

/**
 * read: reads the team's data; compute: changes nothing (a read-only credential may call both, as the
 * REST API's GETs and compute-only POSTs, D2); write: changes something; destroy: deletes data.
 */
export type Effect = "read" | "compute" | "write" | "destroy";

export interface ToolOutput {
  data: unknown;
  meta?: unknown;
}

export interface ToolDef<S extends z.ZodObject = z.ZodObject> {
  name: string;
  title: string;
  /** Written for a model: what it does, when to use it, what comes back. */
  description: string;
  input: S;
  effect: Effect;
  /** Talks to the outside world (live DNS of any domain, a webhook receiver). */
  openWorld?: boolean;
  /** Calling it twice with the same input leaves the same state. */
  idempotent?: boolean;
  run(call: AgentCall, args: z.output<S>): Promise<ToolOutput>;
}

/** Keeps each tool's argument type tied to its own schema while the list stays homogeneous. */
export const tool = <S extends z.ZodObject>(def: ToolDef<S>): ToolDef => def as unknown as ToolDef;

interface ToolErrorDetail {
  code: ErrorCode;
  message: string;
  errors?: FieldErrors;
  retry_after_seconds?: number;
}

export function toolError(detail: ToolErrorDetail): CallToolResult {
  const retry = detail.retry_after_seconds === undefined ? "" : ` Retry after ${detail.retry_after_seconds} seconds.`;
  const fields = detail.errors
    ? ` ${Object.entries(detail.errors)
        .map(([k, v]) => `${k}: ${v.join("; ")}`)
        .join(" | ")}`
    : "";
  return {
    isError: true,
    content: [{ type: "text", text: `Error ${detail.code}: ${detail.message}${fields}${retry}` }],
    structuredContent: { error: detail },
  };
}

const success = (out: ToolOutput): CallToolResult => ({
  content: [{ type: "text", text: JSON.stringify(out) }],
  structuredContent: out as unknown as Record<string, unknown>,
});

/** Counts the call; null when admitted, else the refusal as a tool error with the retry time (D41). */
export async function admit(call: AgentCall): Promise<CallToolResult | null> {
  const decision = await countCall(call.svc, call.team);
  if (decision.allowed) return null;
  return toolError({ code: decision.reason ?? "rate_limited", message: refusalMessage(decision), retry_after_seconds: decision.retryAfterSeconds });
}

/** Turns whatever a verb threw into a tool error; an unexpected failure is logged and says only "Internal error." (D1). */
export function failure(call: AgentCall, error: unknown): CallToolResult {
  if (error instanceof ApiError) {
    const retry = error.headers?.["Retry-After"];
    return toolError({
      code: error.code,
      message: error.message,
      ...(error.errors ? { errors: error.errors } : {}),
      ...(retry ? { retry_after_seconds: Number(retry) } : {}),
    });
  }
  console.error(
    JSON.stringify({ level: "error", requestId: call.requestId, face: "mcp", error: String(error), stack: error instanceof Error ? error.stack : undefined }),
  );
  return toolError({ code: "internal_error", message: "Internal error." });
}

export function registerTools(server: McpServer, call: AgentCall, defs: readonly ToolDef[]): void {
  for (const def of defs) {
    const writes = def.effect === "write" || def.effect === "destroy";
    server.registerTool(
      def.name,
      {
        title: def.title,
        description: writes ? `${def.description} Needs a full-access credential.` : def.description,
        inputSchema: def.input,
        annotations: {
          title: def.title,
          readOnlyHint: !writes,
          destructiveHint: def.effect === "destroy",
          idempotentHint: def.idempotent ?? !writes,
          openWorldHint: def.openWorld ?? false,
        },
      },
      async (args: unknown) => {
        const refused = await admit(call);
        if (refused) return refused;
        if (writes && call.ctx.scope !== "full") {
          return toolError({ code: "forbidden", message: `${def.name} changes data and this credential is read-only; use a full-access token or grant.` });
        }
        try {
          return success(await def.run(call, args as z.output<typeof def.input>));
        } catch (error) {
          return failure(call, error);
        }
      },
    );
  }
}
