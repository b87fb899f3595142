// Hono context typing shared by middleware and routes.
import type { Plan, TokenScope } from "./db/schema";
import type { RateDecision } from "./durable-objects/rate-limiter";
import type { Env } from "./env";
import type { Services } from "./services";

export interface AuthContext {
  teamId: number;
  team: { id: number; name: string; plan: Plan; ownerEmail: string };
  token: { id: number; name: string; scope: TokenScope; prefix: string };
  rate: RateDecision | null;
}

export interface AppEnv {
  Bindings: Env;
  Variables: {
    requestId: string;
    services: Services;
    auth: AuthContext;
  };
}
