// Path ids on pages: a positive integer, or the same 404 an unknown id gets (nothing is revealed).
import { notFound } from "../lib/errors";

export function idParam(raw: string | undefined): number {
  const n = Number(raw);
  if (!raw || !/^[1-9][0-9]{0,15}$/.test(raw) || !Number.isSafeInteger(n)) throw notFound("Page");
  return n;
}
