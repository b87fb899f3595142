// The public report address is bounded (docs/limits.md): reports and records per day per domain, reports
// per reporter per day, the date range and the plan's retention. Over a limit nothing is stored, HTTP
// gets 429 with Retry-After (or 422), and the refusal shows on the domain's DMARC summary.
import { describe, expect, it } from "vitest";
import { REPORT_LIMITS } from "../../../src/lib/plans";
import { call, json, makeTeam } from "../../support/api";
import { base64, day0, enc, makeDomain, postJson, reportXml, seedReport, stored } from "../../support/reports";

const send = (d: { address: string; name: string }, o: { org?: string; email?: string; begin?: number; end?: number; records?: number } = {}) =>
  postJson({
    recipient: d.address,
    content_base64: base64(
      enc(
        reportXml({
          domain: d.name,
          org: o.org ?? "google.com",
          email: o.email,
          begin: o.begin ?? day0(1),
          end: o.end ?? day0(0) - 1,
          records: Array.from({ length: o.records ?? 1 }, (_, i) => ({ ip: `192.0.2.${(i % 250) + 1}`, count: 1 })),
        }),
      ),
    ),
  });

/** Reports already received today, written directly into the domain's object (the limit is what is under test, not 200 uploads). */
async function receivedToday(domainId: number, n: number, records: number) {
  const now = Date.now();
  for (let i = 0; i < n; i++) {
    await seedReport(domainId, {
      orgName: `seed-${i}.example`,
      reportId: `seed-${i}`,
      dateBegin: now - 86_400_000,
      dateEnd: now - 1000,
      records,
      receivedAt: now,
      rows: [[new Date(now - 86_400_000).toISOString().slice(0, 10), "192.0.2.200", null, null, 1, 1, null, null, null, null, null, records]],
    });
  }
}
const storedReports = async (domainId: number) => (await stored(domainId)).reports.filter((r) => !r.orgName.startsWith("seed-")).length;

describe("report address limits (starter plan)", () => {
  const limits = REPORT_LIMITS.starter;

  it("reports per day: the last one under the limit is accepted, the next is a 429 with Retry-After, nothing stored", async () => {
    const team = await makeTeam("starter");
    const d = await makeDomain(team.id);
    await receivedToday(d.id, limits.reports_per_day - 1, 1);
    expect((await send(d)).status).toBe(202);
    const over = await send(d, { org: "yahoo.com" });
    expect(over.status).toBe(429);
    expect(Number(over.headers.get("retry-after"))).toBeGreaterThan(0);
    expect((await json<{ code: string }>(over)).code).toBe("quota_exceeded");
    expect(await storedReports(d.id)).toBe(1);
  });

  it("records per day: a report that would pass the day's records is refused", async () => {
    const team = await makeTeam("starter");
    const d = await makeDomain(team.id);
    await receivedToday(d.id, 1, limits.records_per_day - 3);
    expect((await send(d, { records: 3 })).status, "exactly at the limit").toBe(202);
    expect((await send(d, { org: "other.example", records: 1 })).status, "one record over").toBe(429);
  });

  it("reports per reporter per day: the 21st report of one reporter is refused, another reporter is not", async () => {
    const team = await makeTeam("starter");
    const d = await makeDomain(team.id);
    for (let i = 0; i < limits.reports_per_reporter_day; i++)
      expect((await send(d, { org: "flood.example", email: "r@flood.example" })).status, `report ${i + 1}`).toBe(202);
    expect((await send(d, { org: "flood.example", email: "r@flood.example" })).status).toBe(429);
    expect((await send(d, { org: "google.com", email: "noreply@google.com" })).status).toBe(202);
    const view = await json<{ data: { summary: { refused: { total: number; by_reason: Record<string, number> } } } }>(
      await call(`/api/v1/domains/${d.id}/dmarc?days=7`, { token: team.full }),
    );
    expect(view.data.summary.refused).toEqual({ total: 1, by_reason: { reports_per_reporter: 1 } });
  });

  it("date range over 7 days, a range in the future and a report older than the retention are 422 with nothing stored", async () => {
    const team = await makeTeam("starter");
    const d = await makeDomain(team.id);
    const cases: Array<[string, { begin: number; end: number }]> = [
      ["date_range_too_long", { begin: day0(9), end: day0(1) }],
      ["report_in_future", { begin: day0(-2), end: day0(-3) }],
      ["beyond_retention", { begin: day0(limits.retention_days + 3), end: day0(limits.retention_days + 2) }],
    ];
    for (const [code, range] of cases) {
      const res = await send(d, range);
      expect(res.status, code).toBe(422);
      expect(await json(res), code).toMatchObject({ errors: { body: [code] } });
    }
    expect((await send(d, { begin: day0(8), end: day0(1) })).status, "exactly 7 days is accepted").toBe(202);
    expect(await storedReports(d.id)).toBe(1);
  });
});

describe("date arithmetic on report input", () => {
  it("a huge, negative or pre-1990 date_range is a 422, never a RangeError 500", async () => {
    const team = await makeTeam();
    const d = await makeDomain(team.id);
    for (const [begin, end] of [
      [1e20, 1e20 + 1],
      [0, 1e17],
      [-1e20, 1],
      [99_999_999_999_999, 99_999_999_999_999],
      [100, 200],
    ] as const) {
      const res = await send(d, { begin, end });
      expect(res.status, `${begin}..${end}`).toBe(422);
      expect((await json<{ code: string }>(res)).code).toBe("validation_failed");
    }
    expect(await storedReports(d.id)).toBe(0);
  });
});

describe("internationalized policy domains", () => {
  it("a U-label policy domain is matched as its A-label, not refused", async () => {
    const team = await makeTeam();
    const idn = await makeDomain(team.id, { name: "xn--bcher-kva.example" });
    const res = await postJson({
      recipient: idn.address,
      content_base64: base64(enc(reportXml({ domain: "bücher.example", begin: day0(1), end: day0(0) - 1, records: [{ ip: "192.0.2.1", count: 2 }] }))),
    });
    expect(res.status).toBe(202);
    expect((await json<{ data: { domain: string } }>(res)).data.domain).toBe("xn--bcher-kva.example");
  });
});
