// Notification channels over REST through the Worker's fetch export: create (each kind), read, change, delete,
// the confirmation mail of an address channel, validation (422), the plan's allowance (409), scopes and tenancy,
// and the sealed target never coming back in any answer (docs/decisions.md D176-D178).
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { call, json, makeTeam } from "../../support/api";
import { insertDomain, installReceiver } from "../../support/webhooks";
import { type Body, type ChannelJson, callSite, createChannel, outboxFor, ROUTING_KEY, SLACK_URL, TEAMS_URL } from "./support";

let r: ReturnType<typeof installReceiver>;
beforeEach(() => {
  r = installReceiver({ "internal.example.com": { A: ["10.0.0.1"] } });
});
afterEach(() => r.stub.restore());

const SLACK = { kind: "slack", name: "#alerts", url: SLACK_URL };
/** The secret parts: what must never be in an answer (the hint shows only the last four characters). */
const SECRETS = [SLACK_URL, SLACK_URL.slice(0, -4), "T0SECRET/B0SECRET", TEAMS_URL, "0secretflow", "s3cr3tsignature", ROUTING_KEY, ROUTING_KEY.slice(0, -4)];
const expectNoSecret = (text: string) => {
  for (const s of SECRETS) expect(text, `answer holds ${s}`).not.toContain(s);
};

describe("POST /notification-channels", () => {
  it("adds a Slack channel with the default rule; the URL is sealed and only its hint is shown, in every answer", async () => {
    const team = await makeTeam();
    const res = await call("/api/v1/notification-channels", { method: "POST", token: team.full, body: SLACK });
    expect(res.status).toBe(201);
    const text = await res.text();
    expectNoSecret(text);
    const { data } = JSON.parse(text) as { data: ChannelJson };
    expect(data).toMatchObject({
      kind: "slack",
      name: "#alerts",
      target_hint: "hooks.example.com/…uvwx",
      email: null,
      enabled: true,
      failure_count: 0,
      disabled_at: null,
    });
    expect(data.rules).toEqual([expect.objectContaining({ kinds: null, min_severity: "Medium", domain_ids: null, cooldown_minutes: 30 })]);

    const got = await call(`/api/v1/notification-channels/${data.id}`, { token: team.readOnly });
    expect(got.status).toBe(200);
    const gotText = await got.text();
    expectNoSecret(gotText);
    expect((JSON.parse(gotText) as Body).data).toEqual(data);

    const list = await call("/api/v1/notification-channels", { token: team.readOnly });
    expect(list.status).toBe(200);
    const listText = await list.text();
    expectNoSecret(listText);
    const listed = JSON.parse(listText) as Body;
    expect(listed.data).toEqual([data]);
    expect(listed.meta).toEqual({ total: 1, limit: 50 });
  });

  it("adds a PagerDuty channel (default rule from High) and a Teams channel with rules for the team's own domains", async () => {
    const team = await makeTeam();
    const domain = await insertDomain(team.id);
    const pd = await createChannel(team.full, { kind: "pagerduty", name: "On-call", routing_key: ROUTING_KEY });
    expect(pd).toMatchObject({ kind: "pagerduty", target_hint: "routing key …rstu", email: null });
    expect(pd.rules).toEqual([expect.objectContaining({ min_severity: "High", kinds: null, domain_ids: null })]);

    const teams = await createChannel(team.full, {
      kind: "teams",
      name: "Mail ops",
      url: TEAMS_URL,
      rules: [
        { kinds: ["drift", "dkim", "drift"], min_severity: "Low", domain_ids: [domain.id], cooldown_minutes: 0 },
        { kinds: ["blacklist"], min_severity: "Critical" },
      ],
    });
    expect(teams.target_hint).toBe("other.example.com/…ture");
    expect(teams.rules).toEqual([
      expect.objectContaining({ kinds: ["drift", "dkim"], min_severity: "Low", domain_ids: [domain.id], cooldown_minutes: 0 }),
      expect.objectContaining({ kinds: ["blacklist"], min_severity: "Critical", domain_ids: null, cooldown_minutes: 30 }),
    ]);
    const list = await call("/api/v1/notification-channels", { token: team.full });
    expectNoSecret(await list.text());
  });

  it("adds an email channel to members (no mail sent) and one to an address, which is mailed a confirmation link first", async () => {
    const team = await makeTeam();
    const members = await createChannel(team.full, { kind: "email", name: "Everyone" });
    expect(members).toMatchObject({ kind: "email", target_hint: null, email: { mode: "members", address: null, confirmed: null, subscribers: 0 } });

    const address = `oncall-${team.id}@example.net`;
    const res = await callSite("/api/v1/notification-channels", {
      method: "POST",
      token: team.full,
      body: { kind: "email", name: "Outside", email_mode: "address", address: address.toUpperCase() },
    });
    expect(res.status).toBe(201);
    const { data } = await json<Body>(res);
    expect(data.email).toEqual({ mode: "address", address, confirmed: false, subscribers: null });
    const mails = await outboxFor(address);
    expect(mails).toHaveLength(1);
    expect(mails[0]?.body).toMatch(/https:\/\/app\.test\/notifications\/confirm\/[A-Za-z0-9]{40}/);

    // The confirmation again: a new mail with a new link; 202 with the channel.
    const again = await callSite(`/api/v1/notification-channels/${data.id}/confirmation`, { method: "POST", token: team.full });
    expect(again.status).toBe(202);
    expect((await json<Body>(again)).data).toMatchObject({ id: data.id, email: { confirmed: false } });
    const after = await outboxFor(address);
    expect(after).toHaveLength(2);
    expect(after[1]?.body).not.toBe(after[0]?.body);

    // Only an address channel has a confirmation (409 otherwise).
    const onMembers = await callSite(`/api/v1/notification-channels/${members.id}/confirmation`, { method: "POST", token: team.full });
    expect(onMembers.status).toBe(409);
    expect((await json<Body>(onMembers)).code).toBe("conflict");
  });

  it("answers 409 past the plan's allowance (starter: 3 channels) and creates nothing more", async () => {
    const team = await makeTeam("starter");
    for (let i = 0; i < 3; i++) await createChannel(team.full, { kind: "email", name: `E${i}` });
    const res = await call("/api/v1/notification-channels", { method: "POST", token: team.full, body: SLACK });
    expect(res.status).toBe(409);
    const body = await json<Body>(res);
    expect(body.code).toBe("conflict");
    expect(body.message).toMatch(/3 notification channels/);
    const list = await json<Body>(await call("/api/v1/notification-channels", { token: team.full }));
    expect(list.meta).toEqual({ total: 3, limit: 3 });
  });
});

describe("validation (422 with the field named; nothing written)", () => {
  it.each<[string, Record<string, unknown>, string]>([
    ["an unknown kind", { kind: "sms", name: "x", url: SLACK_URL }, "kind"],
    ["no kind", { name: "x", url: SLACK_URL }, "kind"],
    ["no name", { kind: "slack", url: SLACK_URL }, "name"],
    ["an empty name", { kind: "slack", name: "", url: SLACK_URL }, "name"],
    ["a Slack channel without a URL", { kind: "slack", name: "x" }, "url"],
    ["a URL that is not one", { kind: "slack", name: "x", url: "not a url" }, "url"],
    ["an http URL", { kind: "slack", name: "x", url: "http://hooks.example.com/services/x" }, "url"],
    ["a private address", { kind: "slack", name: "x", url: "https://10.0.0.1/hook" }, "url"],
    ["loopback", { kind: "teams", name: "x", url: "https://127.0.0.1/hook" }, "url"],
    ["cloud metadata", { kind: "teams", name: "x", url: "https://169.254.169.254/latest/meta-data" }, "url"],
    ["a name resolving to a private address", { kind: "slack", name: "x", url: "https://internal.example.com/hook" }, "url"],
    ["credentials in the URL", { kind: "slack", name: "x", url: "https://user:pw@hooks.example.com/hook" }, "url"],
    ["a short routing key", { kind: "pagerduty", name: "x", routing_key: "abc123" }, "routing_key"],
    ["a routing key with symbols", { kind: "pagerduty", name: "x", routing_key: `${ROUTING_KEY.slice(0, 31)}!` }, "routing_key"],
    ["no routing key", { kind: "pagerduty", name: "x" }, "routing_key"],
    ["a bad severity", { ...SLACK, rules: [{ min_severity: "Urgent" }] }, "rules.0.min_severity"],
    ["an unknown alert kind", { ...SLACK, rules: [{ kinds: ["drift", "sunspots"] }] }, "rules.0.kinds.1"],
    ["a cooldown over a day", { ...SLACK, rules: [{ cooldown_minutes: 1441 }] }, "rules.0.cooldown_minutes"],
    ["a negative cooldown", { ...SLACK, rules: [{ cooldown_minutes: -1 }] }, "rules.0.cooldown_minutes"],
    ["more than 10 rules", { ...SLACK, rules: Array.from({ length: 11 }, () => ({ min_severity: "High" })) }, "rules"],
    ["an address channel without an address", { kind: "email", name: "x", email_mode: "address" }, "address"],
    ["an address that is not one", { kind: "email", name: "x", email_mode: "address", address: "not-an-address" }, "address"],
    ["an address on a members channel", { kind: "email", name: "x", email_mode: "members", address: "a@example.net" }, "address"],
  ])("refuses %s", async (_label, body, field) => {
    const team = await makeTeam();
    const res = await callSite("/api/v1/notification-channels", { method: "POST", token: team.full, body });
    expect(res.status, JSON.stringify(body)).toBe(422);
    const out = await json<Body>(res);
    expect(out.code).toBe("validation_failed");
    expect(Object.keys(out.errors ?? {}), JSON.stringify(out.errors)).toContain(field);
    const list = await json<Body>(await call("/api/v1/notification-channels", { token: team.full }));
    expect(list.meta?.total).toBe(0);
  });

  it("refuses another team's domain id in a rule like a missing one (422 on domain_ids)", async () => {
    const team = await makeTeam();
    const other = await makeTeam();
    const mine = await insertDomain(team.id);
    const foreign = await insertDomain(other.id);
    const res = await call("/api/v1/notification-channels", {
      method: "POST",
      token: team.full,
      body: { ...SLACK, rules: [{ domain_ids: [mine.id, foreign.id] }] },
    });
    expect(res.status).toBe(422);
    const out = await json<Body>(res);
    expect(out.errors?.domain_ids?.join(" ")).toContain(String(foreign.id));
    expect(JSON.stringify(out), "another team's domain name is never revealed").not.toContain(foreign.name);
    expect((await json<Body>(await call("/api/v1/notification-channels", { token: team.full }))).meta?.total).toBe(0);
  });

  it("answers 400 for malformed JSON and 415 for another content type", async () => {
    const team = await makeTeam();
    const path = "/api/v1/notification-channels";
    expect((await call(path, { method: "POST", token: team.full, rawBody: "{", headers: { "content-type": "application/json" } })).status).toBe(400);
    expect((await call(path, { method: "POST", token: team.full, rawBody: "[]", headers: { "content-type": "application/json" } })).status).toBe(400);
    expect((await call(path, { method: "POST", token: team.full, rawBody: "x", headers: { "content-type": "text/plain" } })).status).toBe(415);
  });
});

describe("PATCH and DELETE /notification-channels/{channel}", () => {
  it("renames, disables, re-enables (fresh streak) and replaces the URL; the new URL is checked and sealed too", async () => {
    const team = await makeTeam();
    const ch = await createChannel(team.full, SLACK);
    const patch = (body: Record<string, unknown>) => call(`/api/v1/notification-channels/${ch.id}`, { method: "PATCH", token: team.full, body });

    const renamed = await patch({ name: "#dmarc" });
    expect(renamed.status).toBe(200);
    expect((await json<Body>(renamed)).data).toMatchObject({ name: "#dmarc", enabled: true });

    const off = await json<Body>(await patch({ enabled: false }));
    expect(off.data).toMatchObject({ enabled: false, disabled_reason: "disabled by a member", disabled_at: expect.any(String) });
    const on = await json<Body>(await patch({ enabled: true }));
    expect(on.data).toMatchObject({ enabled: true, disabled_reason: null, disabled_at: null, failure_count: 0 });

    const next = "https://other.example.com/services/T1/B1/newsecretvalue9876";
    const moved = await patch({ url: next });
    expect(moved.status).toBe(200);
    const movedText = await moved.text();
    expect(movedText).not.toContain(next);
    expect(movedText).not.toContain("newsecretvalue");
    expect((JSON.parse(movedText) as Body).data.target_hint).toBe("other.example.com/…9876");

    const refused = await patch({ url: "https://10.0.0.1/x" });
    expect(refused.status).toBe(422);
    expect(Object.keys((await json<Body>(refused)).errors ?? {})).toContain("url");
    expect((await json<Body>(await call(`/api/v1/notification-channels/${ch.id}`, { token: team.full }))).data.target_hint).toBe("other.example.com/…9876");

    const email = await createChannel(team.full, { kind: "email", name: "E" });
    const noUrl = await call(`/api/v1/notification-channels/${email.id}`, { method: "PATCH", token: team.full, body: { url: SLACK_URL } });
    expect(noUrl.status).toBe(422);
    const badName = await patch({ name: "" });
    expect(badName.status).toBe(422);
  });

  it("deletes a channel; afterwards every route answers 404", async () => {
    const team = await makeTeam();
    const ch = await createChannel(team.full, SLACK);
    const res = await call(`/api/v1/notification-channels/${ch.id}`, { method: "DELETE", token: team.full });
    expect(res.status).toBe(204);
    expect(await res.text()).toBe("");
    expect((await call(`/api/v1/notification-channels/${ch.id}`, { token: team.full })).status).toBe(404);
    expect((await call(`/api/v1/notification-channels/${ch.id}`, { method: "DELETE", token: team.full })).status).toBe(404);
    expect((await call(`/api/v1/notification-channels/${ch.id}/messages`, { token: team.full })).status).toBe(404);
    expect((await json<Body>(await call("/api/v1/notification-channels", { token: team.full }))).data).toEqual([]);
  });

  it("answers 404 for a malformed channel id", async () => {
    const team = await makeTeam();
    for (const id of ["abc", "0", "-1", "1.5", "99999999999999999999"])
      expect((await call(`/api/v1/notification-channels/${id}`, { token: team.full })).status, id).toBe(404);
  });
});
