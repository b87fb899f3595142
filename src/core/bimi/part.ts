// The BIMI posture part: lookup with the DMARC policy that applies, status, record view, weight. I/O via Resolver and HttpFetch.
import { z } from "zod";
import { treeWalkOrgDomain } from "../dmarc/align";
import type { DmarcAnalysis } from "../dmarc/analyze";
import { dmarcPart } from "../dmarc/part";
import { definePart } from "../part/types";
import { checkBimi } from "./check";
import type { DmarcFacts } from "./record";

/** BIMI needs the policy that actually applies; RFC 9989 t=y downgrades it one step (§5.3). */
export function dmarcFactsForBimi(dmarc: DmarcAnalysis): DmarcFacts | null {
  const r = dmarc.parsed;
  if (r === null || dmarc.policy === null) return null;
  const p = r.t ? ({ reject: "quarantine", quarantine: "none", none: "none" } as const)[dmarc.policy] : dmarc.policy;
  return { p, sp: r.sp, pct: r.pct };
}

export const bimiPart = definePart({
  id: "bimi",
  label: "BIMI",
  weight: 5,
  inbound: { parkedRules: ["bimi.missing"] },
  recordEvent: true,
  removal: "Low",
  recordChange: "Low",
  // The DMARC facts are a promise: the BIMI lookup overlaps DMARC discovery and waits only once it found a record.
  run: (ctx) =>
    checkBimi(ctx.domain, ctx.resolver, {
      dmarc: ctx.result(dmarcPart).then(dmarcFactsForBimi),
      orgDomain: treeWalkOrgDomain(ctx.resolver),
      ...(ctx.settings.checkBimiLogo ? { fetch: ctx.fetch, now: ctx.clock.now() } : {}),
      timeoutMs: ctx.timeoutMs,
    }),
  scored: (bimi) => bimi.status,
  findings: (bimi) => bimi.findings,
  view: (bimi) => ({
    status: bimi.status,
    host: bimi.host,
    record: bimi.record,
    declined: bimi.declined,
    logo: bimi.parsed?.logo ?? null,
    authority: bimi.parsed?.authority ?? null,
  }),
  example: { status: "missing", host: "default._bimi.example.com", record: null, declined: false, logo: null, authority: null },
  viewSchema: { declined: z.boolean(), logo: z.string().nullable(), authority: z.string().nullable() },
  snapshot: (bimi) => ({ status: bimi.status, record: bimi.record }),
});
