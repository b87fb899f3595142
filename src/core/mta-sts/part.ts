// The MTA-STS posture part (RFC 8461): TXT, policy and MX coverage, status, view, diff rules, weight and fixes. I/O via Resolver and HttpFetch.
import { z } from "zod";
import type { MxResult } from "../mx/analyze";
import { mxPart } from "../mx/part";
import { rankChange } from "../part/helpers";
import { definePart, type DnsFix, type PartStatus, type SettledContext } from "../part/types";
import { checkMtaSts } from "./check";

const MODE_RANK: Record<string, number> = { none: 0, testing: 1, enforce: 2 };

/** Coverage is about live MX: unresolvable hosts and IP literals receive no mail anyway. */
export const liveMxHosts = (m: MxResult): string[] | null =>
  m.status === "temperror" ? null : m.hosts.filter((h) => h.status === "ok" || h.status === "temperror").map((h) => h.host);

const stsId = (now: Date): string =>
  now
    .toISOString()
    .replace(/[-:TZ.]/g, "")
    .slice(0, 14);

/** A starting policy file for https://mta-sts.<domain>/.well-known/mta-sts.txt (RFC 8461 §3.2, CRLF lines). */
export function mtaStsPolicyTemplate(mxHosts: string[], mode: "testing" | "enforce" = "testing"): string {
  return ["version: STSv1", `mode: ${mode}`, ...mxHosts.map((h) => `mx: ${h}`), "max_age: 604800", ""].join("\r\n");
}

/** `uncovered`: live MX hosts no policy mx pattern covers. Ids are minted from the clock (RFC 8461 §3.1: a new id per policy change). */
export function mtaStsFixes(sts: { status: PartStatus; uncovered: string[] }, ctx: Pick<SettledContext, "domain" | "nullMx" | "mxHosts" | "now">): DnsFix[] {
  const d = ctx.domain;
  if (ctx.nullMx || ctx.mxHosts.length === 0) return [];
  if (sts.status === "missing") {
    return [
      {
        host: `_mta-sts.${d}`,
        type: "TXT",
        value: `v=STSv1; id=${stsId(ctx.now)}`,
        reason: `Enables MTA-STS once https://mta-sts.${d}/.well-known/mta-sts.txt serves (text/plain):\n${mtaStsPolicyTemplate(ctx.mxHosts)}`,
      },
    ];
  }
  if (sts.status === "present" && sts.uncovered.length > 0) {
    return [
      {
        host: `_mta-sts.${d}`,
        type: "TXT",
        value: `v=STSv1; id=${stsId(ctx.now)}`,
        reason: `After adding ${sts.uncovered.map((h) => `"mx: ${h}"`).join(", ")} to the policy file, change the id so senders re-fetch it.`,
      },
    ];
  }
  return [];
}

export const mtaStsPart = definePart({
  id: "mta_sts",
  label: "MTA-STS",
  weight: 10,
  inbound: { parkedRules: ["mta_sts.missing"] },
  recordEvent: true,
  removal: "Medium",
  recordChange: "Low",
  // The MX hosts are a promise: the TXT lookup and policy fetch overlap MX resolution.
  run: (ctx) =>
    checkMtaSts(ctx.domain, ctx.resolver, {
      fetch: ctx.fetch,
      mxHosts: ctx.result(mxPart).then(liveMxHosts),
      timeoutMs: ctx.timeoutMs,
      allowPrivate: ctx.settings.allowPrivateTargets === true,
    }),
  scored: (sts) => sts.status,
  findings: (sts) => sts.findings,
  view: (sts) => ({
    status: sts.status,
    host: sts.host,
    record: sts.record,
    id: sts.id,
    policy: {
      status: sts.policy.status,
      failure: sts.policy.failure,
      url: sts.policy.url,
      mode: sts.policy.parsed?.mode ?? null,
      max_age: sts.policy.parsed?.maxAge ?? null,
      mx: sts.policy.parsed?.mx ?? [],
    },
    coverage: sts.coverage,
  }),
  example: {
    status: "invalid",
    host: "_mta-sts.example.com",
    record: "v=STSv1; id=20261101",
    id: "20261101",
    policy: {
      status: "invalid",
      failure: "no_policy_host",
      url: "https://mta-sts.example.com/.well-known/mta-sts.txt",
      mode: null,
      max_age: null,
      mx: [],
    },
    coverage: [],
  },
  viewSchema: {
    id: z.string().nullable(),
    policy: z.object({
      status: z.enum(["valid", "invalid", "temperror", "not-fetched"]),
      url: z.string(),
      failure: z
        .enum(["no_policy_host", "private_address", "unreachable", "http_error", "invalid_policy"])
        .nullable()
        .optional()
        .describe(
          "Why there is no valid policy: the policy host does not exist, resolves to a private address (never fetched), cannot be reached, answers an HTTP error, or serves an invalid policy.",
        ),
      mode: z.enum(["enforce", "testing", "none"]).nullable(),
      max_age: z.number().int().nullable(),
      mx: z.array(z.string()),
    }),
    coverage: z.array(z.object({ host: z.string(), covered: z.boolean() })).describe("Each live MX host and whether a policy mx pattern covers it."),
  },
  snapshot: (sts) => ({
    status: sts.status,
    record: sts.record,
    fields: {
      id: sts.id,
      mode: sts.policy.parsed?.mode ?? null,
      mx: sts.policy.parsed?.mx ?? [],
      max_age: sts.policy.parsed?.maxAge ?? null,
      policy: sts.policy.text,
    },
  }),
  fieldSeverity(field, before, after) {
    if (field === "mode") return rankChange(MODE_RANK, before, after, "High");
    if (field === "mx") return "Medium";
    if (field === "id") return "Info";
    return undefined;
  },
  // RFC 8461 §3.1: senders re-fetch only when id changes, so a changed policy under the old id is drift.
  extraChanges(prev, curr) {
    const same = (a: unknown, b: unknown) => JSON.stringify(a ?? null) === JSON.stringify(b ?? null);
    if (!same(prev.fields?.id, curr.fields?.id) || same(prev.fields?.policy, curr.fields?.policy)) return [];
    return [{ field: "id_unchanged", before: prev.fields?.id ?? null, after: curr.fields?.id ?? null, severity: "High" }];
  },
  fixes: (sts, ctx) => mtaStsFixes({ status: sts.status, uncovered: sts.coverage.filter((c) => !c.covered).map((c) => c.host) }, ctx),
});
