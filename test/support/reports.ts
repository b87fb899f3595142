// Test helpers for DMARC ingestion: domains in D1, report XML in the shapes real reporters send,
// signed POSTs to /api/webhooks/dmarc, and what got stored.
import { env } from "cloudflare:workers";
import { eq, sql } from "drizzle-orm";
import { createDb } from "../../src/db/client";
import { dmarcReports } from "../../src/db/schema";
import { hmacSha256Hex } from "../../src/lib/crypto";
import { call, unique } from "./api";

export const SECRET = "test-ingest-secret";
export const db = createDb(env.DB);
export const enc = (s: string) => new TextEncoder().encode(s);

export { insertDomain as makeDomain, REPORT_DOMAIN, type TestDomain } from "./factories";

export interface Rec {
  ip: string;
  count: number;
  disposition?: string;
  dkim?: string; // policy_evaluated
  spf?: string;
  from?: string;
  sigs?: Array<{ d: string; s?: string; r: string }>;
  spfRes?: { d: string; r: string; scope?: string };
  envTo?: string;
}

export interface ReportOpts {
  domain: string;
  org?: string;
  email?: string;
  reportId?: string;
  begin: number; // epoch seconds
  end: number;
  records: Rec[];
  /** "google" (no namespace), "microsoft" (xsd/xsi, <version>), "yahoo" (capitalised), "rfc9990" (dmarc-2.0 namespace). */
  style?: "google" | "microsoft" | "yahoo" | "rfc9990";
  p?: string;
}

function recordXml(r: Rec, domain: string, style: ReportOpts["style"]): string {
  const cap = (s: string) => (style === "yahoo" ? s.charAt(0).toUpperCase() + s.slice(1) : s);
  const sigs = (r.sigs ?? [{ d: domain, s: "s1", r: "pass" }])
    .map((s) => `<dkim><domain>${s.d}</domain>${s.s ? `<selector>${s.s}</selector>` : ""}<result>${cap(s.r)}</result></dkim>`)
    .join("");
  const spf = r.spfRes ?? { d: domain, r: "pass", scope: "mfrom" };
  return (
    `<record><row><source_ip>${r.ip}</source_ip><count>${r.count}</count><policy_evaluated>` +
    `<disposition>${cap(r.disposition ?? "none")}</disposition><dkim>${cap(r.dkim ?? "pass")}</dkim><spf>${cap(r.spf ?? "pass")}</spf></policy_evaluated></row>` +
    `<identifiers>${r.envTo ? `<envelope_to>${r.envTo}</envelope_to>` : ""}<header_from>${r.from ?? domain}</header_from></identifiers>` +
    `<auth_results>${sigs}<spf><domain>${spf.d}</domain>${spf.scope ? `<scope>${spf.scope}</scope>` : ""}<result>${cap(spf.r)}</result></spf></auth_results></record>\n`
  );
}

export function reportXml(o: ReportOpts): string {
  const style = o.style ?? "google";
  const root =
    style === "rfc9990"
      ? `<feedback xmlns="urn:ietf:params:xml:ns:dmarc-2.0"><version>1.0</version>`
      : style === "microsoft"
        ? `<feedback xmlns:xsd="http://www.w3.org/2001/XMLSchema" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"><version>1.0</version>`
        : "<feedback>";
  const gen = style === "rfc9990" ? "<generator>Example DMARC 2.1</generator>" : "";
  const policy =
    style === "rfc9990"
      ? `<domain>${o.domain}</domain><discovery_method>treewalk</discovery_method><adkim>r</adkim><aspf>r</aspf><p>${o.p ?? "none"}</p><np>reject</np><testing>n</testing>`
      : `<domain>${style === "microsoft" ? `${o.domain.toUpperCase()}.` : o.domain}</domain><adkim>r</adkim><aspf>r</aspf><p>${o.p ?? "none"}</p><sp>none</sp><pct>100</pct>`;
  return (
    `<?xml version="1.0" encoding="UTF-8" ?>\n${root}<report_metadata><org_name>${o.org ?? "google.com"}</org_name>` +
    `<email>${o.email ?? "noreply-dmarc-support@google.com"}</email><report_id>${o.reportId ?? unique("rid")}</report_id>` +
    `<date_range><begin>${o.begin}</begin><end>${o.end}</end></date_range>${gen}</report_metadata>` +
    `<policy_published>${policy}</policy_published>\n${o.records.map((r) => recordXml(r, o.domain, style)).join("")}</feedback>\n`
  );
}

export const day0 = (daysAgo: number): number => {
  const d = new Date();
  return Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate()) / 1000 - daysAgo * 86_400;
};

export async function signature(body: Uint8Array, secret = SECRET): Promise<string> {
  return `sha256=${await hmacSha256Hex(secret, body)}`;
}

export async function post(
  body: Uint8Array | string,
  o: { contentType?: string; signature?: string | null; headers?: Record<string, string> } = {},
): Promise<Response> {
  const bytes = typeof body === "string" ? enc(body) : body;
  const headers: Record<string, string> = { "content-type": o.contentType ?? "application/xml", ...o.headers };
  const sig = o.signature === undefined ? await signature(bytes) : o.signature;
  if (sig !== null) headers["x-signature"] = sig;
  return call("/api/webhooks/dmarc", { method: "POST", rawBody: bytes, headers });
}

export async function postJson(payload: Record<string, unknown>): Promise<Response> {
  return post(JSON.stringify(payload), { contentType: "application/json" });
}

export function base64(bytes: Uint8Array): string {
  let bin = "";
  for (let i = 0; i < bytes.length; i += 0x8000) bin += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(bin);
}

/** What is stored for a domain: complete reports, all report rows, row count and message sum. */
export async function stored(domainId: number) {
  const reports = await db.select().from(dmarcReports).where(eq(dmarcReports.domainId, domainId));
  const rows = await db.get<{ n: number; messages: number | null }>(
    sql`SELECT COUNT(*) AS n, SUM(messages) AS messages FROM dmarc_rows WHERE domain_id = ${domainId}`,
  );
  return { reports, rows: rows?.n ?? 0, messages: rows?.messages ?? 0 };
}
