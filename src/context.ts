// Hono context typing shared by middleware and routes.
import type { TokenScope } from "./db/schema";
import type { RateDecision } from "./durable-objects/rate-limiter";
import type { Env } from "./env";
import type { Services } from "./services";
import type { SignedIn } from "./services/accounts/sessions";
import type { ServiceContext, TeamFacts } from "./services/context";

export interface AuthContext {
  teamId: number;
  team: TeamFacts;
  token: { id: number; name: string; scope: TokenScope; prefix: string };
  rate: RateDecision | null;
}

export interface AppEnv {
  Bindings: Env;
  Variables: {
    requestId: string;
    services: Services;
    auth: AuthContext;
    /** What the services see of the caller, built by the authentication middleware. */
    ctx: ServiceContext;
    /** Dashboard pages: the signed-in person, or null (src/pages/guard.ts). */
    signedIn: SignedIn | null;
    /** Dashboard pages: a CSRF token issued during this request. */
    csrf: string;
  };
}
