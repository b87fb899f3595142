// OpenAPI building blocks shared by every route: the error body, documented error statuses, envelopes.
import { z } from "@hono/zod-openapi";
import { ERROR_CODES } from "./errors";
import { PageMeta } from "./pagination";

/** The one error envelope (errorBody() in src/lib/errors.ts builds every instance of it). */
export const ErrorBody = z
  .object({
    message: z.string().openapi({ example: "Domain not found." }),
    code: z.enum(ERROR_CODES).openapi({ example: "not_found" }),
    request_id: z
      .string()
      .optional()
      .openapi({ description: "The X-Request-Id of this response, for support.", example: "0f6c2b8e-3c1d-4f1e-9a53-6a3f1d2b7c41" }),
    errors: z
      .record(z.string(), z.array(z.string()))
      .optional()
      .openapi({ description: "Per-field messages (422 only).", example: { name: ["Required"] } }),
  })
  .openapi("Error");

const DESCRIPTIONS = {
  400: "Malformed JSON, or a body that is not a JSON object.",
  401: "Missing, malformed, unknown or revoked token.",
  403: "The token's scope does not allow this operation.",
  404: "Unknown id, or an id of another team.",
  409: "Conflicts with the current state.",
  413: "Payload too large.",
  415: "The body must be application/json.",
  422: "Well-formed input that breaks the schema; `errors` maps field paths to messages.",
  429: "Per-minute rate limit or monthly quota exceeded; see Retry-After.",
  503: "A DNS dependency could not be reached.",
} as const;
export type ErrorStatus = keyof typeof DESCRIPTIONS;

type HeaderDoc = { schema: { type: "integer" }; description: string };
const RATE_HEADERS: Record<string, HeaderDoc> = {
  "X-RateLimit-Limit": { schema: { type: "integer" as const }, description: "Requests allowed per minute." },
  "X-RateLimit-Remaining": { schema: { type: "integer" as const }, description: "Requests left in this minute." },
  "X-RateLimit-Reset": { schema: { type: "integer" as const }, description: "Seconds until the minute window resets." },
  "X-Quota-Limit": { schema: { type: "integer" as const }, description: "Requests allowed this calendar month." },
  "X-Quota-Used": { schema: { type: "integer" as const }, description: "Requests counted this month." },
};
export const rateHeaders = RATE_HEADERS;

export function errorResponses<S extends ErrorStatus>(...statuses: S[]) {
  const out = {} as Record<S, { description: string; content: { "application/json": { schema: typeof ErrorBody } }; headers?: Record<string, HeaderDoc> }>;
  for (const s of statuses) {
    out[s] = {
      description: DESCRIPTIONS[s],
      content: { "application/json": { schema: ErrorBody } },
      ...(s === 429 ? { headers: { ...RATE_HEADERS, "Retry-After": { schema: { type: "integer" as const }, description: "Seconds to wait." } } } : {}),
    };
  }
  return out;
}

/** The statuses every authenticated operation can answer. */
export const AUTH_ERRORS = [401, 429] as const;

export const dataOf = <T extends z.ZodType>(schema: T) => z.object({ data: schema });
export const pageOf = <T extends z.ZodType>(schema: T) => z.object({ data: z.array(schema), meta: PageMeta });

export const jsonContent = <T extends z.ZodType>(schema: T, description: string) => ({
  description,
  content: { "application/json": { schema } },
  headers: RATE_HEADERS,
});

export const BEARER = [{ bearerAuth: [] }];
