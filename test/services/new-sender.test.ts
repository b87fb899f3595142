// New-sender alert (docs/decisions.md D103): an address never seen for the domain failing DMARC past the
// threshold raises new_sender once, with alert.created; seen passing, the alert resolves itself with alert.resolved.
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { EVENT_DATA } from "../../src/services/events/schemas";
import { NEW_SENDER_RULE } from "../../src/services/dmarc/new-sender";
import { makeTeam } from "../support/api";
import { day0, enc, makeDomain, post, reportXml, type TestDomain } from "../support/reports";
import { outboxAndLogEvents } from "../support/webhooks";

const send = async (d: TestDomain, daysAgo: number, records: Array<{ ip: string; count: number; fail?: boolean }>) => {
  const xml = reportXml({
    domain: d.name,
    begin: day0(daysAgo),
    end: day0(daysAgo - 1) - 1,
    records: records.map((r) =>
      r.fail
        ? { ip: r.ip, count: r.count, dkim: "fail", spf: "fail", sigs: [{ d: "spoofer.example", r: "fail" }], spfRes: { d: "spoofer.example", r: "fail" } }
        : { ip: r.ip, count: r.count },
    ),
  });
  const res = await post(enc(xml));
  expect(res.status).toBe(202);
};

const alertsOf = async (domainId: number) =>
  (
    await env.DB.prepare("SELECT subject, occurrences, resolved_at, title, body FROM alerts WHERE domain_id = ? AND kind = 'new_sender' ORDER BY id")
      .bind(domainId)
      .all<{ subject: string; occurrences: number; resolved_at: number | null; title: string; body: string }>()
  ).results;
const eventsOf = async (domainId: number, type: string) =>
  (await outboxAndLogEvents({ domainId }))
    .filter((r) => r.type === type)
    .map((r) => r.payload as unknown as { data: { alert: { kind: string; subject: string } } })
    .filter((e) => e.data.alert.kind === "new_sender");

describe("new_sender alert", () => {
  it("is raised once for an unseen address failing past the threshold, and resolves itself when the address passes", async () => {
    const team = await makeTeam();
    const d = await makeDomain(team.id);
    await send(d, 4, [{ ip: "192.0.2.1", count: 50 }]);
    // A known address failing, and a new one failing exactly the threshold: no alert.
    await send(d, 3, [
      { ip: "192.0.2.1", count: 40, fail: true },
      { ip: "198.51.100.7", count: NEW_SENDER_RULE.minFailing, fail: true },
    ]);
    expect(await alertsOf(d.id)).toEqual([]);

    await send(d, 2, [{ ip: "203.0.113.9", count: 25, fail: true }]);
    const raised = await alertsOf(d.id);
    expect(raised).toHaveLength(1);
    expect(raised[0]).toMatchObject({ subject: "sender:203.0.113.9", occurrences: 1, resolved_at: null });
    expect(raised[0]?.title).toContain("203.0.113.9");
    expect(raised[0]?.body).toContain("25 messages");
    const created = await eventsOf(d.id, "alert.created");
    expect(created).toHaveLength(1);
    expect(EVENT_DATA["alert.created"].safeParse(created[0]?.data).success).toBe(true);

    // Seen again failing: it is no longer new, nothing more.
    await send(d, 1, [{ ip: "203.0.113.9", count: 30, fail: true }]);
    expect((await alertsOf(d.id)).map((a) => a.occurrences)).toEqual([1]);
    expect(await eventsOf(d.id, "alert.created")).toHaveLength(1);

    // Seen passing: resolved, with alert.resolved once.
    await send(d, 0, [{ ip: "203.0.113.9", count: 5 }]);
    const after = await alertsOf(d.id);
    expect(after[0]?.resolved_at).not.toBeNull();
    const resolved = await eventsOf(d.id, "alert.resolved");
    expect(resolved).toHaveLength(1);
    expect(resolved[0]?.data.alert.subject).toBe("sender:203.0.113.9");
    expect(EVENT_DATA["alert.resolved"].safeParse(resolved[0]?.data).success).toBe(true);
  });

  it("alerts at most NEW_SENDER_RULE.maxPerReport new addresses of one report, the biggest first, each in its own domain only", async () => {
    const team = await makeTeam();
    const other = await makeTeam();
    const d = await makeDomain(team.id);
    const o = await makeDomain(other.id);
    await send(
      d,
      1,
      Array.from({ length: 8 }, (_, i) => ({ ip: `203.0.113.${i + 1}`, count: 20 + i, fail: true })),
    );
    const subjects = (await alertsOf(d.id)).map((a) => a.subject);
    expect(subjects).toHaveLength(NEW_SENDER_RULE.maxPerReport);
    expect(subjects).toContain("sender:203.0.113.8");
    expect(subjects).not.toContain("sender:203.0.113.1");
    expect(await alertsOf(o.id)).toEqual([]);
  });
});
