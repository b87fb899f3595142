// A channel's test button, its delivery log (cursor pages, one message with its attempts) and its rules, over
// REST through the Worker's fetch export. The Slack test goes to a local receiver and must be a Block Kit
// message within Slack's published limits (test/support/block-kit.ts); the URL never comes back.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { call, json, makeTeam } from "../../support/api";
import { blockKitProblems } from "../../support/block-kit";
import { insertDomain, installReceiver } from "../../support/webhooks";
import { type Body, callSite, createChannel, SLACK_URL } from "./support";

let r: ReturnType<typeof installReceiver>;
beforeEach(() => {
  r = installReceiver();
});
afterEach(() => r.stub.restore());

const sendTest = (token: string, id: number) => callSite(`/api/v1/notification-channels/${id}/test`, { method: "POST", token });

describe("POST /notification-channels/{channel}/test", () => {
  it("posts a Block Kit message to the Slack webhook now and answers the delivered message (202)", async () => {
    const team = await makeTeam();
    const ch = await createChannel(team.full, { kind: "slack", name: "#alerts", url: SLACK_URL });
    const res = await sendTest(team.full, ch.id);
    expect(res.status).toBe(202);
    const text = await res.text();
    expect(text).not.toContain(SLACK_URL);
    const { data } = JSON.parse(text) as Body;
    expect(data).toMatchObject({
      channel_id: ch.id,
      kind: "test",
      status: "delivered",
      attempts: 1,
      requests: 1,
      response_status: 200,
      error: null,
      response_excerpt: "ok",
      next_retry_at: null,
      delivered_at: expect.any(String),
    });

    expect(r.received).toHaveLength(1);
    const got = r.received[0];
    expect(got?.url).toBe(SLACK_URL);
    expect(got?.headers["content-type"]).toMatch(/^application\/json/);
    const message = JSON.parse(got?.body ?? "{}") as { text?: unknown; blocks?: Array<{ type: string }> };
    expect(Array.isArray(message.blocks) && message.blocks.length > 0, "Block Kit blocks").toBe(true);
    expect(typeof message.text, "the notification text Slack shows").toBe("string");
    expect(blockKitProblems(message)).toEqual([]);
    expect(JSON.stringify(message)).toMatch(/test/i);

    const channel = await json<Body>(await call(`/api/v1/notification-channels/${ch.id}`, { token: team.readOnly }));
    expect(channel.data).toMatchObject({ failure_count: 0, last_success_at: expect.any(String) });
  });

  it("keeps a failed attempt in the log with the receiver's status and the next retry", async () => {
    const team = await makeTeam();
    const ch = await createChannel(team.full, { kind: "slack", name: "#alerts", url: SLACK_URL });
    r.respond(() => new Response("no_service", { status: 500 }));
    const res = await sendTest(team.full, ch.id);
    expect(res.status).toBe(202);
    const { data } = await json<Body>(res);
    expect(data).toMatchObject({ status: "pending", attempts: 1, response_status: 500, response_excerpt: "no_service", delivered_at: null });
    expect(data.error).toMatch(/500/);
    expect(Date.parse(data.next_retry_at)).toBeGreaterThan(Date.now());

    const detail = await json<Body>(await call(`/api/v1/notification-channels/${ch.id}/messages/${data.id}`, { token: team.readOnly }));
    expect(detail.data.attempts_log).toEqual([expect.objectContaining({ attempt: 1, status: 500, response_excerpt: "no_service" })]);
  });
});

describe("GET /notification-channels/{channel}/messages", () => {
  it("lists messages newest first in cursor pages, and shows one with its attempts", async () => {
    const team = await makeTeam();
    const ch = await createChannel(team.full, { kind: "slack", name: "#alerts", url: SLACK_URL });
    const ids: number[] = [];
    for (let i = 0; i < 3; i++) ids.push((await json<Body>(await sendTest(team.full, ch.id))).data.id);

    const first = await call(`/api/v1/notification-channels/${ch.id}/messages?limit=2`, { token: team.readOnly });
    expect(first.status).toBe(200);
    const page1 = await json<Body>(first);
    expect(page1.data.map((m: { id: number }) => m.id)).toEqual([ids[2], ids[1]]);
    expect(page1.meta).toEqual({ next_before: ids[1] });
    const page2 = await json<Body>(await call(`/api/v1/notification-channels/${ch.id}/messages?limit=2&before=${ids[1]}`, { token: team.readOnly }));
    expect(page2.data.map((m: { id: number }) => m.id)).toEqual([ids[0]]);
    expect(page2.meta).toEqual({ next_before: null });
    const all = await json<Body>(await call(`/api/v1/notification-channels/${ch.id}/messages`, { token: team.readOnly }));
    expect(all.data).toHaveLength(3);
    expect(all.data[0]).toMatchObject({ kind: "test", status: "delivered", alerts_opened: 0, alerts_resolved: 0 });

    const one = await call(`/api/v1/notification-channels/${ch.id}/messages/${ids[0]}`, { token: team.readOnly });
    expect(one.status).toBe(200);
    const text = await one.text();
    expect(text).not.toContain(SLACK_URL);
    const detail = (JSON.parse(text) as Body).data;
    expect(detail).toMatchObject({ id: ids[0], kind: "test", status: "delivered", alerts: [] });
    expect(detail.attempts_log).toEqual([
      { attempt: 1, status: 200, error: null, duration_ms: expect.any(Number), response_excerpt: "ok", at: expect.any(String) },
    ]);

    // A message of another channel of the same team is not under this one.
    const other = await createChannel(team.full, { kind: "slack", name: "#other", url: "https://other.example.com/x/yyyy" });
    expect((await call(`/api/v1/notification-channels/${other.id}/messages/${ids[0]}`, { token: team.full })).status).toBe(404);
    expect((await call(`/api/v1/notification-channels/${ch.id}/messages/999999999`, { token: team.full })).status).toBe(404);
  });

  it.each([["limit=0"], ["limit=101"], ["limit=x"], ["before=0"], ["before=abc"]])("refuses %s with 422", async (query) => {
    const team = await makeTeam();
    const ch = await createChannel(team.full, { kind: "email", name: "E" });
    const res = await call(`/api/v1/notification-channels/${ch.id}/messages?${query}`, { token: team.full });
    expect(res.status).toBe(422);
    expect(Object.keys((await json<Body>(res)).errors ?? {})).toContain(query.split("=")[0]);
  });
});

describe("rules", () => {
  it("adds a rule (201), refuses a bad one (422) and the 11th (409), and deletes one (204, then 404)", async () => {
    const team = await makeTeam();
    const other = await makeTeam();
    const domain = await insertDomain(team.id);
    const foreign = await insertDomain(other.id);
    const ch = await createChannel(team.full, { kind: "email", name: "E" });
    const path = `/api/v1/notification-channels/${ch.id}/rules`;

    const added = await call(path, {
      method: "POST",
      token: team.full,
      body: { kinds: ["new_sender"], min_severity: "Low", domain_ids: [domain.id], cooldown_minutes: 120 },
    });
    expect(added.status).toBe(201);
    const rule = (await json<Body>(added)).data;
    expect(rule).toMatchObject({ channel_id: ch.id, kinds: ["new_sender"], min_severity: "Low", domain_ids: [domain.id], cooldown_minutes: 120 });
    const channel = await json<Body>(await call(`/api/v1/notification-channels/${ch.id}`, { token: team.full }));
    expect(channel.data.rules.map((x: { id: number }) => x.id)).toContain(rule.id);

    for (const [body, field] of [
      [{ min_severity: "Sev1" }, "min_severity"],
      [{ kinds: ["weather"] }, "kinds.0"],
      [{ domain_ids: [foreign.id] }, "domain_ids"],
      [{ cooldown_minutes: 1.5 }, "cooldown_minutes"],
    ] as const) {
      const res = await call(path, { method: "POST", token: team.full, body });
      expect(res.status, JSON.stringify(body)).toBe(422);
      expect(Object.keys((await json<Body>(res)).errors ?? {})).toContain(field);
    }

    // The default rule and the one added: eight more fill the channel's ten.
    for (let i = 0; i < 8; i++) expect((await call(path, { method: "POST", token: team.full, body: {} })).status).toBe(201);
    const full = await call(path, { method: "POST", token: team.full, body: {} });
    expect(full.status).toBe(409);
    expect((await json<Body>(full)).code).toBe("conflict");

    const gone = await call(`${path}/${rule.id}`, { method: "DELETE", token: team.full });
    expect(gone.status).toBe(204);
    expect((await call(`${path}/${rule.id}`, { method: "DELETE", token: team.full })).status).toBe(404);
    const after = await json<Body>(await call(`/api/v1/notification-channels/${ch.id}`, { token: team.full }));
    expect(after.data.rules).toHaveLength(9);
    expect(after.data.rules.map((x: { id: number }) => x.id)).not.toContain(rule.id);

    // A rule is deleted only under its own channel.
    const second = await createChannel(team.full, { kind: "email", name: "F" });
    const keep = after.data.rules[0].id as number;
    expect((await call(`/api/v1/notification-channels/${second.id}/rules/${keep}`, { method: "DELETE", token: team.full })).status).toBe(404);
    expect((await call(`/api/v1/notification-channels/999999999/rules`, { method: "POST", token: team.full, body: {} })).status).toBe(404);
  });
});
