// The public files behind l= and a=: a hosted logo or certificate by domain name and selector, for anyone
// (receivers fetch them without credentials). Only what the team uploaded is ever served. Does I/O (D1).
import { and, eq } from "drizzle-orm";
import { hostedBimi } from "../../db/schema";
import { sha256Hex } from "../../lib/crypto";
import type { Services } from "../../services";

export interface ServedFile {
  body: string;
  /** A strong validator (RFC 9110 §8.8.3): the SHA-256 of exactly these bytes. */
  etag: string;
}

export async function servedBimiFile(svc: Services, name: string, selector: string, kind: "svg" | "pem"): Promise<ServedFile | null> {
  const row = await svc.db
    .select({ logoSvg: hostedBimi.logoSvg, logoSha256: hostedBimi.logoSha256, certificatePem: hostedBimi.certificatePem })
    .from(hostedBimi)
    .where(and(eq(hostedBimi.domainName, name.toLowerCase().replace(/\.$/, "")), eq(hostedBimi.selector, selector.toLowerCase())))
    .get();
  if (!row) return null;
  if (kind === "svg") return row.logoSvg != null && row.logoSha256 !== null ? { body: row.logoSvg, etag: `"${row.logoSha256}"` } : null;
  return row.certificatePem != null ? { body: row.certificatePem, etag: `"${await sha256Hex(row.certificatePem)}"` } : null;
}
