// The DANE posture part (RFC 7672): TLSA of every live MX host, its pairing with MTA-STS, status, view,
// diff rules and weight. DANE is optional: absent or unsigned carries no weight; present earns it. I/O via Resolver only.
import { z } from "zod";
import { liveMxHosts, mtaStsPart } from "../mta-sts/part";
import { mxPart } from "../mx/part";
import { definePart, type PartSnapshot } from "../part/types";
import type { Finding } from "../types";
import { checkDane, type DaneResult } from "./check";

/**
 * RFC 8461 §2: a sender that supports DANE uses it and ignores MTA-STS, so DANE next to an MTA-STS policy
 * in testing means two senders see two different postures; the policy should enforce what DANE does.
 */
function pairingFindings(dane: DaneResult, stsMode: string | null): Finding[] {
  if (dane.status !== "present" || stsMode !== "testing") return [];
  return [
    {
      rule: "dane.mta-sts-testing",
      severity: "Low",
      description:
        "DANE protects the MX hosts while the MTA-STS policy is only in testing: DANE senders enforce TLS and the rest only report (RFC 8461 §2). Move the policy to enforce.",
      fix: "Set mode: enforce in the MTA-STS policy file and change the id of the _mta-sts TXT record.",
    },
  ];
}

const snapshot = (d: DaneResult): PartSnapshot => ({
  status: d.status,
  record: d.record,
  fields: { hosts: d.hosts.map((h) => `${h.host}:${h.state}`) },
});

export const danePart = definePart({
  id: "dane",
  label: "DANE",
  weight: 5,
  inbound: { parkedRules: [] },
  unweighted: ["missing"],
  extraStatuses: ["insecure"],
  lookups: "leaf",
  recordEvent: true,
  removal: "High",
  recordChange: "Medium",
  run: async (ctx) => checkDane(ctx.domain, liveMxHosts(await ctx.result(mxPart)), ctx.resolver),
  scored: (d) => d.status,
  findings: (d, ctx) => [...d.findings, ...pairingFindings(d, ctx.result(mtaStsPart).policy.parsed?.mode ?? null)],
  view: (d) => ({
    status: d.status,
    host: d.host,
    record: d.record,
    hosts: d.hosts.map((h) => ({
      host: h.host,
      name: h.name,
      state: h.state,
      records: h.records.map((r) => ({
        usage: r.usage,
        selector: r.selector,
        matching_type: r.matchingType,
        data: r.data,
        usable: r.usable,
        problem: r.problem,
      })),
    })),
  }),
  example: {
    status: "missing",
    host: "_25._tcp.mx.example.com",
    record: null,
    hosts: [{ host: "mx.example.com", name: "_25._tcp.mx.example.com", state: "none", records: [] }],
  },
  viewSchema: {
    hosts: z
      .array(
        z.object({
          host: z.string(),
          name: z.string(),
          state: z
            .enum(["secure", "none", "insecure", "temperror"])
            .describe(
              "secure: authenticated TLSA records; none: an authenticated denial; insecure: not DNSSEC-authenticated (ignored by senders); temperror: unknown.",
            ),
          records: z.array(
            z.object({
              usage: z.number().int(),
              selector: z.number().int(),
              matching_type: z.number().int(),
              data: z.string(),
              usable: z.boolean(),
              problem: z.string().nullable(),
            }),
          ),
        }),
      )
      .describe("Each live MX host, its TLSA name (_25._tcp.<host>) and records."),
  },
  snapshot,
  fieldSeverity: (field) => (field === "hosts" ? "Medium" : undefined),
});
