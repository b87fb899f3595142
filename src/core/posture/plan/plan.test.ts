import { describe, expect, it } from "vitest";
import { FakeResolver, type Zone } from "../../../../test/support/fake-resolver";
import type { HttpFetch } from "../../types";
import { analyzeDomain, type AnalyzeOptions } from "../analyze-domain";
import { buildRemediationPlan, plannable } from "./build";
import { overlayResolver } from "./overlay";

const clock = { now: () => new Date("2026-11-28T00:00:00Z") };
const noFiles: HttpFetch = async () => new Response("not found", { status: 404 });
const RUA = "mailto:k3j2@reports.test";

/** The weak domain: SPF with 11 DNS-querying terms through nested provider includes and ~all,
 *  DMARC p=none without rua, no MTA-STS or TLS-RPT, a 1024-bit DKIM key. */
function weakZone(): Zone {
  const zone: Zone = {
    "weak.example": {
      TXT: ["v=spf1 include:_spf.mailer-a.example include:_spf.mailer-b.example include:spf.crm.example mx a ~all"],
      MX: [{ preference: 10, exchange: "mx.weak.example" }],
      A: ["198.51.100.5"],
    },
    "mx.weak.example": { A: ["198.51.100.10"] },
    "_dmarc.weak.example": { TXT: ["v=DMARC1; p=none"] },
    "_spf.mailer-a.example": {
      TXT: ["v=spf1 include:_netblocks.mailer-a.example include:_netblocks2.mailer-a.example include:_netblocks3.mailer-a.example ~all"],
    },
    "_netblocks.mailer-a.example": { TXT: ["v=spf1 ip4:203.0.113.0/25 ip6:2001:db8:1::/48 ~all"] },
    "_netblocks2.mailer-a.example": { TXT: ["v=spf1 ip4:203.0.113.128/25 ~all"] },
    "_netblocks3.mailer-a.example": { TXT: ["v=spf1 ip6:2001:db8:2::/48 ~all"] },
    "_spf.mailer-b.example": { TXT: ["v=spf1 include:spf1.mailer-b.example include:spf2.mailer-b.example -all"] },
    "spf1.mailer-b.example": { TXT: ["v=spf1 ip4:192.0.2.0/26 -all"] },
    "spf2.mailer-b.example": { TXT: ["v=spf1 ip4:192.0.2.64/26 -all"] },
    "spf.crm.example": { TXT: ["v=spf1 include:mail.crm.example ~all"] },
    "mail.crm.example": { TXT: ["v=spf1 ip4:198.18.0.0/24 ~all"] },
    // The service's report domain, set up as the README says: MX and the RFC 9990 authorization.
    "reports.test": { MX: [{ preference: 10, exchange: "mx.reports.test" }] },
    "mx.reports.test": { A: ["198.51.100.99"] },
    "weak.example._report._dmarc.reports.test": { TXT: ["v=DMARC1"] },
  };
  return zone;
}

const weakDkim = {
  status: "present" as const,
  findings: [{ rule: "dkim.key.weak", severity: "Medium" as const, description: "Selector s1 has a 1024-bit RSA key.", fix: null }],
};

async function planFor(zone: Zone, extra: Partial<AnalyzeOptions> = {}) {
  const options = plannable({
    resolver: new FakeResolver(zone),
    fetch: noFiles,
    clock,
    dnsbl: false as const,
    dmarcRua: RUA,
    tlsRptRua: "mailto:k3j2@reports.test",
    dkim: weakDkim,
    ...extra,
  });
  const analysis = await analyzeDomain("weak.example", options);
  return { analysis, options, plan: await buildRemediationPlan({ analysis, options, evidence: null }) };
}

describe("the remediation plan", () => {
  it("leads the issue's weak domain from F to A, each step projected and the score never falling", async () => {
    const { analysis, plan } = await planFor(weakZone());
    expect(analysis.findings.map((f) => f.rule)).toContain("spf.lookup-limit");
    expect(plan.grade).toBe(analysis.grade);
    expect(plan.steps.map((s) => s.id)).toEqual(expect.arrayContaining(["spf-limits", "dmarc-record", "mta-sts", "mta-sts-enforce", "dkim-rotate"]));
    expect(plan.steps[0]?.id).toBe("spf-limits");
    let last = plan.score ?? 0;
    for (const s of plan.steps) {
      expect(s.score_after ?? 0, `${s.id} must not lower the score`).toBeGreaterThanOrEqual(last);
      last = s.score_after ?? 0;
    }
    expect(["A", "A+"]).toContain(plan.final.grade);
    // The DMARC steps keep the service's address first and never use pct (RFC 9989).
    const dmarc = plan.steps.filter((s) => s.category === "dmarc").map((s) => s.records[0]?.value);
    expect(dmarc[0]).toBe(`v=DMARC1; p=none; rua=${RUA}`);
    expect(dmarc.at(-1)).toBe(`v=DMARC1; p=reject; rua=${RUA}`);
    for (const v of dmarc) expect(v).not.toContain("pct");
    // Steps that wait for evidence or a person say so.
    expect(plan.steps.find((s) => s.id.startsWith("dmarc-quarantine"))?.gate).toBe("after_reports");
    expect(plan.steps.find((s) => s.id === "mta-sts")?.files[0]?.url).toBe("https://mta-sts.weak.example/.well-known/mta-sts.txt");
  });

  it("the SPF step's records, pasted into the zone, pass the check: within 10 lookups, no lookup-limit finding", async () => {
    const zone = weakZone();
    const { plan, options } = await planFor(zone);
    const spf = plan.steps.find((s) => s.id === "spf-limits");
    expect(spf).toBeDefined();
    for (const r of spf?.records ?? []) {
      expect(new TextEncoder().encode(r.value).length).toBeLessThanOrEqual(512);
      for (const str of r.strings ?? []) expect(new TextEncoder().encode(str).length).toBeLessThanOrEqual(255);
    }
    const after = await analyzeDomain("weak.example", {
      ...options,
      resolver: overlayResolver(
        new FakeResolver(zone),
        (spf?.records ?? []).map((r) => ({ host: r.host, type: "TXT" as const, value: r.value })),
      ),
    });
    expect(after.findings.map((f) => f.rule)).not.toContain("spf.lookup-limit");
    expect(after.parts.spf.lookups.total).toBeLessThanOrEqual(10);
  });

  it("an include with no SPF record is removed, as a decision, and the record then passes", async () => {
    const zone = weakZone();
    zone["weak.example"] = { ...(zone["weak.example"] as object), TXT: ["v=spf1 include:_spf.mailer-typo.example mx ~all"] };
    const { plan } = await planFor(zone);
    const step = plan.steps.find((s) => s.id === "spf-broken-include");
    expect(step?.gate).toBe("decision");
    expect(step?.records[0]?.value).toBe("v=spf1 mx ~all");
    expect(step?.closes).toContain("spf.include-no-record");
  });

  it("two SPF records are merged into one", async () => {
    const zone = weakZone();
    zone["weak.example"] = { ...(zone["weak.example"] as object), TXT: ["v=spf1 mx ~all", "v=spf1 ip4:198.51.100.7 -all"] };
    const { plan } = await planFor(zone);
    expect(plan.steps[0]).toMatchObject({ id: "spf-merge", records: [{ value: "v=spf1 mx ip4:198.51.100.7 ~all" }] });
    expect(plan.steps[0]?.closes).toContain("spf.multiple-records");
  });

  it("an existing rua is kept beside the service's, and pct becomes t=y (RFC 9989)", async () => {
    const zone = weakZone();
    zone["_dmarc.weak.example"] = { TXT: ["v=DMARC1; p=quarantine; pct=50; rua=mailto:owner@weak.example"] };
    const { plan } = await planFor(zone);
    const first = plan.steps.find((s) => s.category === "dmarc");
    expect(first?.records[0]?.value).toBe(`v=DMARC1; p=quarantine; t=y; rua=${RUA},mailto:owner@weak.example`);
  });

  it("a parked domain (null MX) is told to reject everything and publish v=spf1 -all, never to set up DKIM", async () => {
    const zone = weakZone();
    zone["weak.example"] = { MX: [{ preference: 0, exchange: "" }] };
    delete zone["_dmarc.weak.example"];
    const { plan } = await planFor(zone, { dkim: { status: "missing", findings: [] } });
    expect(plan.steps.map((s) => s.id)).not.toContain("dkim-setup");
    expect(plan.steps.find((s) => s.category === "spf")?.records[0]?.value).toBe("v=spf1 -all");
    expect(plan.steps.find((s) => s.category === "dmarc")?.records[0]?.value).toMatch(/^v=DMARC1; p=reject; sp=reject/);
  });

  it("a DNS failure gives no step for the part that failed", async () => {
    const zone = weakZone();
    zone["_dmarc.weak.example"] = "temperror";
    const { plan } = await planFor(zone);
    expect(plan.steps.some((s) => s.category === "dmarc")).toBe(false);
  });
});
