// Who may call the notification routes: no or a bad token is 401 everywhere; a read-only token reads (200)
// and is refused every write (403); another team's channel, rule or message is a 404 on every route, for both
// of its tokens, and leaves the owner's channel as it was (docs/decisions.md D1, D2).
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { call, json, makeTeam } from "../../support/api";
import { installReceiver } from "../../support/webhooks";
import { type Body, callSite, createChannel, SLACK_URL } from "./support";

let r: ReturnType<typeof installReceiver>;
beforeEach(() => {
  r = installReceiver();
});
afterEach(() => r.stub.restore());

/** A Slack channel with one rule and one delivered test message. */
async function ownedChannel() {
  const owner = await makeTeam();
  const ch = await createChannel(owner.full, { kind: "slack", name: "#alerts", url: SLACK_URL, rules: [{ min_severity: "High" }] });
  const sent = await callSite(`/api/v1/notification-channels/${ch.id}/test`, { method: "POST", token: owner.full });
  expect(sent.status).toBe(202);
  const message = (await json<Body>(sent)).data as { id: number };
  return { owner, ch, rule: ch.rules[0]?.id as number, message: message.id };
}

type Route = { method: string; path: string; body?: unknown; write: boolean };

function routes(ch: number, rule: number, message: number): Route[] {
  const base = `/api/v1/notification-channels/${ch}`;
  return [
    { method: "GET", path: "/api/v1/notification-channels", write: false },
    { method: "POST", path: "/api/v1/notification-channels", body: { kind: "email", name: "x" }, write: true },
    { method: "GET", path: base, write: false },
    { method: "PATCH", path: base, body: { name: "taken over" }, write: true },
    { method: "POST", path: `${base}/test`, write: true },
    { method: "POST", path: `${base}/confirmation`, write: true },
    { method: "POST", path: `${base}/rules`, body: { min_severity: "Low" }, write: true },
    { method: "DELETE", path: `${base}/rules/${rule}`, write: true },
    { method: "GET", path: `${base}/messages`, write: false },
    { method: "GET", path: `${base}/messages/${message}`, write: false },
    { method: "DELETE", path: base, write: true },
  ];
}

describe("authentication", () => {
  it("answers 401 without a token and with a wrong one, on every route", async () => {
    const { ch, rule, message } = await ownedChannel();
    for (const rt of routes(ch.id, rule, message)) {
      for (const token of [null, "eam_0000000000000000000000000000000000000000", "not-a-token"]) {
        const res = await call(rt.path, { method: rt.method, token, body: rt.body });
        expect(res.status, `${rt.method} ${rt.path} token=${token}`).toBe(401);
        expect((await json<Body>(res)).code).toBe("unauthenticated");
      }
    }
  });
});

describe("scopes", () => {
  it("lets a read-only token read (200) and refuses it every write (403), changing nothing", async () => {
    const { owner, ch, rule, message } = await ownedChannel();
    const before = await (await call(`/api/v1/notification-channels/${ch.id}`, { token: owner.full })).text();
    for (const rt of routes(ch.id, rule, message)) {
      const res = await callSite(rt.path, { method: rt.method, token: owner.readOnly, body: rt.body });
      expect(res.status, `${rt.method} ${rt.path}`).toBe(rt.write ? 403 : 200);
      if (rt.write) expect((await json<Body>(res)).code).toBe("forbidden");
    }
    expect(await (await call(`/api/v1/notification-channels/${ch.id}`, { token: owner.full })).text()).toBe(before);
    const log = await json<Body>(await call(`/api/v1/notification-channels/${ch.id}/messages`, { token: owner.full }));
    expect(log.data, "a refused test sends nothing").toHaveLength(1);
  });
});

describe("tenancy", () => {
  it("answers 404 for another team's channel, rule and message on every route, with either of its tokens", async () => {
    const { owner, ch, rule, message } = await ownedChannel();
    const intruder = await makeTeam();
    const before = await (await call(`/api/v1/notification-channels/${ch.id}`, { token: owner.full })).text();
    const sentBefore = r.received.length;
    for (const rt of routes(ch.id, rule, message)) {
      if (!rt.path.includes(`/${ch.id}`)) continue; // the collection routes are the caller's own
      for (const [scope, token] of [
        ["full", intruder.full],
        ["read_only", intruder.readOnly],
      ] as const) {
        const res = await callSite(rt.path, { method: rt.method, token, body: rt.body });
        // A read-only token may be refused for its scope first: that reveals nothing either.
        const allowed = scope === "read_only" && rt.write ? [403, 404] : [404];
        expect(allowed, `${rt.method} ${rt.path} [${scope}] -> ${res.status}`).toContain(res.status);
        const text = await res.text();
        expect(text).not.toContain("#alerts");
        expect(text).not.toContain("hooks.example.com");
      }
    }
    // The owner's rule and message under the intruder's own channel id are not found either.
    const own = await createChannel(intruder.full, { kind: "email", name: "mine" });
    expect((await call(`/api/v1/notification-channels/${own.id}/messages/${message}`, { token: intruder.full })).status).toBe(404);
    expect((await call(`/api/v1/notification-channels/${own.id}/rules/${rule}`, { method: "DELETE", token: intruder.full })).status).toBe(404);

    expect(await (await call(`/api/v1/notification-channels/${ch.id}`, { token: owner.full })).text()).toBe(before);
    expect(r.received.length, "no test message was sent for the intruder").toBe(sentBefore);
    expect((await json<Body>(await call("/api/v1/notification-channels", { token: intruder.full }))).data.map((c: { id: number }) => c.id)).toEqual([own.id]);
  });
});
