// The TLS-RPT posture part (RFC 8460): lookup, pairing with MTA-STS, status, view, weight and fix. I/O via Resolver only.
import { z } from "zod";
import { mtaStsPart } from "../mta-sts/part";
import { definePart, type DnsFix, type PartStatus, type SettledContext } from "../part/types";
import { checkTlsRpt, tlsRptPairingFindings } from "./check";
import { tlsRptDestinationFindings } from "./destination";

/** `tlsRptRua`: where reports should go; defaults to mailto:tls-reports@<domain>. */
export function tlsRptFixes(status: PartStatus, ctx: Pick<SettledContext, "domain" | "nullMx" | "mxHosts">, tlsRptRua: string | null): DnsFix[] {
  if (ctx.nullMx || ctx.mxHosts.length === 0 || status !== "missing") return [];
  return [
    {
      host: `_smtp._tls.${ctx.domain}`,
      type: "TXT",
      value: `v=TLSRPTv1; rua=${tlsRptRua ?? `mailto:tls-reports@${ctx.domain}`}`,
      reason: "Receive daily reports of TLS delivery failures to your MX (RFC 8460).",
    },
  ];
}

export const tlsRptPart = definePart({
  id: "tls_rpt",
  label: "TLS-RPT",
  weight: 5,
  inbound: { parkedRules: ["tls_rpt.missing", "tls_rpt.mta-sts-without-reports", "tls_rpt.reports-elsewhere"] },
  recordEvent: true,
  removal: "Low",
  recordChange: "Low",
  run: (ctx) => checkTlsRpt(ctx.domain, ctx.resolver),
  scored: (r) => r.status,
  // The report mailbox the caller passes as dmarcRua takes TLS reports too (docs/decisions.md D100).
  findings: (r, ctx) => [
    ...r.findings,
    ...tlsRptPairingFindings(r.status, ctx.result(mtaStsPart).status),
    ...tlsRptDestinationFindings(r, { rua: ctx.settings.tlsRptRua ?? null, mailbox: ctx.settings.dmarcRua ?? null }),
  ],
  view: (r) => ({ status: r.status, host: r.host, record: r.record, rua: r.parsed?.rua ?? [] }),
  example: { status: "present", host: "_smtp._tls.example.com", record: "v=TLSRPTv1; rua=mailto:tls@example.com", rua: ["mailto:tls@example.com"] },
  viewSchema: { rua: z.array(z.string()) },
  snapshot: (r) => ({ status: r.status, record: r.record }),
  fixes: (r, ctx) => tlsRptFixes(r.status, ctx, ctx.settings.tlsRptRua ?? null),
});
