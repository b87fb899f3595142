// The ServiceContext a test passes when it calls a service verb directly (faces build it in production).
import type { ServiceContext } from "../../src/services/context";

export const teamContext = (teamId: number, scope: ServiceContext["scope"] = "full"): ServiceContext => ({
  teamId,
  scope,
  actor: { kind: "token", id: "test" },
});
