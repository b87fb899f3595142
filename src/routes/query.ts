// Query-parameter schemas shared by every router, so a flag reads the same on every operation.
import { z } from "@hono/zod-openapi";
import { BOOLEAN_QUERY_VALUES, parseBooleanQuery } from "../lib/validation";

/** An optional boolean flag: true, false, 1 or 0 (any case); documented as that string set. */
export const booleanQuery = (description: string) =>
  z
    .string()
    .optional()
    .refine((v) => v === undefined || (BOOLEAN_QUERY_VALUES as readonly string[]).includes(v.toLowerCase()), { message: "Use true, false, 1 or 0." })
    .transform(parseBooleanQuery)
    .openapi({ type: "string", enum: [...BOOLEAN_QUERY_VALUES], description });
