// The notification pipeline through the Worker's exported queue handler, as the runtime calls it: alert
// events are fanned out (routing them to channels), a burst collects into one message per channel, the
// message is sent when its window closes, and what comes after (retries, the cooldown, resolves that follow
// their opening, PagerDuty incidents that close themselves, disabling after failures) follows the rules.
// Receivers are stubs at the edge (installReceiver); payload shapes are checked against the published
// limits in the renderer tests (src/core/notify/*.test.ts, test/node/adaptive-card.test.ts).
import { createExecutionContext, createMessageBatch, getQueueResult } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { eq } from "drizzle-orm";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import worker from "../../src/index";
import type { Severity } from "../../src/core/types";
import { events, notificationChannels } from "../../src/db/schema";
import { createServices, type Services } from "../../src/services";
import { upsertAlerts } from "../../src/services/alerts/raise";
import type { AlertKind } from "../../src/services/alerts/types";
import { systemContext } from "../../src/services/context";
import { resolveAlert } from "../../src/services/alerts/resolve-alert";
import { createChannel, updateChannel } from "../../src/services/notify/channels";
import { sweepNotifications } from "../../src/services/notify/sweep";
import { makeTeam } from "../support/api";
import { insertDomain, type TestDomain } from "../support/factories";
import { fakeQueue, installReceiver, type Received } from "../support/webhooks";

const SITE = "https://monitor.test";
const ROUTING_KEY = "R0UT1NGKEY0123456789abcdefABCDEF";

let q = fakeQueue();
let seq = 0;
/** The Worker's bindings as the runtime gives them, with a recording deliveries queue and a site URL for links. */
const workerEnv = () => ({ ...env, DELIVERIES_QUEUE: q.queue, SITE_URL: SITE });
const services = (): Services => createServices(workerEnv());

/** One batch through the exported queue handler; answers which messages were acked. */
async function runQueue(bodies: unknown[]) {
  const batch = createMessageBatch(
    "emailauth-deliveries",
    bodies.map((body) => ({ id: `n-${++seq}`, timestamp: new Date(), attempts: 1, body })),
  );
  const ctx = createExecutionContext();
  await worker.queue(batch, workerEnv(), ctx);
  return getQueueResult(batch, ctx);
}

/** Opens alerts through the alert service's own upsert, as a check does; answers the new alert.created event ids. */
async function openAlerts(
  svc: Services,
  teamId: number,
  d: TestDomain,
  list: Array<{ kind: AlertKind; subject: string; severity?: Severity; title?: string }>,
) {
  const up = upsertAlerts(
    svc.db,
    list.map((a) => ({
      teamId,
      domain: { id: d.id, name: d.name },
      kind: a.kind,
      subject: a.subject,
      severity: a.severity ?? "High",
      title: a.title ?? `${a.kind} ${a.subject}`,
      body: null,
    })),
    svc.clock.now(),
  );
  const [first, ...rest] = up.statements;
  if (first) await svc.db.batch([first, ...rest]);
  return up.eventIds;
}

/** The newest alert of a subject (a re-opened one is a new row). */
const alertIdOf = async (teamId: number, subject: string) =>
  Number(
    (await env.DB.prepare("SELECT id FROM alerts WHERE team_id = ? AND subject = ? ORDER BY id DESC LIMIT 1").bind(teamId, subject).first<{ id: number }>())
      ?.id,
  );

/** Fan-out messages for every event still in the outbox of this team (as the nudges would carry them). */
async function fanOut(teamId: number) {
  const rows = await env.DB.prepare("SELECT id FROM events WHERE team_id = ? ORDER BY created_at").bind(teamId).all<{ id: string }>();
  await runQueue(rows.results.map((r) => ({ kind: "fanout", event_id: r.id })));
}

/** The grouping window of every collecting message of the team closes now; their send messages run. */
async function closeWindows(teamId: number) {
  await env.DB.prepare("UPDATE notification_messages SET send_after = ? WHERE team_id = ? AND status = 'collecting'")
    .bind(Date.now() - 1, teamId)
    .run();
  const due = await env.DB.prepare("SELECT id FROM notification_messages WHERE team_id = ? AND status IN ('collecting', 'pending')")
    .bind(teamId)
    .all<{ id: number }>();
  await runQueue(due.results.map((r) => ({ kind: "notify", team_id: teamId, message_id: r.id })));
}

const messagesOf = (channelId: number) =>
  env.DB.prepare("SELECT id, status, attempts, requests, last_status, last_error FROM notification_messages WHERE channel_id = ? ORDER BY id")
    .bind(channelId)
    .all<{ id: number; status: string; attempts: number; requests: number; last_status: number | null; last_error: string | null }>()
    .then((r) => r.results);

let received: Received[] = [];
let respond: (r: (req: Received) => Response) => void;

beforeEach(() => {
  q = fakeQueue();
  const rx = installReceiver();
  received = rx.received;
  respond = rx.respond;
  vi.spyOn(console, "warn").mockImplementation(() => undefined);
});
afterEach(() => vi.restoreAllMocks());

async function setup(kind: "slack" | "pagerduty" | "teams", rule: Record<string, unknown> = {}) {
  const team = await makeTeam("enterprise");
  const d = await insertDomain(team.id);
  const svc = services();
  const ctx = systemContext(team.id);
  const target = kind === "pagerduty" ? { routing_key: ROUTING_KEY } : { url: "https://hooks.example.com/chat" };
  const channel = await createChannel(svc, ctx, "enterprise", { kind, name: `${kind} on-call`, ...target, rules: [{ min_severity: "Low", ...rule }] });
  return { team, d, svc, ctx, channel };
}

const toChat = (r: Received) => r.url.startsWith("https://hooks.example.com/");
const toPagerDuty = (r: Received) => r.url === "https://events.pagerduty.com/v2/enqueue";

describe("a burst of alerts becomes one message per channel", () => {
  it("ten alerts opened by one change reach Slack as one Block Kit message that lists them, sent when the window closes", async () => {
    const { team, d, svc, channel } = await setup("slack");
    await openAlerts(
      svc,
      team.id,
      d,
      Array.from({ length: 10 }, (_, i) => ({ kind: "drift" as const, subject: `record-${i}`, title: `Record ${i} changed` })),
    );
    await fanOut(team.id);
    expect(received.filter(toChat)).toHaveLength(0); // still collecting
    const nudges = q.sent.filter((m) => (m.body as { kind: string }).kind === "notify");
    expect(nudges).toHaveLength(1);
    expect(nudges[0]?.delaySeconds).toBe(30);

    await closeWindows(team.id);
    const posts = received.filter(toChat);
    expect(posts).toHaveLength(1);
    const body = JSON.parse(posts[0]?.body ?? "{}") as { text: string; blocks: unknown[] };
    expect(body.blocks.length).toBeGreaterThan(0);
    const all = JSON.stringify(body);
    for (let i = 0; i < 10; i++) expect(all).toContain(`Record ${i} changed`);
    expect(all).toContain(d.name);
    expect(all).toContain(`${SITE}/domains/${d.id}`);
    expect(posts[0]?.headers["content-type"]).toBe("application/json");
    const [m] = await messagesOf(channel.id);
    expect(m).toMatchObject({ status: "delivered", attempts: 1, requests: 1, last_status: 200 });
  });

  it("a repeated fan-out of the same events adds nothing and sends nothing twice", async () => {
    const { team, d, svc, channel } = await setup("slack");
    const ids = await openAlerts(svc, team.id, d, [{ kind: "drift", subject: "spf" }]);
    // The outbox row survives until routing is done; a crash after routing replays the same event.
    const row = await svc.db.query.events.findFirst({ where: eq(events.id, ids[0] ?? "") });
    await fanOut(team.id);
    if (row) await svc.db.insert(events).values(row);
    await fanOut(team.id);
    await closeWindows(team.id);
    await closeWindows(team.id);
    expect(received.filter(toChat)).toHaveLength(1);
    expect(await messagesOf(channel.id)).toHaveLength(1);
  });

  it("a rule takes only its kinds, severities and domains; a disabled channel gets nothing", async () => {
    const { team, d, svc, ctx, channel } = await setup("slack", { kinds: ["blacklist"], min_severity: "Critical" });
    await openAlerts(svc, team.id, d, [
      { kind: "drift", subject: "a", severity: "Critical" },
      { kind: "blacklist", subject: "b", severity: "High" },
    ]);
    await fanOut(team.id);
    await closeWindows(team.id);
    expect(await messagesOf(channel.id)).toHaveLength(0);
    await openAlerts(svc, team.id, d, [{ kind: "blacklist", subject: "c", severity: "Critical", title: "Listed on a blocklist" }]);
    await fanOut(team.id);
    await closeWindows(team.id);
    expect(received.filter(toChat)).toHaveLength(1);
    expect(received[0]?.body).toContain("Listed on a blocklist");

    await updateChannel(svc, ctx, channel.id, { enabled: false });
    await openAlerts(svc, team.id, d, [{ kind: "blacklist", subject: "d", severity: "Critical" }]);
    await fanOut(team.id);
    await closeWindows(team.id);
    expect(received.filter(toChat)).toHaveLength(1);
  });

  it("alerts of another team never reach this team's channel", async () => {
    const { channel } = await setup("slack");
    const other = await makeTeam("enterprise");
    const od = await insertDomain(other.id);
    const svc = services();
    await openAlerts(svc, other.id, od, [{ kind: "drift", subject: "x" }]);
    await fanOut(other.id);
    await closeWindows(other.id);
    expect(await messagesOf(channel.id)).toHaveLength(0);
    expect(received.filter(toChat)).toHaveLength(0);
  });
});

describe("cooldown and resolves", () => {
  it("an alert that flaps inside the cooldown is not sent twice in a row, and its resolve is not sent either", async () => {
    const { team, d, svc, ctx, channel } = await setup("slack", { cooldown_minutes: 60 });
    await openAlerts(svc, team.id, d, [{ kind: "drift", subject: "dmarc" }]);
    await fanOut(team.id);
    await closeWindows(team.id);
    expect(received.filter(toChat)).toHaveLength(1);
    // It resolves (sent where the opening went), then opens again within the hour: flapping.
    await resolveAlert(svc, ctx, await alertIdOf(team.id, "dmarc"));
    await fanOut(team.id);
    await closeWindows(team.id);
    expect(received.filter(toChat)).toHaveLength(2);
    expect(received[1]?.body).toMatch(/resolved/i);
    await openAlerts(svc, team.id, d, [{ kind: "drift", subject: "dmarc" }]);
    await fanOut(team.id);
    await closeWindows(team.id);
    expect(received.filter(toChat)).toHaveLength(2);
    const suppressed = await env.DB.prepare("SELECT COUNT(*) AS n FROM notification_items WHERE channel_id = ? AND suppressed = 1")
      .bind(channel.id)
      .first<{ n: number }>();
    expect(suppressed?.n).toBe(1);
    await resolveAlert(svc, ctx, await alertIdOf(team.id, "dmarc"));
    await fanOut(team.id);
    await closeWindows(team.id);
    expect(received.filter(toChat)).toHaveLength(2);
  });

  it("with no cooldown the second opening is sent", async () => {
    const { team, d, svc, ctx } = await setup("slack", { cooldown_minutes: 0 });
    await openAlerts(svc, team.id, d, [{ kind: "drift", subject: "spf" }]);
    await fanOut(team.id);
    await closeWindows(team.id);
    await resolveAlert(svc, ctx, await alertIdOf(team.id, "spf"));
    await openAlerts(svc, team.id, d, [{ kind: "drift", subject: "spf" }]);
    await fanOut(team.id);
    await closeWindows(team.id);
    const texts = received.filter(toChat).map((r) => r.body);
    expect(texts.length).toBe(2);
  });

  it("a resolve goes only where its opening was sent", async () => {
    const { team, d, svc, ctx } = await setup("slack", { kinds: ["blacklist"] });
    await openAlerts(svc, team.id, d, [{ kind: "drift", subject: "not-routed" }]);
    await fanOut(team.id);
    await resolveAlert(svc, ctx, await alertIdOf(team.id, "not-routed"));
    await fanOut(team.id);
    await closeWindows(team.id);
    expect(received.filter(toChat)).toHaveLength(0);
  });
});

describe("PagerDuty incidents open and close themselves", () => {
  it("triggers with dedup_key = the alert id and resolves the same key when the alert resolves", async () => {
    respond(() => new Response(JSON.stringify({ status: "success", message: "Event processed" }), { status: 202 }));
    const { team, d, svc, ctx } = await setup("pagerduty");
    await openAlerts(svc, team.id, d, [{ kind: "blacklist", subject: "zen", severity: "Critical", title: "Listed on zen" }]);
    await fanOut(team.id);
    await closeWindows(team.id);
    const id = await alertIdOf(team.id, "zen");
    const [trigger] = received.filter(toPagerDuty).map((r) => JSON.parse(r.body));
    expect(trigger).toMatchObject({ routing_key: ROUTING_KEY, event_action: "trigger", dedup_key: String(id) });
    expect(trigger.payload.severity).toBe("critical");
    expect(trigger.payload.summary.length).toBeLessThanOrEqual(1024);

    await resolveAlert(svc, ctx, id);
    await fanOut(team.id);
    await closeWindows(team.id);
    const resolve = JSON.parse(received.filter(toPagerDuty)[1]?.body ?? "{}");
    expect(resolve).toMatchObject({ routing_key: ROUTING_KEY, event_action: "resolve", dedup_key: String(id) });
  });

  it("a burst on one domain is one incident, resolved only when its last alert resolves", async () => {
    respond(() => new Response("{}", { status: 202 }));
    const { team, d, svc, ctx } = await setup("pagerduty");
    await openAlerts(svc, team.id, d, [
      { kind: "drift", subject: "one" },
      { kind: "drift", subject: "two" },
      { kind: "dkim", subject: "three" },
    ]);
    await fanOut(team.id);
    await closeWindows(team.id);
    const triggers = received.filter(toPagerDuty).map((r) => JSON.parse(r.body));
    expect(triggers).toHaveLength(1);
    const first = Math.min(await alertIdOf(team.id, "one"), await alertIdOf(team.id, "two"), await alertIdOf(team.id, "three"));
    expect(triggers[0].dedup_key).toBe(String(first));
    await resolveAlert(svc, ctx, await alertIdOf(team.id, "one"));
    await resolveAlert(svc, ctx, await alertIdOf(team.id, "two"));
    await fanOut(team.id);
    await closeWindows(team.id);
    expect(received.filter(toPagerDuty)).toHaveLength(1); // one alert of the incident is still open
    await resolveAlert(svc, ctx, await alertIdOf(team.id, "three"));
    await fanOut(team.id);
    await closeWindows(team.id);
    const after = received.filter(toPagerDuty).map((r) => JSON.parse(r.body));
    expect(after).toHaveLength(2);
    expect(after[1]).toMatchObject({ event_action: "resolve", dedup_key: String(first) });
  });
});

describe("PagerDuty stays within its rate limit", () => {
  it("a burst across more domains than a message may page for is one incident listing them all", async () => {
    respond(() => new Response("{}", { status: 202 }));
    const { team, svc } = await setup("pagerduty");
    const many = await Promise.all(Array.from({ length: 12 }, () => insertDomain(team.id)));
    // 108 alerts: more items than D1 binds parameters in one statement (100).
    for (const d of many)
      await openAlerts(
        svc,
        team.id,
        d,
        Array.from({ length: 9 }, (_, i) => ({ kind: "drift" as const, subject: `spf-${d.id}-${i}` })),
      );
    await fanOut(team.id);
    await closeWindows(team.id);
    const events = received.filter(toPagerDuty).map((r) => JSON.parse(r.body));
    expect(events).toHaveLength(1);
    expect(events[0].payload.custom_details.alerts.length + events[0].payload.custom_details.more).toBe(108);
  });

  it("up to ten domains each get their own incident", async () => {
    respond(() => new Response("{}", { status: 202 }));
    const { team, svc } = await setup("pagerduty");
    const some = await Promise.all(Array.from({ length: 3 }, () => insertDomain(team.id)));
    for (const d of some) await openAlerts(svc, team.id, d, [{ kind: "drift", subject: `spf-${d.id}` }]);
    await fanOut(team.id);
    await closeWindows(team.id);
    expect(received.filter(toPagerDuty)).toHaveLength(3);
  });
});

describe("retries and disabling, as for webhook endpoints", () => {
  it("a send message that arrives before its window closes is sent on with the rest of the wait", async () => {
    const { team, d, svc, channel } = await setup("slack");
    await openAlerts(svc, team.id, d, [{ kind: "drift", subject: "early" }]);
    await fanOut(team.id);
    const [m] = await messagesOf(channel.id);
    q.sent.length = 0;
    await runQueue([{ kind: "notify", team_id: team.id, message_id: m?.id }]);
    expect(received.filter(toChat)).toHaveLength(0);
    const again = q.sent.find((x) => (x.body as { message_id?: number }).message_id === m?.id);
    expect(again?.delaySeconds).toBeGreaterThan(20);
    expect(again?.delaySeconds).toBeLessThanOrEqual(30);
  });

  it("a 503 is retried on the webhook schedule; the log keeps each attempt", async () => {
    respond(() => new Response("down", { status: 503 }));
    const { team, d, svc, channel } = await setup("slack");
    await openAlerts(svc, team.id, d, [{ kind: "drift", subject: "x" }]);
    await fanOut(team.id);
    q.sent.length = 0;
    await closeWindows(team.id);
    const [m] = await messagesOf(channel.id);
    expect(m).toMatchObject({ status: "pending", attempts: 1, last_status: 503 });
    const retry = q.sent.find((s) => (s.body as { kind: string }).kind === "notify");
    expect(retry?.delaySeconds).toBeGreaterThanOrEqual(54);
    expect(retry?.delaySeconds).toBeLessThanOrEqual(66);
    // Not due yet: a send message now does nothing.
    await runQueue([{ kind: "notify", team_id: team.id, message_id: m?.id }]);
    expect((await messagesOf(channel.id))[0]?.attempts).toBe(1);
    respond(() => new Response("ok", { status: 200 }));
    await env.DB.prepare("UPDATE notification_messages SET next_retry_at = ? WHERE id = ?")
      .bind(Date.now() - 1, m?.id)
      .run();
    await runQueue([{ kind: "notify", team_id: team.id, message_id: m?.id }]);
    expect((await messagesOf(channel.id))[0]).toMatchObject({ status: "delivered", attempts: 2 });
    const attempts = await env.DB.prepare("SELECT attempt, status FROM notification_attempts WHERE message_id = ? ORDER BY attempt").bind(m?.id).all();
    expect(attempts.results).toEqual([
      { attempt: 1, status: 503 },
      { attempt: 2, status: 200 },
    ]);
  });

  it("410 Gone disables the channel at once and tells the owner", async () => {
    respond(() => new Response("gone", { status: 410 }));
    const { team, d, svc, channel } = await setup("slack");
    await openAlerts(svc, team.id, d, [{ kind: "drift", subject: "y" }]);
    await fanOut(team.id);
    await closeWindows(team.id);
    const row = await svc.db.query.notificationChannels.findFirst({ where: eq(notificationChannels.id, channel.id) });
    expect(row).toMatchObject({ enabled: false, disabledReason: "gone" });
    const notice = await env.DB.prepare("SELECT subject FROM notifications WHERE team_id = ? AND kind = 'notification_channel_disabled'").bind(team.id).first();
    expect(notice).not.toBeNull();
  });

  it("the 20th failed message in a row disables the channel", async () => {
    respond(() => new Response("bad", { status: 400 }));
    const { team, d, svc, channel } = await setup("slack", { cooldown_minutes: 0 });
    await env.DB.prepare("UPDATE notification_channels SET failure_count = 18 WHERE id = ?").bind(channel.id).run();
    await openAlerts(svc, team.id, d, [{ kind: "drift", subject: "f1" }]);
    await fanOut(team.id);
    await closeWindows(team.id);
    expect((await svc.db.query.notificationChannels.findFirst({ where: eq(notificationChannels.id, channel.id) }))?.enabled).toBe(true);
    await openAlerts(svc, team.id, d, [{ kind: "drift", subject: "f2" }]);
    await fanOut(team.id);
    await closeWindows(team.id);
    const row = await svc.db.query.notificationChannels.findFirst({ where: eq(notificationChannels.id, channel.id) });
    expect(row).toMatchObject({ enabled: false, disabledReason: "consecutive_failures", failureCount: 20 });
  });

  it("a private-address target is refused at send time too (DNS changed after it was saved)", async () => {
    const { team, d, svc, channel } = await setup("slack");
    installReceiver({ "hooks.example.com": { A: ["10.0.0.5"] } });
    await openAlerts(svc, team.id, d, [{ kind: "drift", subject: "p" }]);
    await fanOut(team.id);
    await closeWindows(team.id);
    const [m] = await messagesOf(channel.id);
    expect(m?.status).toBe("failed");
    expect(m?.last_error).toMatch(/target refused/);
  });

  it("the sweep re-sends a message whose send message was lost", async () => {
    const { team, d, svc, channel } = await setup("slack");
    await openAlerts(svc, team.id, d, [{ kind: "drift", subject: "lost" }]);
    await fanOut(team.id);
    q.sent.length = 0;
    await env.DB.prepare("UPDATE notification_messages SET send_after = ? WHERE channel_id = ?")
      .bind(Date.now() - 120_000, channel.id)
      .run();
    const n = await sweepNotifications(svc, new Date());
    expect(n).toBeGreaterThanOrEqual(1);
    expect(q.sent.some((s) => (s.body as { message_id?: number }).message_id === undefined)).toBe(false);
    const [m] = await messagesOf(channel.id);
    expect(q.sent.map((s) => (s.body as { message_id: number }).message_id)).toContain(m?.id);
  });
});
