// Does a published TLS-RPT record send reports to this service? Compares its rua URIs (RFC 8460 §3)
// with the service's destinations for the domain (docs/decisions.md D100, D38). Pure; no I/O.
import type { Finding } from "../types";
import type { TlsRptResult } from "./check";

/** The service's own rua for the domain: the one the fix proposes, and the report mailbox, which takes TLS reports too (D100). */
export interface TlsRptDestinations {
  /** What the fix proposes (`https://SITE_URL/api/webhooks/tlsrpt/<token>`, else the `mailto:` form); null: unknown. */
  rua: string | null;
  /** The report mailbox as a `mailto:` URI (`mailto:<token>@REPORT_DOMAIN`), which also receives TLS reports. */
  mailbox: string | null;
}

/**
 * A URI in the form compared: mailto: addresses are case-insensitive here (report tokens are lower case
 * and the domain part is a host name); https: URLs compare scheme and host case-insensitively, the path
 * exactly, without a trailing slash.
 */
function normalized(uri: string): string {
  const u = uri.trim();
  if (/^mailto:/i.test(u)) return `mailto:${u.slice(7).toLowerCase()}`;
  const m = /^(https:\/\/[^/?#]+)(.*)$/i.exec(u);
  if (!m) return u;
  return `${(m[1] ?? "").toLowerCase()}${(m[2] ?? "").replace(/\/+$/, "")}`;
}

/**
 * `tls_rpt.reports-elsewhere` (Info: the record works, its reports just never reach this service, so
 * its TLS page stays empty): a valid record none of whose rua URIs is one of ours. Only when the
 * caller knows our destination, and only for a record that was read: a lookup failure (temperror),
 * a missing or an invalid record says nothing about where reports go.
 */
export function tlsRptDestinationFindings(r: TlsRptResult, ours: TlsRptDestinations): Finding[] {
  if (r.status !== "present" || r.parsed === null || ours.rua === null) return [];
  const accepted = new Set([ours.rua, ours.mailbox].filter((x): x is string => x !== null).map(normalized));
  if (r.parsed.rua.some((u) => accepted.has(normalized(u)))) return [];
  const record = `v=TLSRPTv1; rua=${[ours.rua, ...r.parsed.rua].join(",")}`;
  return [
    {
      rule: "tls_rpt.reports-elsewhere",
      severity: "Info",
      description: `The TLS-RPT record sends reports only to ${r.parsed.rua.join(", ")}, so this service receives none for the domain and shows no TLS delivery data.`,
      fix: `Add ${ours.rua} as the first rua destination (some reporters send only to the first): ${record}`,
    },
  ];
}
