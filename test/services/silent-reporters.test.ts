// Silent-reporter alert (docs/decisions.md D104): a reporter that sent daily and then nothing for three
// days raises reports_missing once, naming it; once it sends again the daily job resolves the alert.
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { SCHEDULES, DAILY } from "../../src/cron";
import { DAY_MS } from "../../src/lib/time";
import { createServices } from "../../src/services";
import { checkSilentReporters } from "../../src/services/dmarc/silent-reporters";
import { EVENT_DATA } from "../../src/services/events/schemas";
import { makeTeam } from "../support/api";
import { insertDomain } from "../support/factories";
import { reporterSeen } from "../support/reports";
import { outboxAndLogEvents } from "../support/webhooks";

const svc = () => createServices(env);

/** A report from `org` received `daysAgo` days ago (what the daily job reads: D1 dmarc_reporter_days). */
async function received(domainId: number, org: string, daysAgo: number) {
  await reporterSeen(domainId, org, new Date(Date.now() - daysAgo * DAY_MS));
}

const alertsOf = async (domainId: number) =>
  (
    await env.DB.prepare("SELECT subject, title, body, occurrences, resolved_at FROM alerts WHERE domain_id = ? AND kind = 'reports_missing'")
      .bind(domainId)
      .all<{ subject: string; title: string; body: string; occurrences: number; resolved_at: number | null }>()
  ).results;
const eventsOf = async (domainId: number, type: string) =>
  (await outboxAndLogEvents({ domainId }))
    .filter((r) => r.type === type)
    .map((r) => r.payload as unknown as { data: { alert: { kind: string } } })
    .filter((e) => e.data.alert.kind === "reports_missing");

describe("reports_missing alert", () => {
  it("names the reporters that went quiet, is raised once, and resolves itself when they send again", async () => {
    const team = await makeTeam();
    const d = await insertDomain(team.id);
    // google.com: daily from 10 to 4 days ago, then nothing. Yahoo: daily up to today. Tiny ISP: twice only.
    for (let i = 4; i <= 10; i++) await received(d.id, "google.com", i);
    for (let i = 0; i <= 10; i++) await received(d.id, "Yahoo", i);
    await received(d.id, "tiny-isp.example", 6);
    await received(d.id, "tiny-isp.example", 9);

    await checkSilentReporters(svc());
    const raised = await alertsOf(d.id);
    expect(raised).toHaveLength(1);
    expect(raised[0]).toMatchObject({ subject: "dmarc:reports", occurrences: 1, resolved_at: null });
    expect(raised[0]?.title).toContain("google.com");
    expect(raised[0]?.title).not.toContain("Yahoo");
    expect(raised[0]?.title).not.toContain("tiny-isp");
    expect(raised[0]?.body).toContain("rua");
    const created = await eventsOf(d.id, "alert.created");
    expect(created).toHaveLength(1);
    expect(EVENT_DATA["alert.created"].safeParse(created[0]?.data).success).toBe(true);

    // The next day's run: still quiet, the same alert (no second event).
    await checkSilentReporters(svc());
    expect((await alertsOf(d.id)).map((a) => a.occurrences)).toEqual([2]);
    expect(await eventsOf(d.id, "alert.created")).toHaveLength(1);

    await received(d.id, "google.com", 0);
    await checkSilentReporters(svc());
    expect((await alertsOf(d.id))[0]?.resolved_at).not.toBeNull();
    const resolved = await eventsOf(d.id, "alert.resolved");
    expect(resolved).toHaveLength(1);
    expect(EVENT_DATA["alert.resolved"].safeParse(resolved[0]?.data).success).toBe(true);
    await checkSilentReporters(svc());
    expect(await eventsOf(d.id, "alert.resolved")).toHaveLength(1);
  });

  it("leaves alone unverified domains and domains whose reporters never sent daily; it runs from the daily cron", async () => {
    const team = await makeTeam();
    const pending = await insertDomain(team.id, { verified: false });
    const sparse = await insertDomain(team.id);
    for (let i = 4; i <= 10; i++) await received(pending.id, "google.com", i);
    for (const i of [4, 6, 8, 10]) await received(sparse.id, "google.com", i);
    const job = SCHEDULES[DAILY]?.find((j) => j.name === "silent-reporters");
    expect(job).toBeDefined();
    await job?.run(svc());
    expect(await alertsOf(pending.id)).toEqual([]);
    expect(await alertsOf(sparse.id)).toEqual([]);
  });

  it("walks more verified domains than one statement may bind (D1: 100 parameters) and still finds the quiet one at the end", async () => {
    const team = await makeTeam();
    const many = [];
    for (let i = 0; i < 230; i++) many.push(await insertDomain(team.id));
    const last = many.at(-1);
    if (!last) throw new Error("no domain");
    for (let i = 4; i <= 10; i++) await received(last.id, "google.com", i);
    const out = await checkSilentReporters(svc());
    expect(out.domains).toBeGreaterThanOrEqual(230);
    expect((await alertsOf(last.id)).map((a) => a.title)).toEqual([expect.stringContaining("google.com")]);
  });
});
