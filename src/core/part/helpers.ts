// Small rules several parts share: ranking a weakened value, editing one tag of a tag=value record. No I/O.
import type { Severity } from "../types";
import type { FieldValue } from "./types";

/** `weakened` when the value moved down the ranking (unknown values rank lowest), Info otherwise. */
export function rankChange(ranks: Record<string, number>, before: FieldValue, after: FieldValue, weakened: Severity): Severity {
  const b = ranks[String(before ?? "none").toLowerCase()] ?? 0;
  const a = ranks[String(after ?? "none").toLowerCase()] ?? 0;
  return a < b ? weakened : "Info";
}

/** Replace or append one tag of a tag=value record, keeping the others in order. */
export function setTag(record: string, tag: string, value: string | null): string {
  const parts = record
    .split(";")
    .map((p) => p.trim())
    .filter((p) => p !== "");
  const i = parts.findIndex((p) => p.split("=")[0]?.trim().toLowerCase() === tag);
  if (value === null) {
    if (i >= 0) parts.splice(i, 1);
  } else if (i >= 0) parts[i] = `${tag}=${value}`;
  else parts.push(`${tag}=${value}`);
  return parts.join("; ");
}
