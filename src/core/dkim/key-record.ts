// Parses a DKIM key record from DNS TXT (RFC 6376 §3.6.1, RFC 8463 §4.2). No I/O.
import { err, ok, type Result } from "../types";
import { parseTagList, stripFws } from "./tags";

export interface KeyRecord {
  keyType: "rsa" | "ed25519";
  /** p= with FWS removed; "" means the key is revoked (§3.6.1). */
  publicKey: string;
  revoked: boolean;
  /** h= acceptable hash algorithms, lower case; null when absent (all allowed). */
  hashes: string[] | null;
  /** t= flags: y = testing, s = i= must equal d= exactly. */
  testing: boolean;
  strict: boolean;
  services: string[]; // s=, default ["*"]
  notes: string | null; // n=
}

/** A TXT string that is plainly not a DKIM key record (no p= and no v=DKIM1). */
export const looksLikeKeyRecord = (txt: string): boolean => /(^|;)\s*(p|v)\s*=/.test(txt);

export function parseKeyRecord(txt: string): Result<KeyRecord> {
  const parsed = parseTagList(txt);
  if (!parsed.ok) return err(`key record syntax: ${parsed.error}`);
  const t = parsed.value;
  // §3.6.1 v=: RECOMMENDED; if present it MUST be the first tag and MUST be "DKIM1".
  const v = t.get("v");
  if (v !== undefined) {
    if ([...t.keys()][0] !== "v") return err("v= is present but not the first tag");
    if (v !== "DKIM1") return err(`unsupported key record version v=${v}`);
  }
  const p = t.get("p");
  if (p === undefined) return err("key record has no p= tag"); // §3.6.1: p= is REQUIRED
  const k = (t.get("k") ?? "rsa").trim().toLowerCase(); // default rsa
  if (k !== "rsa" && k !== "ed25519") return err(`unknown key type k=${k}`);
  const list = (v: string | undefined): string[] | null =>
    v === undefined
      ? null
      : v
          .split(":")
          .map((x) => x.trim().toLowerCase())
          .filter((x) => x !== "");
  const flags = list(t.get("t")) ?? [];
  const publicKey = stripFws(p);
  return ok({
    keyType: k,
    publicKey,
    revoked: publicKey === "",
    hashes: list(t.get("h")),
    testing: flags.includes("y"),
    strict: flags.includes("s"),
    services: list(t.get("s")) ?? ["*"],
    notes: t.get("n") ?? null,
  });
}
