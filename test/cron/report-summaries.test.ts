// The sweep of reports stored but never summarised (docs/decisions.md D160), through the Worker's real
// scheduled export: a report's D1 step is killed (env.DB.batch rejects for that one ingest, as a Worker
// dying between the object write and its batch would leave it) and nobody re-sends it. A minute later
// the every-minute cron runs the step: daily summary, event, alerts, the object's mark. Run again, it
// adds nothing; a later copy is a plain duplicate. DMARC and TLS reports alike.
import { createExecutionContext, createScheduledController, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { afterEach, describe, expect, it, vi } from "vitest";
import worker from "../../src/index";
import { SUMMARY_GRACE_MS } from "../../src/services/dmarc/summary-due";
import { json, makeTeam } from "../support/api";
import { installDohStub } from "../support/doh-stub";
import { day0, makeDomain, objectRows, post, reportXml, stored } from "../support/reports";
import { outboxAndLogEvents } from "../support/webhooks";
import { intake, rfcExample } from "../routes/tls/fixtures";

afterEach(() => vi.restoreAllMocks());

async function everyMinute() {
  const ctx = createExecutionContext();
  await worker.scheduled(createScheduledController({ cron: "* * * * *", scheduledTime: Date.now() }), env, ctx);
  await waitOnExecutionContext(ctx);
}

const d1 = async <T>(query: string, ...params: unknown[]) =>
  (
    await env.DB.prepare(query)
      .bind(...params)
      .all<T>()
  ).results;
const due = async (domainId: number) => (await d1<{ kind: string }>("SELECT kind FROM report_summaries_due WHERE domain_id = ?", domainId)).map((r) => r.kind);
const eventsOf = async (domainId: number, type: string) => (await outboxAndLogEvents({ domainId })).filter((e) => e.type === type);
const alertsOf = async (domainId: number) =>
  (await d1<{ kind: string; subject: string }>("SELECT kind, subject FROM alerts WHERE domain_id = ? ORDER BY kind, subject", domainId)).map(
    (a) => `${a.kind} ${a.subject}`,
  );
/**
 * The report's D1 step fails for this one ingest, as a Worker killed right after the object write: the
 * first statement inserting an event names a table that does not exist, so that one batch rolls back
 * whole (D1 runs a batch as one transaction) while every other query goes through.
 */
function killTheStep() {
  const prepare = env.DB.prepare.bind(env.DB);
  let killed = false;
  const spy = vi.spyOn(env.DB, "prepare").mockImplementation((query: string) => {
    if (killed || !/^insert into "events"/i.test(query)) return prepare(query);
    killed = true;
    return prepare(query.replace('"events"', '"events_of_a_killed_worker"'));
  });
  return () => {
    expect(killed, "the step was killed").toBe(true);
    spy.mockRestore();
  };
}

describe("the report-summaries sweep (every minute)", () => {
  it("runs the D1 step of a DMARC report stored but never summarised, once it is a minute old; twice adds nothing", async () => {
    vi.useFakeTimers({ toFake: ["Date"], now: Date.now() });
    installDohStub({});
    const team = await makeTeam();
    const d = await makeDomain(team.id);
    // 40 messages failing DMARC from one new address: the new-sender rule must see the report too.
    const xml = reportXml({
      domain: d.name,
      reportId: "never-resent",
      begin: day0(1),
      end: day0(0) - 1,
      records: [
        { ip: "192.0.2.1", count: 60 },
        { ip: "203.0.113.9", count: 40, dkim: "fail", spf: "fail" },
      ],
    });
    const revive = killTheStep();
    expect((await post(xml)).status).toBe(500);
    revive();
    expect((await stored(d.id)).reports.map((r) => r.status)).toEqual(["processing"]);
    expect(await eventsOf(d.id, "dmarc.report.received")).toHaveLength(0);
    expect(await due(d.id)).toEqual(["dmarc"]);

    // Within its minute the report is left alone: a copy may still be on its way.
    await everyMinute();
    expect((await stored(d.id)).reports.map((r) => r.status)).toEqual(["processing"]);

    vi.setSystemTime(Date.now() + SUMMARY_GRACE_MS + 1000);
    await everyMinute();
    expect((await stored(d.id)).reports.map((r) => r.status)).toEqual(["complete"]);
    const day = new Date(day0(1) * 1000).toISOString().slice(0, 10);
    const summary = () => d1("SELECT day, reports, messages, pass, fail FROM dmarc_daily WHERE domain_id = ?", d.id);
    expect(await summary()).toEqual([{ day, reports: 1, messages: 100, pass: 60, fail: 40 }]);
    const events = await eventsOf(d.id, "dmarc.report.received");
    expect(events).toHaveLength(1);
    expect(events[0]?.payload).toMatchObject({ data: { report: { report_id: "never-resent", messages: 100, records: 2 } } });
    expect(await alertsOf(d.id)).toEqual(["new_sender sender:203.0.113.9"]);
    expect(await d1("SELECT org_name FROM dmarc_reporter_days WHERE domain_id = ?", d.id)).toEqual([{ org_name: "google.com" }]);
    expect(await due(d.id)).toEqual([]);

    // Run again, and a late copy: nothing doubles, the event keeps its one id.
    vi.setSystemTime(Date.now() + SUMMARY_GRACE_MS + 1000);
    await everyMinute();
    const late = await post(xml);
    expect([late.status, (await json<{ data: { duplicate: boolean } }>(late)).data.duplicate]).toEqual([200, true]);
    expect(await summary()).toEqual([{ day, reports: 1, messages: 100, pass: 60, fail: 40 }]);
    expect((await eventsOf(d.id, "dmarc.report.received")).map((e) => e.id)).toEqual([events[0]?.id]);
    expect(await alertsOf(d.id)).toEqual(["new_sender sender:203.0.113.9"]);
    expect(await due(d.id)).toEqual([]);
  });

  it("runs the D1 step of a TLS report stored but never summarised: its event and alert, once", async () => {
    vi.useFakeTimers({ toFake: ["Date"], now: Date.now() });
    installDohStub({});
    const team = await makeTeam();
    const d = await makeDomain(team.id);
    const report = JSON.stringify(rfcExample(d.name, "tls-never-resent"));
    const revive = killTheStep();
    expect((await intake(d.reportToken, report)).status).toBe(500);
    revive();
    const marks = () => objectRows<{ s: number | null }>(d.id, "SELECT summarised_at AS s FROM tls_reports");
    expect((await marks()).map((r) => r.s)).toEqual([null]);
    expect(await due(d.id)).toEqual(["tls"]);

    vi.setSystemTime(Date.now() + SUMMARY_GRACE_MS + 1000);
    await everyMinute();
    expect((await marks()).map((r) => r.s !== null)).toEqual([true]);
    const events = await eventsOf(d.id, "tlsrpt.report.received");
    expect(events).toHaveLength(1);
    expect(events[0]?.payload).toMatchObject({ data: { report: { report_id: "tls-never-resent", successful: 5326, failed: 303, via: "https" } } });
    expect(await alertsOf(d.id)).toEqual(["tls_failure tls:failures"]);
    expect(await due(d.id)).toEqual([]);

    vi.setSystemTime(Date.now() + SUMMARY_GRACE_MS + 1000);
    await everyMinute();
    expect((await intake(d.reportToken, report)).status).toBe(200);
    expect(await eventsOf(d.id, "tlsrpt.report.received")).toHaveLength(1);
    expect(await alertsOf(d.id)).toEqual(["tls_failure tls:failures"]);
  });

  it("clears a due row whose report never reached the object, and leaves other domains' rows alone until due", async () => {
    vi.useFakeTimers({ toFake: ["Date"], now: Date.now() });
    const team = await makeTeam();
    const d = await makeDomain(team.id);
    const other = await makeDomain(team.id);
    const at = Date.now();
    await env.DB.prepare(
      "INSERT INTO report_summaries_due (domain_id, kind, org_name, report_id, due_at) VALUES (?, 'dmarc', 'x.example', 'lost', ?), (?, 'dmarc', 'x.example', 'fresh', ?)",
    )
      .bind(d.id, at, other.id, at + 10 * SUMMARY_GRACE_MS)
      .run();
    await everyMinute();
    expect(await due(d.id)).toEqual([]);
    expect(await due(other.id)).toEqual(["dmarc"]);
    expect((await stored(d.id)).reports).toEqual([]);
  });
});
