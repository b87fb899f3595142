import { beforeAll, describe, expect, it } from "vitest";
import { call, json, makeTeam, type TestTeam } from "../../support/api";
import { installDohStub } from "../../support/doh-stub";
import { day0, makeDomain, post, reportXml, stored, type TestDomain } from "../../support/reports";

interface Summary {
  id: number;
  org_name: string;
  report_id: string;
  date_begin: string;
  date_end: string;
  messages: number;
  pass: number;
  fail: number;
  received_at: string;
}
interface Detail extends Summary {
  email: string | null;
  policy_published: Record<string, unknown> | null;
  records: Array<{
    source_ip: string;
    count: number;
    disposition: string | null;
    header_from: string | null;
    dkim: { domain: string | null; selector: string | null; result: string | null; aligned: boolean };
    spf: { domain: string | null; result: string | null; aligned: boolean };
    dmarc: string;
  }>;
}
type Meta = { current_page: number; per_page: number; total: number; last_page: number };

let team: TestTeam;
let d: TestDomain;
let half: number;

beforeAll(async () => {
  installDohStub({}); // ingestion looks up the selectors a report names
  team = await makeTeam();
  d = await makeDomain(team.id);
  const reports = [
    reportXml({
      domain: d.name,
      org: "google.com",
      reportId: "g-1",
      begin: day0(5),
      end: day0(4) - 1,
      p: "quarantine",
      records: [
        { ip: "209.85.220.41", count: 100 },
        {
          ip: "203.0.113.50",
          count: 5,
          dkim: "fail",
          spf: "fail",
          disposition: "quarantine",
          sigs: [{ d: "spoof.test", r: "fail" }],
          spfRes: { d: "spoof.test", r: "fail" },
        },
      ],
    }),
    reportXml({ domain: d.name, org: "Yahoo", reportId: "y-1", begin: day0(2), end: day0(1) - 1, records: [{ ip: "198.51.100.7", count: 7 }] }),
    reportXml({ domain: d.name, org: "Mail.Ru", reportId: "m-1", begin: day0(3), end: day0(2) - 1, records: [{ ip: "192.0.2.1", count: 1 }] }),
  ];
  for (const x of reports) expect((await post(x)).status).toBe(202);
  // A report and its rows are one transaction in the domain's object (docs/decisions.md D122): no half-written
  // report exists to be listed; an id the object does not hold is a 404.
  half = (await stored(d.id)).reports.reduce((m, r) => Math.max(m, r.id), 0) + 1;
});

const get = (path: string, token: string | null = team.full) => call(path, { token });

describe("GET /domains/{domain}/dmarc/reports", () => {
  it("lists complete reports, newest reported period first, with pass/fail from their records", async () => {
    const res = await get(`/api/v1/domains/${d.id}/dmarc/reports`);
    expect(res.status).toBe(200);
    const { data, meta } = await json<{ data: Summary[]; meta: Meta }>(res);
    expect(meta).toEqual({ current_page: 1, per_page: 25, total: 3, last_page: 1 });
    expect(data.map((r) => [r.org_name, r.report_id, r.messages, r.pass, r.fail])).toEqual([
      ["Yahoo", "y-1", 7, 7, 0],
      ["Mail.Ru", "m-1", 1, 1, 0],
      ["google.com", "g-1", 105, 100, 5],
    ]);
    expect(data[2]).toMatchObject({ date_begin: new Date(day0(5) * 1000).toISOString(), date_end: new Date((day0(4) - 1) * 1000).toISOString() });
    expect(Date.parse(data[2]?.received_at ?? "")).toBeGreaterThan(0);
  });

  it("paginates with the meta of docs/decisions.md D3; out-of-range paging is 422", async () => {
    const p2 = await json<{ data: Summary[]; meta: Meta }>(await get(`/api/v1/domains/${d.id}/dmarc/reports?per_page=2&page=2`));
    expect(p2.meta).toEqual({ current_page: 2, per_page: 2, total: 3, last_page: 2 });
    expect(p2.data.map((r) => r.report_id)).toEqual(["g-1"]);
    expect((await get(`/api/v1/domains/${d.id}/dmarc/reports?per_page=201`)).status).toBe(422);
    expect((await get(`/api/v1/domains/${d.id}/dmarc/reports?page=0`)).status).toBe(422);
  });

  it("security: 401 without or with a bad token, read-only may read, another team's domain is 404", async () => {
    expect((await get(`/api/v1/domains/${d.id}/dmarc/reports`, null)).status).toBe(401);
    expect((await get(`/api/v1/domains/${d.id}/dmarc/reports`, "eam_not_a_real_token")).status).toBe(401);
    expect((await get(`/api/v1/domains/${d.id}/dmarc/reports`, team.readOnly)).status).toBe(200);
    const other = await makeTeam();
    expect((await get(`/api/v1/domains/${d.id}/dmarc/reports`, other.full)).status).toBe(404);
    expect((await get(`/api/v1/domains/99999999/dmarc/reports`)).status).toBe(404);
  });
});

describe("GET /domains/{domain}/dmarc/reports/{report}", () => {
  const idOf = async (reportId: string) => {
    const { data } = await json<{ data: Summary[] }>(await get(`/api/v1/domains/${d.id}/dmarc/reports`));
    return data.find((r) => r.report_id === reportId)?.id ?? 0;
  };

  it("answers the report, the policy the reporter saw and its records with results and alignment", async () => {
    const id = await idOf("g-1");
    const res = await get(`/api/v1/domains/${d.id}/dmarc/reports/${id}`);
    expect(res.status).toBe(200);
    const { data, meta } = await json<{ data: Detail; meta: Meta }>(res);
    expect(data).toMatchObject({ id, org_name: "google.com", report_id: "g-1", email: "noreply-dmarc-support@google.com", messages: 105, pass: 100, fail: 5 });
    expect(data.policy_published).toMatchObject({ domain: d.name, p: "quarantine", adkim: "r", aspf: "r", pct: 100 });
    expect(meta.total).toBe(2);
    expect(data.records).toEqual([
      {
        source_ip: "209.85.220.41",
        count: 100,
        disposition: "none",
        header_from: d.name,
        dkim: { domain: d.name, selector: "s1", result: "pass", aligned: true },
        spf: { domain: d.name, result: "pass", aligned: true },
        dmarc: "pass",
      },
      {
        source_ip: "203.0.113.50",
        count: 5,
        disposition: "quarantine",
        header_from: d.name,
        dkim: { domain: "spoof.test", selector: null, result: "fail", aligned: false },
        spf: { domain: "spoof.test", result: "fail", aligned: false },
        dmarc: "fail",
      },
    ]);
    const page2 = await json<{ data: Detail; meta: Meta }>(await get(`/api/v1/domains/${d.id}/dmarc/reports/${id}?per_page=1&page=2`));
    expect(page2.data.records.map((r) => r.source_ip)).toEqual(["203.0.113.50"]);
    expect(page2.meta).toEqual({ current_page: 2, per_page: 1, total: 2, last_page: 2 });
  });

  it("404 for a report being written, another domain's report, another team's, an unknown id; 422/404 for a malformed id", async () => {
    const id = await idOf("y-1");
    expect((await get(`/api/v1/domains/${d.id}/dmarc/reports/${half}`)).status).toBe(404);
    const mine = await makeDomain(team.id);
    expect((await get(`/api/v1/domains/${mine.id}/dmarc/reports/${id}`)).status).toBe(404);
    const other = await makeTeam();
    expect((await get(`/api/v1/domains/${d.id}/dmarc/reports/${id}`, other.full)).status).toBe(404);
    expect((await get(`/api/v1/domains/${d.id}/dmarc/reports/99999999`)).status).toBe(404);
    expect((await get(`/api/v1/domains/${d.id}/dmarc/reports/abc`)).status).toBe(404);
    expect((await get(`/api/v1/domains/${d.id}/dmarc/reports/${id}`, null)).status).toBe(401);
    expect((await get(`/api/v1/domains/${d.id}/dmarc/reports/${id}`, team.readOnly)).status).toBe(200);
  });
});
