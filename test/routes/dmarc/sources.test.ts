// GET /domains/{domain}/dmarc/sources: every source of the window, consistent with the analytics totals; filters, paging, security.
import { beforeAll, describe, expect, it } from "vitest";
import { call, json, makeTeam, type TestTeam } from "../../support/api";
import { installDohStub, type StubZone } from "../../support/doh-stub";
import { day0, makeDomain, post, reportXml, type Rec, type TestDomain } from "../../support/reports";

interface Source {
  ip: string;
  ptr: string | null;
  sender: string | null;
  identified_by: string | null;
  messages: number;
  dmarc: { pass: number; fail: number };
  spf: { pass: number; fail: number; aligned: number };
  dkim: { pass: number; fail: number; aligned: number };
  first_day: string;
  last_day: string;
}
type Meta = { current_page: number; per_page: number; total: number; last_page: number; window: { days: number; from: string; to: string } };
type Page = { data: Source[]; meta: Meta };

const ZONE: StubZone = {
  "41.220.85.209.in-addr.arpa": { PTR: ["mail-sor-f41.google.com"] },
  "mail-sor-f41.google.com": { A: ["209.85.220.41"] },
  "_spf.google.com": { TXT: ["v=spf1 ip4:209.85.128.0/17 ~all"] },
  "sendgrid.net": { TXT: ["v=spf1 ip4:198.51.100.0/24 -all"] },
};

let team: TestTeam;
let d: TestDomain;
const dayOf = (s: number) => new Date(s * 1000).toISOString().slice(0, 10);
const fail = (ip: string, count: number): Rec => ({
  ip,
  count,
  dkim: "fail",
  spf: "fail",
  sigs: [{ d: "spoof.test", r: "fail" }],
  spfRes: { d: "spoof.test", r: "fail" },
});

beforeAll(async () => {
  // Ingestion looks up the selectors a report names and names new senders (caching provider ranges
  // for a day), so it sees the same DNS as the views below.
  installDohStub(ZONE);
  team = await makeTeam();
  d = await makeDomain(team.id);
  // 23 sources over two reports: enough for several pages; some sources both pass and fail.
  const many: Rec[] = Array.from({ length: 18 }, (_, i) => (i % 3 === 0 ? fail(`203.0.113.${i + 1}`, i + 1) : { ip: `203.0.113.${i + 1}`, count: i + 1 }));
  const a = reportXml({
    domain: d.name,
    org: "google.com",
    begin: day0(3),
    end: day0(2) - 1,
    records: [{ ip: "209.85.220.41", count: 100 }, { ip: "198.51.100.7", count: 20, dkim: "fail", sigs: [{ d: "sendgrid.net", r: "pass" }] }, ...many],
  });
  const b = reportXml({
    domain: d.name,
    org: "Yahoo",
    begin: day0(1),
    end: day0(0) - 1,
    records: [{ ip: "209.85.220.41", count: 50 }, fail("198.51.100.7", 10), fail("2001:db8::5", 4), { ip: "2001:db8:1::9", count: 3 }, fail("192.0.2.200", 2)],
  });
  const old = reportXml({ domain: d.name, org: "google.com", begin: day0(40), end: day0(39) - 1, records: [{ ip: "192.0.2.77", count: 1000 }] });
  for (const x of [a, b, old]) expect((await post(x)).status).toBe(202);
});

const get = (path: string, token: string | null = team.full) => call(path, { token });
const base = () => `/api/v1/domains/${d.id}/dmarc`;

async function allPages(query: string, perPage = 7): Promise<Source[]> {
  const out: Source[] = [];
  for (let page = 1; ; page++) {
    const res = await get(`${base()}/sources?per_page=${perPage}&page=${page}${query}`);
    expect(res.status).toBe(200);
    const body = await json<Page>(res);
    out.push(...body.data);
    if (page >= body.meta.last_page) {
      expect(out).toHaveLength(body.meta.total);
      return out;
    }
  }
}

const sum = (xs: Source[], f: (s: Source) => number) => xs.reduce((a, s) => a + f(s), 0);

describe("GET /domains/{domain}/dmarc/sources", () => {
  it("the pages add up to the analytics summary: messages, pass, fail, aligned counts and sources_total", async () => {
    installDohStub(ZONE);
    const summary = (await json<{ data: any }>(await get(base()))).data;
    const sources = await allPages("");
    expect(sources).toHaveLength(summary.sources_total);
    expect(new Set(sources.map((s) => s.ip)).size).toBe(sources.length);
    expect(sum(sources, (s) => s.messages)).toBe(summary.summary.messages);
    expect(sum(sources, (s) => s.dmarc.pass)).toBe(summary.alignment.pass);
    expect(sum(sources, (s) => s.dmarc.fail)).toBe(summary.alignment.fail);
    expect(sum(sources, (s) => s.spf.aligned)).toBe(summary.alignment.spf_aligned);
    expect(sum(sources, (s) => s.dkim.aligned)).toBe(summary.alignment.dkim_aligned);
    // Same order and same per-source numbers as the summary's top sources.
    expect(sources.slice(0, summary.sources.length).map((s) => [s.ip, s.messages, s.dmarc])).toEqual(
      summary.sources.map((s: Source) => [s.ip, s.messages, s.dmarc]),
    );
    // The 40-day-old report is outside the default 30 days.
    expect(sources.some((s) => s.ip === "192.0.2.77")).toBe(false);
  });

  it("each source: counts, first and last day, identified sender and reverse DNS", async () => {
    installDohStub(ZONE);
    const { data, meta } = await json<Page>(await get(`${base()}/sources?per_page=2`));
    expect(meta).toMatchObject({ current_page: 1, per_page: 2, total: 23, last_page: 12, window: { days: 30 } });
    expect(data[0]).toEqual({
      ip: "209.85.220.41",
      ptr: "mail-sor-f41.google.com",
      sender: "Google",
      identified_by: "ptr",
      messages: 150,
      dmarc: { pass: 150, fail: 0 },
      spf: { pass: 150, fail: 0, aligned: 150 },
      dkim: { pass: 150, fail: 0, aligned: 150 },
      first_day: dayOf(day0(3)),
      last_day: dayOf(day0(1)),
    });
    expect(data[1]).toMatchObject({ ip: "198.51.100.7", messages: 30, sender: "SendGrid", identified_by: "spf", dmarc: { pass: 20, fail: 10 } });
  });

  it("result=pass|fail counts only those messages; the two add up to the summary's pass and fail", async () => {
    installDohStub(ZONE);
    const summary = (await json<{ data: any }>(await get(base()))).data;
    const passing = await allPages("&result=pass");
    const failing = await allPages("&result=fail");
    expect(sum(passing, (s) => s.messages)).toBe(summary.alignment.pass);
    expect(sum(failing, (s) => s.messages)).toBe(summary.alignment.fail);
    expect(failing.every((s) => s.dmarc.pass === 0 && s.dmarc.fail === s.messages)).toBe(true);
    expect(failing.find((s) => s.ip === "198.51.100.7")?.messages).toBe(10);
    expect(passing.some((s) => s.ip === "2001:db8::5")).toBe(false);
  });

  it("ip filters by address or CIDR prefix, either family; sender filters by the identified sender", async () => {
    installDohStub(ZONE);
    const net = await allPages(`&ip=${encodeURIComponent("203.0.113.0/28")}`);
    expect(net.map((s) => s.ip).sort()).toEqual(Array.from({ length: 15 }, (_, i) => `203.0.113.${i + 1}`).sort());
    expect((await allPages("&ip=2001:db8::/32")).map((s) => s.ip)).toEqual(["2001:db8::5", "2001:db8:1::9"]);
    expect((await allPages("&ip=2001:DB8::5")).map((s) => s.ip)).toEqual(["2001:db8::5"]);
    expect((await allPages("&ip=198.51.100.7&result=fail")).map((s) => [s.ip, s.messages])).toEqual([["198.51.100.7", 10]]);
    const google = await json<Page>(await get(`${base()}/sources?sender=google`));
    expect(google.data.map((s) => s.ip)).toEqual(["209.85.220.41"]);
    expect(google.meta.total).toBe(1);
    expect((await json<Page>(await get(`${base()}/sources?sender=SendGrid&ip=198.51.100.0/24`))).data.map((s) => s.ip)).toEqual(["198.51.100.7"]);
    expect((await json<Page>(await get(`${base()}/sources?sender=Nobody`))).meta.total).toBe(0);
  });

  it("days and from/to choose the window", async () => {
    installDohStub(ZONE);
    const wide = await json<Page>(await get(`${base()}/sources?days=60&ip=192.0.2.77`));
    expect(wide.data.map((s) => [s.ip, s.messages])).toEqual([["192.0.2.77", 1000]]);
    const range = await json<Page>(await get(`${base()}/sources?from=${dayOf(day0(1))}&to=${dayOf(day0(1))}`));
    expect(range.meta.window).toEqual({ days: 1, from: dayOf(day0(1)), to: dayOf(day0(1)) });
    expect(range.meta.total).toBe(5);
  });

  it("422 for a bad ip, result, window or paging", async () => {
    installDohStub(ZONE);
    for (const q of [
      "ip=203.0.113.0/33",
      "ip=2001:db8::/129",
      "ip=nonsense",
      "ip=10.0.0.1/8/2",
      "result=maybe",
      "days=0",
      "per_page=0",
      "from=2026-02-30",
      "to=yesterday",
    ]) {
      const res = await get(`${base()}/sources?${q}`);
      expect([q, res.status]).toEqual([q, 422]);
      expect((await json<{ code: string }>(res)).code).toBe("validation_failed");
    }
  });

  it("security: 401 without or with a bad token, read-only may read, another team's or an unknown domain is 404", async () => {
    installDohStub(ZONE);
    expect((await get(`${base()}/sources`, null)).status).toBe(401);
    expect((await get(`${base()}/sources`, "eam_not_a_real_token")).status).toBe(401);
    expect((await get(`${base()}/sources`, team.readOnly)).status).toBe(200);
    const other = await makeTeam();
    expect((await get(`${base()}/sources`, other.full)).status).toBe(404);
    expect((await get("/api/v1/domains/99999999/dmarc/sources")).status).toBe(404);
  });
});
