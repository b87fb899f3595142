// Email channels through the Worker's exported queue and fetch handlers: mail goes only to members who opted
// in, or to an outside address after it confirmed; each mail is multipart/alternative with a text and an HTML
// part and the RFC 8058 one-click headers, and the one-click POST really unsubscribes that recipient.
// Mail is captured by a recording SEND_EMAIL binding and parsed back with postal-mime.
import { createExecutionContext, createMessageBatch, getQueueResult } from "cloudflare:test";
import { env, exports } from "cloudflare:workers";
import PostalMime from "postal-mime";
import { beforeEach, describe, expect, it, vi } from "vitest";
import worker from "../../src/index";
import { createServices, type Services } from "../../src/services";
import { upsertAlerts } from "../../src/services/alerts/raise";
import { systemContext } from "../../src/services/context";
import { confirmChannelAddress, createChannel, setChannelSubscription } from "../../src/services/notify/channels";
import { makeTeam } from "../support/api";
import { insertDomain, insertMember, type TestDomain } from "../support/factories";
import { fakeQueue } from "../support/webhooks";

const SITE = "https://monitor.test";
const FROM = "alerts@notify.test";

interface Sent {
  from: string;
  to: string;
  raw: string;
}
let outbox: Sent[] = [];
let q = fakeQueue();
let seq = 0;

/**
 * A recording send_email binding: takes the EmailMessage the Worker builds and keeps its raw MIME (the pool's
 * EmailMessage keeps the raw body under the key "EmailMessage::raw"; the deployed runtime streams it).
 */
const recorder = {
  send: async (m: Record<string, unknown> & { from: string; to: string }) => {
    const body = m.raw ?? m["EmailMessage::raw"];
    const raw = typeof body === "string" ? body : await new Response(body as ReadableStream).text();
    outbox.push({ from: m.from, to: m.to, raw });
    return { messageId: `m${outbox.length}` };
  },
} as unknown as SendEmail;

const workerEnv = () => ({ ...env, DELIVERIES_QUEUE: q.queue, SITE_URL: SITE, NOTIFY_FROM: FROM, SEND_EMAIL: recorder });
const services = (): Services => createServices(workerEnv());

async function runQueue(bodies: unknown[]) {
  const batch = createMessageBatch(
    "emailauth-deliveries",
    bodies.map((body) => ({ id: `e-${++seq}`, timestamp: new Date(), attempts: 1, body })),
  );
  const ctx = createExecutionContext();
  await worker.queue(batch, workerEnv(), ctx);
  return getQueueResult(batch, ctx);
}

async function raise(svc: Services, teamId: number, d: TestDomain, subject: string, title: string) {
  const up = upsertAlerts(
    svc.db,
    [{ teamId, domain: { id: d.id, name: d.name }, kind: "drift", subject, severity: "High", title, body: "v=DMARC1; p=none" }],
    svc.clock.now(),
  );
  const [first, ...rest] = up.statements;
  if (first) await svc.db.batch([first, ...rest]);
  const rows = await env.DB.prepare("SELECT id FROM events WHERE team_id = ?").bind(teamId).all<{ id: string }>();
  await runQueue(rows.results.map((r) => ({ kind: "fanout", event_id: r.id })));
  await env.DB.prepare("UPDATE notification_messages SET send_after = ? WHERE team_id = ? AND status = 'collecting'")
    .bind(Date.now() - 1, teamId)
    .run();
  const due = await env.DB.prepare("SELECT id FROM notification_messages WHERE team_id = ? AND status = 'pending' OR (team_id = ? AND status = 'collecting')")
    .bind(teamId, teamId)
    .all<{ id: number }>();
  await runQueue(due.results.map((r) => ({ kind: "notify", team_id: teamId, message_id: r.id })));
}

beforeEach(() => {
  outbox = [];
  q = fakeQueue();
  vi.spyOn(console, "log").mockImplementation(() => undefined);
});

describe("an email channel to members", () => {
  it("mails only the members who opted in: multipart/alternative, both parts, one-click headers", async () => {
    const team = await makeTeam("enterprise");
    const d = await insertDomain(team.id);
    const svc = services();
    const ctx = systemContext(team.id);
    const a = await insertMember(team.id, "admin");
    const b = await insertMember(team.id, "viewer");
    const channel = await createChannel(svc, ctx, "enterprise", { kind: "email", name: "Team mail", email_mode: "members" });
    await setChannelSubscription(svc, team.id, a.id, channel.id, true);
    await raise(svc, team.id, d, "dmarc.policy", "DMARC policy changed <p=none>");

    expect(outbox.map((m) => m.to)).toEqual([a.email]);
    expect(outbox.map((m) => m.to)).not.toContain(b.email);
    const sent = outbox[0] as Sent;
    expect(sent.from).toBe(FROM);
    expect(sent.raw).toMatch(/^Content-Type: multipart\/alternative;/im);
    const mail = await PostalMime.parse(sent.raw);
    expect(mail.text).toContain("DMARC policy changed <p=none>");
    expect(mail.html).toContain("DMARC policy changed &lt;p=none&gt;");
    expect(mail.html).not.toContain("<p=none>");
    expect(mail.subject).toContain(d.name);
    const header = (name: string) => mail.headers.find((h) => h.key === name)?.value ?? "";
    const listUnsub = header("list-unsubscribe");
    expect(listUnsub).toMatch(/^<https:\/\/monitor\.test\/unsubscribe\/[^>]+>$/);
    expect(header("list-unsubscribe-post")).toBe("List-Unsubscribe=One-Click");
    expect(header("auto-submitted")).toBe("auto-generated");
    expect(header("message-id")).toMatch(/^<[^@>]+@notify\.test>$/);

    // RFC 8058 §3.2: the mail client POSTs List-Unsubscribe=One-Click, without cookies, to the URI.
    const url = listUnsub.slice(1, -1);
    const res = await exports.default.fetch(
      new Request(url, { method: "POST", headers: { "content-type": "application/x-www-form-urlencoded" }, body: "List-Unsubscribe=One-Click" }),
    );
    expect(res.status).toBe(200);
    const left = await env.DB.prepare("SELECT COUNT(*) AS n FROM channel_subscribers WHERE channel_id = ? AND user_id = ?")
      .bind(channel.id, a.id)
      .first<{ n: number }>();
    expect(left?.n).toBe(0);
    outbox = [];
    await raise(svc, team.id, d, "spf", "SPF record changed");
    expect(outbox).toHaveLength(0);
  });

  it("a member removed from the team gets nothing, even if still listed", async () => {
    const team = await makeTeam("enterprise");
    const d = await insertDomain(team.id);
    const svc = services();
    const a = await insertMember(team.id, "admin");
    const channel = await createChannel(svc, systemContext(team.id), "enterprise", { kind: "email", name: "Mail", email_mode: "members" });
    await setChannelSubscription(svc, team.id, a.id, channel.id, true);
    await env.DB.prepare("DELETE FROM memberships WHERE team_id = ? AND user_id = ?").bind(team.id, a.id).run();
    await raise(svc, team.id, d, "x", "X changed");
    expect(outbox).toHaveLength(0);
  });
});

describe("an email channel to an outside address", () => {
  it("sends only the confirmation until the address confirms by its link, then alerts", async () => {
    const team = await makeTeam("enterprise");
    const d = await insertDomain(team.id);
    const svc = services();
    await createChannel(svc, systemContext(team.id), "enterprise", { kind: "email", name: "NOC", email_mode: "address", address: "NOC@Example.org" });
    expect(outbox).toHaveLength(1);
    const confirm = await PostalMime.parse(outbox[0]?.raw ?? "");
    expect(outbox[0]?.to).toBe("noc@example.org");
    const link = /https:\/\/monitor\.test\/notifications\/confirm\/([A-Za-z0-9]+)/.exec(confirm.text ?? "");
    expect(link).not.toBeNull();
    outbox = [];
    await raise(svc, team.id, d, "a", "Before confirming");
    expect(outbox).toHaveLength(0);
    await confirmChannelAddress(svc, link?.[1] ?? "");
    await expect(confirmChannelAddress(svc, link?.[1] ?? "")).rejects.toMatchObject({ status: 410 });
    await raise(svc, team.id, d, "b", "After confirming");
    expect(outbox.map((m) => m.to)).toEqual(["noc@example.org"]);
    const mail = await PostalMime.parse(outbox[0]?.raw ?? "");
    expect(mail.text).toContain("After confirming");
    expect(mail.text).not.toContain("Before confirming");
  });

  it("a send that fails is retried without mailing anyone twice", async () => {
    const team = await makeTeam("enterprise");
    const d = await insertDomain(team.id);
    const svc = services();
    const a = await insertMember(team.id, "admin");
    const b = await insertMember(team.id, "admin");
    const channel = await createChannel(svc, systemContext(team.id), "enterprise", { kind: "email", name: "Mail", email_mode: "members" });
    await setChannelSubscription(svc, team.id, a.id, channel.id, true);
    await setChannelSubscription(svc, team.id, b.id, channel.id, true);
    const real = recorder.send;
    let calls = 0;
    recorder.send = (async (m: never) => {
      calls++;
      if (calls === 2) throw new Error("temporary failure");
      return real(m);
    }) as never;
    try {
      await raise(svc, team.id, d, "r", "Retry me");
      expect(outbox.map((m) => m.to)).toEqual([a.email]);
      const row = await env.DB.prepare("SELECT id, status FROM notification_messages WHERE channel_id = ?")
        .bind(channel.id)
        .first<{ id: number; status: string }>();
      expect(row?.status).toBe("pending");
      await env.DB.prepare("UPDATE notification_messages SET next_retry_at = ? WHERE id = ?")
        .bind(Date.now() - 1, row?.id)
        .run();
      await runQueue([{ kind: "notify", team_id: team.id, message_id: row?.id }]);
      expect(outbox.map((m) => m.to).sort()).toEqual([a.email, b.email].sort());
    } finally {
      recorder.send = real;
    }
  });
});
