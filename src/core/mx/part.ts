// The MX posture part: lookups, status, record view, diff rules, weight and the null MX fix (RFC 7505). I/O via Resolver only.
import { z } from "zod";
import { definePart, type DnsFix, type SettledContext } from "../part/types";
import { spfPart } from "../spf/part";
import { analyzeMx, type MxResult } from "./analyze";

export const mxRecordText = (mx: MxResult): string | null =>
  mx.records.length === 0 ? null : mx.records.map((m) => `${m.preference} ${m.exchange || "."}`).join("\n");

/** SPF says the domain sends no mail and it has no MX: a null MX makes senders fail fast (RFC 7505). */
export function nullMxFix(spfRecord: string | null, ctx: Pick<SettledContext, "domain" | "nullMx" | "mxHosts">): DnsFix[] {
  if (ctx.nullMx || ctx.mxHosts.length > 0 || (spfRecord ?? "").trim().toLowerCase() !== "v=spf1 -all") return [];
  return [
    {
      host: ctx.domain,
      type: "MX",
      value: "0 .",
      reason: "SPF says the domain sends no mail and it has no MX: publish a null MX (RFC 7505) so senders fail fast.",
    },
  ];
}

const MxHost = z.object({
  host: z.string(),
  preference: z.number().int(),
  status: z.enum(["ok", "unresolvable", "temperror", "ip-literal"]),
  cname: z.array(z.string()),
  ipv4: z.array(z.string()),
  ipv6: z.array(z.string()),
});

export const mxPart = definePart({
  id: "mx",
  label: "MX",
  weight: 10,
  recordEvent: true,
  removal: "High",
  recordChange: "Medium",
  // The blocklist queries of every address, the TLSA lookups and the MTA-STS coverage wait on these answers.
  lookups: "first",
  run: (ctx) => analyzeMx(ctx.domain, ctx.resolver),
  scored: (mx) => mx.status,
  findings: (mx) => mx.findings,
  view: (mx, ctx) => ({ status: mx.status, host: ctx.domain, record: mxRecordText(mx), null_mx: mx.nullMx, hosts: mx.hosts }),
  example: {
    status: "present",
    host: "example.com",
    record: "10 mx.example.com",
    null_mx: false,
    hosts: [{ host: "mx.example.com", preference: 10, status: "ok", cname: [], ipv4: ["192.0.2.10"], ipv6: [] }],
  },
  viewSchema: { null_mx: z.boolean(), hosts: z.array(MxHost) },
  snapshot: (mx) => ({ status: mx.status, record: mxRecordText(mx), fields: { hosts: mx.records.map((m) => m.exchange || ".") } }),
  fieldSeverity: (field) => (field === "hosts" ? "Medium" : undefined),
  fixes: (_mx, ctx) => nullMxFix(ctx.result(spfPart).record, ctx),
});
