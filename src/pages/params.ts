// Path ids on pages: a positive integer, or the same 404 an unknown id gets (nothing is revealed).
import { notFound, validationFailed } from "../lib/errors";

export function idParam(raw: string | undefined): number {
  const n = Number(raw);
  if (!raw || !/^[1-9][0-9]{0,15}$/.test(raw) || !Number.isSafeInteger(n)) throw notFound("Page");
  return n;
}

/** `days` as the API's report views read it (1 to 365, 30 when absent); anything else is a 422 page that says so (docs/decisions.md D36). */
export function windowDays(raw: string | undefined): number {
  if (raw === undefined || raw === "") return 30;
  const n = Number(raw);
  if (!/^[0-9]{1,3}$/.test(raw) || n < 1 || n > 365)
    throw validationFailed({ days: ["a whole number of days from 1 to 365"] }, "That period is not valid: choose 1 to 365 days.");
  return n;
}
