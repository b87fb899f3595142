// Test helpers for DMARC ingestion: domains in D1, report XML in the shapes real reporters send,
// signed POSTs to /api/webhooks/dmarc, and what got stored (in the domain's report object, and the
// D1 summaries: docs/decisions.md D120-D122).
import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { createDb } from "../../src/db/client";
import { dmarcReporterDays } from "../../src/db/schema";
import type { DmarcIngestInput, DmarcRowTuple } from "../../src/durable-objects/domain-store/types";
import { hmacSha256Hex } from "../../src/lib/crypto";
import { domainStore } from "../../src/services/domains/domain-store";
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

/** The domain's report object (as the services reach it). */
export const reportObject = (domainId: number) => domainStore({ env }, { id: domainId });

/** Rows of a SQL query run inside the domain's report object. */
export async function objectRows<T = Record<string, SqlStorageValue>>(domainId: number, query: string, ...params: SqlStorageValue[]): Promise<T[]> {
  return runInDurableObject(reportObject(domainId), (_i, state) => state.storage.sql.exec(query, ...params).toArray() as T[]);
}

/**
 * What is stored for a domain: its reports ("complete" once the D1 summary step was confirmed,
 * "processing" before), the row count and the message sum.
 */
export async function stored(domainId: number) {
  const reports = (
    await objectRows<{
      id: number;
      org_name: string;
      report_id: string;
      email: string | null;
      version: string | null;
      records: number;
      messages: number;
      summarised_at: number | null;
    }>(domainId, "SELECT id, org_name, report_id, email, version, records, messages, summarised_at FROM reports ORDER BY id")
  ).map((r) => ({
    id: r.id,
    orgName: r.org_name,
    reportId: r.report_id,
    email: r.email,
    version: r.version,
    records: r.records,
    messages: r.messages,
    status: r.summarised_at === null ? "processing" : "complete",
  }));
  const [rows] = await objectRows<{ n: number; messages: number | null }>(domainId, "SELECT COUNT(*) AS n, SUM(messages) AS messages FROM rows");
  return { reports, rows: rows?.n ?? 0, messages: rows?.messages ?? 0 };
}

/** A report from `org` arrived at `at`: what the silent-reporter job reads (D1 dmarc_reporter_days). */
export async function reporterSeen(domainId: number, org: string, at: Date) {
  await db
    .insert(dmarcReporterDays)
    .values({ domainId, day: at.toISOString().slice(0, 10), orgName: org, lastAt: at })
    .onConflictDoUpdate({ target: [dmarcReporterDays.domainId, dmarcReporterDays.day, dmarcReporterDays.orgName], set: { lastAt: at } });
}

/** One aggregated row: [day, ip, messages, aligned (both SPF and DKIM), dkim d=, selector]. */
export function seedRow(day: string, ip: string, messages: number, aligned: boolean, dkim: { d: string; s: string | null } | null = null): DmarcRowTuple {
  const a = aligned ? 1 : 0;
  return [day, ip, null, "none", a, a, dkim?.d ?? null, dkim?.s ?? null, dkim ? (aligned ? "pass" : "fail") : null, null, aligned ? "pass" : "fail", messages];
}

/** Writes a report straight into the domain's object, as already summarised (no event, no D1 summary). */
export async function seedReport(domainId: number, o: Partial<DmarcIngestInput> & { rows: DmarcRowTuple[] }) {
  const begin = o.dateBegin ?? Date.parse(`${o.rows[0]?.[0] ?? "2026-01-01"}T00:00:00Z`);
  return reportObject(domainId).ingestDmarc({
    orgName: "seed.example",
    reportId: unique("seed"),
    email: null,
    version: "1.0",
    dateBegin: begin,
    dateEnd: begin + 86_400_000,
    records: o.rows.length,
    policy: null,
    receivedAt: Date.now(),
    retentionDays: 730,
    summarised: true,
    ...o,
  });
}
