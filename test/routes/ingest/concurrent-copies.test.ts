// Copies of one report arriving at the same moment (docs/decisions.md D159): the domain's object hands
// the report's summarising lease to the first copy, which alone runs the D1 step; every other copy is a
// duplicate (200, duplicate: true) instead of replaying that step. Through the Worker's fetch export.
import { createExecutionContext, createScheduledController, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { afterEach, describe, expect, it, vi } from "vitest";
import worker from "../../../src/index";
import { SUMMARY_GRACE_MS } from "../../../src/services/dmarc/summary-due";
import { call, json, makeTeam } from "../../support/api";
import { day0, enc, makeDomain, post, postJson, base64, reportXml, stored } from "../../support/reports";
import { outboxAndLogEvents } from "../../support/webhooks";

afterEach(() => vi.restoreAllMocks());

const COPIES = 30;

/** Counts the D1 step of DMARC reports: the daily summary upsert is in every such batch, and only there. */
function countSummarySteps() {
  const prepare = env.DB.prepare.bind(env.DB);
  let steps = 0;
  vi.spyOn(env.DB, "prepare").mockImplementation((query: string) => {
    if (/^insert into "dmarc_daily"/i.test(query)) steps++;
    return prepare(query);
  });
  return () => steps;
}

describe("copies of one report at once", () => {
  it(`${COPIES} copies: exactly one 202, the rest 200 duplicate, the D1 step runs once, the views count it once`, async () => {
    const team = await makeTeam();
    const d = await makeDomain(team.id);
    const xml = reportXml({ domain: d.name, reportId: "burst", begin: day0(1), end: day0(0) - 1, records: [{ ip: "192.0.2.1", count: 7 }] });
    vi.useFakeTimers({ toFake: ["Date"], now: Date.now() });
    const steps = countSummarySteps();
    // Half by report address (JSON), half by policy domain (raw XML): both paths reach the same object.
    const responses = await Promise.all(
      Array.from({ length: COPIES }, (_, i) => (i % 2 === 0 ? postJson({ recipient: d.address, content_base64: base64(enc(xml)) }) : post(xml))),
    );
    const bodies = await Promise.all(responses.map((r) => json<{ data: { duplicate: boolean } }>(r)));
    const outcomes = responses.map((r, i) => [r.status, bodies[i]?.data.duplicate]);
    expect(outcomes.filter(([s, dup]) => s === 202 && dup === false)).toHaveLength(1);
    expect(outcomes.filter(([s, dup]) => s === 200 && dup === true)).toHaveLength(COPIES - 1);
    expect(steps(), "the report's D1 step ran once").toBe(1);

    expect((await stored(d.id)).reports.map((r) => r.status)).toEqual(["complete"]);
    const daily = await env.DB.prepare("SELECT reports, messages FROM dmarc_daily WHERE domain_id = ?").bind(d.id).all();
    expect(daily.results).toEqual([{ reports: 1, messages: 7 }]);
    expect((await outboxAndLogEvents({ domainId: d.id })).filter((e) => e.type === "dmarc.report.received")).toHaveLength(1);
    const view = await json<{ meta: { total: number }; data: Array<{ messages: number }> }>(
      await call(`/api/v1/domains/${d.id}/dmarc/reports`, { token: team.full }),
    );
    expect([view.meta.total, view.data[0]?.messages]).toEqual([1, 7]);
    // A minute later the sweep (D160) finds nothing to replay: the step ran, and a copy's due row that
    // landed while the step was running goes without another step.
    vi.setSystemTime(Date.now() + SUMMARY_GRACE_MS + 1000);
    const ctx = createExecutionContext();
    await worker.scheduled(createScheduledController({ cron: "* * * * *", scheduledTime: Date.now() }), env, ctx);
    await waitOnExecutionContext(ctx);
    expect(steps(), "the sweep replayed nothing").toBe(1);
    const due = await env.DB.prepare("SELECT COUNT(*) AS n FROM report_summaries_due WHERE domain_id = ?").bind(d.id).first<{ n: number }>();
    expect(due?.n).toBe(0);
  });

  it("a copy after the report was summarised is a plain duplicate, and a failed D1 step frees the lease for the next copy", async () => {
    const team = await makeTeam();
    const d = await makeDomain(team.id);
    const xml = reportXml({ domain: d.name, reportId: "fails-once", begin: day0(1), end: day0(0) - 1, records: [{ ip: "192.0.2.1", count: 3 }] });
    const steps = countSummarySteps();
    vi.spyOn(env.DB, "batch").mockRejectedValueOnce(new Error("D1 unavailable (test)"));
    expect((await post(xml)).status).toBe(500);
    expect((await stored(d.id)).reports.map((r) => r.status)).toEqual(["processing"]);
    // The failed copy let go of its lease: the re-send right after runs the step, it is not told "in progress".
    const resend = await post(xml);
    expect([resend.status, (await json<{ data: { duplicate: boolean } }>(resend)).data.duplicate]).toEqual([202, false]);
    const later = await post(xml);
    expect([later.status, (await json<{ data: { duplicate: boolean } }>(later)).data.duplicate]).toEqual([200, true]);
    expect(steps()).toBe(2);
    expect((await stored(d.id)).reports.map((r) => r.status)).toEqual(["complete"]);
  });
});
