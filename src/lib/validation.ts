// Turns zod issues into the `errors` map of a 422: field path -> messages.
import type { ZodError } from "zod";
import type { FieldErrors } from "./errors";

export function fieldErrors(error: ZodError, fallbackKey: string): FieldErrors {
  const out: FieldErrors = {};
  for (const issue of error.issues) {
    const key = issue.path.length > 0 ? issue.path.map(String).join(".") : fallbackKey;
    const list = out[key] ?? [];
    list.push(issue.message);
    out[key] = list;
  }
  return out;
}

/** Query-string booleans read the same everywhere (docs/decisions.md): true/false/1/0, case-insensitive. */
export const BOOLEAN_QUERY_VALUES = ["true", "false", "1", "0"] as const;
export const parseBooleanQuery = (v: string | undefined): boolean | undefined => (v === undefined ? undefined : v.toLowerCase() === "true" || v === "1");
