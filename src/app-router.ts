// Router factory shared by every resource: each validates with the same hook (422, or 404 for a bad path id).
import { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "./context";
import { ApiError, notFound } from "./lib/errors";
import { fieldErrors } from "./lib/validation";

export type Api = OpenAPIHono<AppEnv>;

export function createRouter(): Api {
  return new OpenAPIHono<AppEnv>({
    defaultHook: (result, _c) => {
      if (result.success) return;
      // A malformed path id is an unknown id, not a schema error.
      if (result.target === "param") throw notFound();
      throw new ApiError(422, "validation_failed", "The request is invalid.", fieldErrors(result.error, result.target));
    },
  });
}
