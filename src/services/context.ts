// Who is calling a service verb, in plain data: each face (REST middleware, dashboard session,
// agent endpoint, cron) builds one. Services never see a framework's request context.
import type { Plan, TokenScope } from "../db/schema";
import { forbidden } from "../lib/errors";

export type ActorKind = "token" | "session" | "agent" | "system";

export interface ServiceContext {
  teamId: number;
  /** "full" may change things; "read_only" reads and runs compute-only tools (docs/decisions.md). */
  scope: TokenScope;
  /** For logs and audit: what authenticated the call (token id, user id, OAuth grant id). */
  actor: { kind: ActorKind; id: string };
  /** Where the call came from, for the audit log (docs/audit.md): set by each face; absent means the service itself. */
  origin?: CallOrigin;
}

/** The face, a readable name of the actor (never a secret), and the client's address and user agent. */
export interface CallOrigin {
  face: "api" | "dashboard" | "agent" | "operator" | "system";
  label: string;
  ip?: string | null;
  userAgent?: string | null;
}

/** The team facts a face learned while authenticating, handed on so verbs need not read them again. */
export interface TeamFacts {
  id: number;
  name: string;
  plan: Plan;
  ownerEmail: string;
}

/** Write verbs call this first: a read-only caller is refused whichever face it came through. */
export function requireWrite(ctx: ServiceContext): void {
  if (ctx.scope !== "full") throw forbidden("A read-only credential may not change anything.");
}

/** The context of scheduled and queued work done on a team's behalf. */
export const systemContext = (teamId: number): ServiceContext => ({ teamId, scope: "full", actor: { kind: "system", id: "system" } });
