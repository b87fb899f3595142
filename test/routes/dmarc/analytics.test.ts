import { beforeAll, describe, expect, it } from "vitest";
import { enforcementAdvice, suggestedRecord } from "../../../src/services/dmarc/advice";
import { senderByPtr } from "../../../src/services/dmarc/sender-table";
import { call, json, makeTeam, type TestTeam } from "../../support/api";
import { type DohStub, installDohStub } from "../../support/doh-stub";
import { day0, makeDomain, post, reportXml, type TestDomain } from "../../support/reports";

interface Analytics {
  summary: { reports: number; reporters: number; messages: number; first_report_at: string | null; last_report_at: string | null };
  alignment: { rate: number | null; pass: number; fail: number; spf_aligned: number; dkim_aligned: number };
  sources: Array<{
    ip: string;
    ptr: string | null;
    sender: string | null;
    identified_by: string | null;
    messages: number;
    dmarc: { pass: number; fail: number };
    spf: { pass: number; fail: number; aligned: number };
    dkim: { pass: number; fail: number; aligned: number };
  }>;
  sources_total: number;
  failing_senders: Array<{ sender: string; messages: number; fail: number; sources: string[]; fixes: string[] }>;
  enforcement: { current_policy: string | null; recommended_policy: string; safe_to_enforce: boolean; reason: string };
  suggested_record: string;
  report_address: string;
  daily: Array<{ day: string; messages: number; pass: number; fail: number }>;
}

const ZONE = {
  "41.220.85.209.in-addr.arpa": { PTR: ["mail-sor-f41.google.com"] },
  "mail-sor-f41.google.com": { A: ["209.85.220.41"] },
  // A PTR that does not confirm: its A record points elsewhere.
  "7.100.51.198.in-addr.arpa": { PTR: ["o1.ptr.google.com"] },
  "o1.ptr.google.com": { A: ["192.0.2.200"] },
  "_spf.google.com": { TXT: ["v=spf1 ip4:209.85.128.0/17 ~all"] },
  "sendgrid.net": { TXT: ["v=spf1 ip4:198.51.100.0/24 -all"] },
};

let stub: DohStub;
let team: TestTeam;
let d: TestDomain;
const dayOf = (s: number) => new Date(s * 1000).toISOString().slice(0, 10);

beforeAll(async () => {
  team = await makeTeam();
  d = await makeDomain(team.id);
  const em = `em.${d.name}`;
  const a = reportXml({
    domain: d.name,
    org: "google.com",
    begin: day0(3),
    end: day0(2) - 1,
    records: [
      { ip: "209.85.220.41", count: 100 },
      { ip: "198.51.100.7", count: 20, dkim: "fail", spf: "fail", sigs: [{ d: "sendgrid.net", s: "s1", r: "pass" }], spfRes: { d: em, r: "fail" } },
      { ip: "203.0.113.50", count: 5, dkim: "fail", spf: "fail", sigs: [{ d: "spoof.test", s: "x", r: "fail" }], spfRes: { d: "spoof.test", r: "fail" } },
    ],
  });
  const b = reportXml({
    domain: d.name,
    org: "Yahoo",
    begin: day0(1),
    end: day0(0) - 1,
    records: [
      { ip: "209.85.220.41", count: 50, spf: "fail", spfRes: { d: d.name, r: "fail" } },
      { ip: "198.51.100.7", count: 10, dkim: "fail", spf: "fail", sigs: [{ d: "sendgrid.net", s: "s1", r: "pass" }], spfRes: { d: em, r: "fail" } },
    ],
  });
  const old = reportXml({ domain: d.name, org: "google.com", begin: day0(40), end: day0(39) - 1, records: [{ ip: "209.85.220.41", count: 1000 }] });
  for (const x of [a, b, old]) expect((await post(x)).status).toBe(202);
});

async function get(path: string, token = team.full): Promise<Response> {
  return call(path, { token });
}

describe("GET /domains/{domain}/dmarc", () => {
  it("matches hand-computed totals, series, sources and failing senders", async () => {
    stub = installDohStub(ZONE);
    const res = await get(`/api/v1/domains/${d.id}/dmarc`);
    expect(res.status).toBe(200);
    const { data } = await json<{ data: Analytics }>(res);
    // In the 30-day window: 100 + 20 + 5 + 50 + 10 = 185 messages; DMARC pass = 100 + 50 = 150.
    expect(data.summary).toMatchObject({ reports: 2, reporters: 2, messages: 185 });
    expect(data.summary.first_report_at).toBe(new Date(day0(3) * 1000).toISOString());
    expect(data.alignment).toEqual({ rate: 0.8108, pass: 150, fail: 35, spf_aligned: 100, dkim_aligned: 150 });
    expect(data.daily).toHaveLength(30);
    expect(data.daily.filter((x) => x.messages > 0)).toEqual([
      { day: dayOf(day0(3)), messages: 125, pass: 100, fail: 25 },
      { day: dayOf(day0(1)), messages: 60, pass: 50, fail: 10 },
    ]);
    expect(data.sources_total).toBe(3);
    expect(data.sources.map((s) => [s.ip, s.messages, s.ptr, s.sender, s.identified_by])).toEqual([
      ["209.85.220.41", 150, "mail-sor-f41.google.com", "Google", "ptr"],
      ["198.51.100.7", 30, null, "SendGrid", "spf"],
      ["203.0.113.50", 5, null, null, null],
    ]);
    expect(data.sources[0]).toMatchObject({
      dmarc: { pass: 150, fail: 0 },
      spf: { pass: 100, fail: 50, aligned: 100 },
      dkim: { pass: 150, fail: 0, aligned: 150 },
    });
    expect(data.sources[1]).toMatchObject({ dmarc: { pass: 0, fail: 30 }, spf: { pass: 0, fail: 30, aligned: 0 }, dkim: { pass: 30, fail: 0, aligned: 0 } });
    expect(data.failing_senders).toHaveLength(1);
    expect(data.failing_senders[0]).toMatchObject({ sender: "SendGrid", messages: 30, fail: 30, sources: ["198.51.100.7"] });
    expect(data.failing_senders[0]?.fixes.join(" ")).toContain("include:sendgrid.net");
    expect(data.failing_senders[0]?.fixes.join(" ")).toContain("_domainkey");
    expect(data.enforcement).toMatchObject({ current_policy: "none", recommended_policy: "none", safe_to_enforce: false });
    expect(data.report_address).toBe(d.address);
    expect(data.suggested_record).toBe(`v=DMARC1; p=none; rua=mailto:${d.address}`);
    expect(data.suggested_record).not.toContain("pct");
  });

  it("widens with days, caches reverse DNS and SPF ranges in public_cache", async () => {
    stub = installDohStub(ZONE);
    const res = await get(`/api/v1/domains/${d.id}/dmarc?days=60`);
    const { data } = await json<{ data: Analytics }>(res);
    expect(data.summary.messages).toBe(1185);
    expect(data.daily).toHaveLength(60);
    expect(data.sources[0]?.sender).toBe("Google");
    // Reverse DNS and the SPF ranges resolved by the first request are cached; only providers beyond
    // the per-request bound (4) are resolved now, 4 more at most.
    expect(stub.queries.filter((q) => q.type === "PTR" || q.type === "A")).toEqual([]);
    const spfNames = new Set(stub.queries.map((q) => q.name));
    expect(spfNames.has("_spf.google.com") || spfNames.has("sendgrid.net")).toBe(false);
    expect(spfNames.size).toBeLessThanOrEqual(4 * 3);
    const one = await json<{ data: Analytics }>(await get(`/api/v1/domains/${d.id}/dmarc?days=1`));
    expect(one.data.summary.messages).toBe(0);
    expect(one.data.alignment.rate).toBeNull();
  });

  it("422 for days out of range; 404 for another team's or an unknown domain; 401 without a token; read-only may GET", async () => {
    stub = installDohStub(ZONE);
    expect((await get(`/api/v1/domains/${d.id}/dmarc?days=0`)).status).toBe(422);
    expect((await get(`/api/v1/domains/${d.id}/dmarc?days=366`)).status).toBe(422);
    expect((await get(`/api/v1/domains/${d.id}/dmarc?days=abc`)).status).toBe(422);
    const other = await makeTeam();
    expect((await get(`/api/v1/domains/${d.id}/dmarc`, other.full)).status).toBe(404);
    expect((await get(`/api/v1/domains/99999999/dmarc`)).status).toBe(404);
    expect((await call(`/api/v1/domains/${d.id}/dmarc`)).status).toBe(401);
    expect((await get(`/api/v1/domains/${d.id}/dmarc`, team.readOnly)).status).toBe(200);
  });
});

describe("advice and sender table", () => {
  it("enforcement: one step up at ≥ 98% over ≥ 14 days and ≥ 500 messages with no failing sender", () => {
    const ok = { current: "none", passRate: 0.99, daysWithData: 14, messages: 500, failingSenders: [] };
    expect(enforcementAdvice(ok)).toMatchObject({ recommended_policy: "quarantine", safe_to_enforce: true });
    expect(enforcementAdvice({ ...ok, current: "quarantine" })).toMatchObject({ recommended_policy: "reject", safe_to_enforce: true });
    expect(enforcementAdvice({ ...ok, passRate: 0.97 })).toMatchObject({ recommended_policy: "none", safe_to_enforce: false });
    expect(enforcementAdvice({ ...ok, daysWithData: 13 }).safe_to_enforce).toBe(false);
    expect(enforcementAdvice({ ...ok, messages: 499 }).safe_to_enforce).toBe(false);
    expect(enforcementAdvice({ ...ok, failingSenders: ["Mailchimp"] }).safe_to_enforce).toBe(false);
    expect(enforcementAdvice({ ...ok, passRate: null, messages: 0 }).reason).toMatch(/No report data/);
    expect(suggestedRecord("reject", "t@r.test")).toBe("v=DMARC1; p=reject; rua=mailto:t@r.test");
  });

  it("PTR suffixes match at label boundaries, longest first", () => {
    expect(senderByPtr("mail-sor-f41.google.com")?.name).toBe("Google");
    expect(senderByPtr("mail-eopbgr.outbound.protection.outlook.com.")?.name).toBe("Microsoft 365");
    expect(senderByPtr("a8-30.smtp-out.amazonses.com")?.name).toBe("Amazon SES");
    expect(senderByPtr("mail180-1.suw21.mcsv.net")?.name).toBe("Mailchimp");
    expect(senderByPtr("notgoogle.com")).toBeNull();
  });
});
