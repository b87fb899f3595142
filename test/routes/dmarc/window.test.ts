// GET /domains/{domain}/dmarc with from/to (docs/decisions.md D71): how they combine with days, the plan's retention, 422s.
import { beforeAll, describe, expect, it } from "vitest";
import { call, json, makeTeam, type TestTeam } from "../../support/api";
import { installDohStub } from "../../support/doh-stub";
import { day0, makeDomain, post, reportXml, type TestDomain } from "../../support/reports";

type Analytics = {
  window: { days: number; from: string; to: string };
  summary: { reports: number; messages: number; refused: { total: number } };
  daily: Array<{ day: string; messages: number }>;
};
type Err = { code: string; errors: Record<string, string[]> };

let team: TestTeam;
let d: TestDomain;
const day = (daysAgo: number) => new Date(day0(daysAgo) * 1000).toISOString().slice(0, 10);

beforeAll(async () => {
  installDohStub({}); // ingestion looks up the selectors a report names
  team = await makeTeam("starter");
  d = await makeDomain(team.id);
  for (const [ago, count] of [
    [1, 10],
    [5, 20],
    [60, 40],
  ] as const) {
    const xml = reportXml({ domain: d.name, org: `org-${ago}`, begin: day0(ago), end: day0(ago - 1) - 1, records: [{ ip: "192.0.2.1", count }] });
    expect((await post(xml)).status).toBe(202);
  }
});

const analytics = (query: string, token: string | null = team.full) => call(`/api/v1/domains/${d.id}/dmarc?${query}`, { token });

describe("GET /domains/{domain}/dmarc window", () => {
  it("from and to: exactly those days, in the series and the totals", async () => {
    installDohStub({});
    const res = await analytics(`from=${day(5)}&to=${day(2)}`);
    expect(res.status).toBe(200);
    const { data } = await json<{ data: Analytics }>(res);
    expect(data.window).toEqual({ days: 4, from: day(5), to: day(2) });
    expect(data.daily.map((x) => x.day)).toEqual([day(5), day(4), day(3), day(2)]);
    expect(data.summary).toMatchObject({ reports: 1, messages: 20 });
  });

  it("only from runs to today; only to is the `days` days ending on it; days alone ends today", async () => {
    installDohStub({});
    const from = (await json<{ data: Analytics }>(await analytics(`from=${day(61)}&days=3`))).data;
    expect(from.window).toEqual({ days: 62, from: day(61), to: day(0) });
    expect(from.summary.messages).toBe(70);
    const to = (await json<{ data: Analytics }>(await analytics(`to=${day(4)}&days=7`))).data;
    expect(to.window).toEqual({ days: 7, from: day(10), to: day(4) });
    expect(to.summary.messages).toBe(20);
    const days = (await json<{ data: Analytics }>(await analytics("days=2"))).data;
    expect(days.window).toEqual({ days: 2, from: day(1), to: day(0) });
    expect(days.summary.messages).toBe(10);
  });

  it("422 naming the field: to after today, to before from, a start beyond the plan's retention, an impossible date", async () => {
    installDohStub({});
    const cases: Array<[string, string]> = [
      [`to=${new Date((day0(0) + 86_400) * 1000).toISOString().slice(0, 10)}`, "to"],
      [`from=${day(3)}&to=${day(4)}`, "to"],
      // starter keeps 90 days (docs/limits.md): the first kept day is 89 days ago.
      [`from=${day(90)}`, "from"],
      [`to=${day(80)}&days=30`, "to"],
      ["from=2026-02-30", "from"],
      ["from=2026-1-1", "from"],
    ];
    for (const [q, field] of cases) {
      const res = await analytics(q);
      expect([q, res.status]).toEqual([q, 422]);
      const body = await json<Err>(res);
      expect([q, body.code, Object.keys(body.errors)]).toEqual([q, "validation_failed", [field]]);
    }
    expect((await analytics(`from=${day(89)}`)).status).toBe(200);
  });

  it("security: 401 without a token, read-only may read, another team's domain is 404 before the window is checked", async () => {
    installDohStub({});
    expect((await analytics(`from=${day(5)}`, null)).status).toBe(401);
    expect((await analytics(`from=${day(5)}`, team.readOnly)).status).toBe(200);
    const other = await makeTeam();
    expect((await analytics(`from=${day(500)}`, other.full)).status).toBe(404);
  });
});
