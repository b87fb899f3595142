// Who is calling the agent endpoint (docs/decisions.md D40, D44). A team token carries its team and
// scope, exactly as on REST. An OAuth grant names a user and a team: the membership is read again on
// every request, so a removed member's grant stops at once, and a viewer never acts with more than
// read_only even if the grant said full (roles map onto scopes as in the dashboard).
import type { TokenScope } from "../db/schema";
import type { Services } from "../services";
import { listMemberships } from "../services/accounts/members";
import { scopeOfRole } from "../services/accounts/sessions";
import { requestOrigin } from "../services/audit/origin";
import type { TeamFacts } from "../services/context";
import { teamFacts } from "../services/teams/bearer";
import type { AgentCall } from "./kit";

/** `label`, `clientName`, `grantedBy`: for the audit log (grants made before it have neither name). */
export type AgentCaller =
  | { kind: "token"; tokenId: number; scope: TokenScope; team: TeamFacts; label?: string }
  | { kind: "oauth"; userId: number; teamId: number; scope: TokenScope; clientName?: string; grantedBy?: string };

const narrower = (a: TokenScope, b: TokenScope): TokenScope => (a === "full" && b === "full" ? "full" : "read_only");

/** The audit log's name of an OAuth agent: the client's registered name and the member who granted it. */
const agentLabel = (c: Extract<AgentCaller, { kind: "oauth" }>) => `${c.clientName ?? "an agent"} (granted by ${c.grantedBy ?? `user ${c.userId}`})`;

export async function resolveCaller(svc: Services, caller: AgentCaller, requestId: string, headers: Headers = new Headers()): Promise<AgentCall | null> {
  if (caller.kind === "token") {
    const origin = requestOrigin(headers, "agent", caller.label ?? `token ${caller.tokenId}`);
    return {
      svc,
      requestId,
      team: caller.team,
      ctx: { teamId: caller.team.id, scope: caller.scope, actor: { kind: "token", id: String(caller.tokenId) }, origin },
    };
  }
  const membership = (await listMemberships(svc, caller.userId)).find((m) => m.teamId === caller.teamId);
  if (!membership) return null;
  const team = await teamFacts(svc, caller.teamId);
  if (!team) return null;
  const scope = narrower(caller.scope, scopeOfRole(membership.role));
  const origin = requestOrigin(headers, "agent", agentLabel(caller));
  return { svc, requestId, team, ctx: { teamId: team.id, scope, actor: { kind: "agent", id: `user:${caller.userId}` }, origin } };
}
