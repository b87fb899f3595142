// Every /api/v1 router, mounted in one place. Each capability adds its router here once it works.
import type { Api } from "../app-router";
import { accountRoutes } from "./account";

export function mountApiRoutes(v1: Api): void {
  v1.route("/", accountRoutes());
}
