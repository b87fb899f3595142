// Turns an ApiError into the HTTP response: its headers, its status and the one envelope (src/lib/errors.ts).
import type { Context } from "hono";
import type { AppEnv } from "../context";
import type { ApiError } from "../lib/errors";

export function errorResponse(c: Context<AppEnv>, error: ApiError): Response {
  for (const [k, v] of Object.entries(error.headers ?? {})) c.header(k, v);
  return c.json(error.toBody(c.get("requestId")), error.status);
}
