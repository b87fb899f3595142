// Notification pages through the Worker's real fetch export, with chat receivers behind the DoH stub: the
// list with the plan's allowance, each kind's add form (and its refusals shown as messages, not 500s), the
// channel page (rules, enable/disable, the test button and its outcome, the delivery log and a message's
// attempts, delete), the member's own "Email me" toggle, a viewer without controls and refused, another
// team's channel a 404 page, and the address confirmation link (a GET never confirms; the POST does once).
import { env } from "cloudflare:workers";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { unique } from "../support/api";
import { Browser, signedInOwner } from "../support/browser";
import { insertDomain } from "../support/factories";
import { installReceiver } from "../support/webhooks";

let r: ReturnType<typeof installReceiver>;
beforeEach(() => {
  r = installReceiver();
});
afterEach(() => r.stub.restore());

const SLACK_URL = "https://hooks.example.com/services/T000/B000/abcdefghijklmnop";
const TEAMS_URL = "https://hooks.example.com/workflows/teams-flow-0001";
// PagerDuty integration keys are 32 characters (Events API v2 "routing_key").
const ROUTING_KEY = "R0UT1NGKEY0123456789abcdefABCDEF";
const chat = () => r.received.filter((x) => x.url.startsWith("https://hooks.example.com/"));

/** A signed-in owner of a pro team (10 channels), so every kind fits. */
async function proOwner() {
  const o = await signedInOwner("nt");
  await env.DB.prepare("UPDATE teams SET plan = 'pro' WHERE id = ?").bind(o.teamId).run();
  return o;
}

/** Posts one of the add forms with its rule fields, as a browser sends it (checkbox groups repeat). */
async function add(b: Browser, form: string, fields: Array<[string, string]>) {
  const csrf = await b.csrf("/notifications");
  return b.fetch("/notifications", {
    method: "POST",
    body: new URLSearchParams([["_csrf", csrf], ["form", form], ...fields]).toString(),
    headers: { "content-type": "application/x-www-form-urlencoded" },
  });
}

const idOf = (res: Response) => Number(/^\/notifications\/(\d+)\?/.exec(res.headers.get("location") ?? "")?.[1]);

const channelRow = (id: number) =>
  env.DB.prepare("SELECT kind, name, email_mode, address, confirmed_at, enabled, target_enc, target_hint FROM notification_channels WHERE id = ?")
    .bind(id)
    .first<{
      kind: string;
      name: string;
      email_mode: string | null;
      address: string | null;
      confirmed_at: number | null;
      enabled: number;
      target_enc: string | null;
      target_hint: string | null;
    }>();

const rulesOf = (id: number) =>
  env.DB.prepare("SELECT kinds, min_severity, domain_ids, cooldown_minutes FROM notification_rules WHERE channel_id = ? ORDER BY id").bind(id).all();

/** The confirmation token of the newest mail to `address` in the dev outbox. */
async function confirmToken(address: string): Promise<string> {
  const row = await env.DB.prepare("SELECT body FROM dev_outbox WHERE recipient = ? ORDER BY id DESC LIMIT 1").bind(address).first<{ body: string }>();
  const m = /\/notifications\/confirm\/([A-Za-z0-9]{40})/.exec(row?.body ?? "");
  if (!m?.[1]) throw new Error(`no confirmation link mailed to ${address}`);
  return m[1];
}

describe("notification pages", () => {
  it("sends a signed-out visitor to sign-in", async () => {
    for (const path of ["/notifications", "/notifications/1", "/notifications/1/messages/1"]) {
      const res = await new Browser().fetch(path);
      expect(res.status).toBe(303);
      expect(res.headers.get("location")).toBe(`/sign-in?next=${encodeURIComponent(path)}`);
    }
  });

  it("lists nothing with the allowance, offers a form per kind, and adds each kind with its first rule", async () => {
    const { b, teamId } = await proOwner();
    const domain = await insertDomain(teamId);
    const empty = await (await b.fetch("/notifications")).text();
    expect(empty).toContain("Channels (0 of 10 on your plan)");
    expect(empty).toContain('aria-current="page">Notifications<');
    for (const key of ["email-members", "email-address", "slack", "teams", "pagerduty"]) expect(empty).toContain(`name="form" value="${key}"`);
    expect(empty).toContain(`value="${domain.id}"`);
    expect(empty).toContain("DNS record changed");

    const slack = await add(b, "slack", [
      ["name", "Ops Slack"],
      ["url", SLACK_URL],
      ["kinds", "drift"],
      ["kinds", "blacklist"],
      ["min_severity", "High"],
      ["domain_ids", String(domain.id)],
      ["cooldown_minutes", "15"],
    ]);
    expect(slack.status).toBe(303);
    const slackId = idOf(slack);
    expect(slack.headers.get("location")).toBe(`/notifications/${slackId}?done=added`);
    expect(await channelRow(slackId)).toMatchObject({ kind: "slack", name: "Ops Slack", enabled: 1 });
    expect((await channelRow(slackId))?.target_enc).not.toContain("hooks.example.com");
    expect((await rulesOf(slackId)).results).toEqual([
      { kinds: '["drift","blacklist"]', min_severity: "High", domain_ids: `[${domain.id}]`, cooldown_minutes: 15 },
    ]);

    const teams = idOf(
      await add(b, "teams", [
        ["name", "Ops Teams"],
        ["url", TEAMS_URL],
        ["min_severity", "Medium"],
        ["cooldown_minutes", "30"],
      ]),
    );
    const pd = idOf(
      await add(b, "pagerduty", [
        ["name", "On-call"],
        ["routing_key", ROUTING_KEY],
        ["min_severity", "Critical"],
        ["cooldown_minutes", "0"],
      ]),
    );
    const members = idOf(
      await add(b, "email-members", [
        ["name", "Team mail"],
        ["min_severity", "Low"],
        ["cooldown_minutes", ""],
      ]),
    );
    const address = `${unique("sec").toLowerCase()}@example.org`;
    const outside = await add(b, "email-address", [
      ["name", "Security desk"],
      ["address", address],
      ["min_severity", "Medium"],
    ]);
    expect(outside.headers.get("location")).toBe(`/notifications/${idOf(outside)}?done=confirm-sent`);
    expect(await confirmToken(address)).toHaveLength(40);

    expect(await channelRow(teams)).toMatchObject({ kind: "teams" });
    expect(await channelRow(pd)).toMatchObject({ kind: "pagerduty" });
    expect((await rulesOf(pd)).results).toEqual([{ kinds: null, min_severity: "Critical", domain_ids: null, cooldown_minutes: 0 }]);
    expect(await channelRow(members)).toMatchObject({ kind: "email", email_mode: "members", address: null });
    // An empty cooldown field takes the service's default.
    expect((await rulesOf(members)).results).toEqual([{ kinds: null, min_severity: "Low", domain_ids: null, cooldown_minutes: 30 }]);
    expect(await channelRow(idOf(outside))).toMatchObject({ email_mode: "address", address, confirmed_at: null });

    const list = await (await b.fetch("/notifications")).text();
    expect(list).toContain("Channels (5 of 10 on your plan)");
    for (const id of [slackId, teams, pd, members]) expect(list).toContain(`href="/notifications/${id}"`);
    expect(list).toContain(`DNS record changed, Blocklisted · High and above · ${domain.name} · 15 min cooldown`);
    expect(list).toContain("Every kind · Critical and above · every domain · no cooldown");
    expect(list).toContain("waiting for the address to confirm");
    expect(list).toContain("0 members opted in");
    // The secret target is never shown in full, only its hint.
    expect(list).not.toContain(SLACK_URL);
    expect(list).not.toContain(ROUTING_KEY);
  });

  it("shows a refused form open with its messages and values, never a 500", async () => {
    const { b, teamId } = await proOwner();
    const local = await add(b, "slack", [
      ["name", "Local"],
      ["url", "https://127.0.0.1/hook"],
    ]);
    expect(local.status).toBe(422);
    const html = await local.text();
    expect(html).toContain("Webhook URL:");
    expect(html).toContain('<details class="more" id="add-slack" open="">');
    expect(html).toContain('value="https://127.0.0.1/hook"');

    const key = await add(b, "pagerduty", [
      ["name", "PD"],
      ["routing_key", "short"],
    ]);
    expect(key.status).toBe(422);
    expect(await key.text()).toContain("Routing key: Must be the 32-character integration key");

    const noName = await add(b, "teams", [
      ["name", " "],
      ["url", TEAMS_URL],
    ]);
    expect(noName.status).toBe(422);
    expect(await noName.text()).toContain("Name: Must be 1 to 100 characters.");

    const badAddress = await add(b, "email-address", [
      ["name", "Desk"],
      ["address", "not-an-address"],
    ]);
    expect(badAddress.status).toBe(422);
    expect(await badAddress.text()).toContain("Email address: Enter a valid email address.");

    const cooldown = await add(b, "email-members", [
      ["name", "Mail"],
      ["cooldown_minutes", "soon"],
    ]);
    expect(cooldown.status).toBe(422);
    expect(await cooldown.text()).toContain("Cooldown: A whole number of minutes from 0 to 1440.");

    const tooLong = await add(b, "email-members", [
      ["name", "Mail"],
      ["cooldown_minutes", "9999"],
    ]);
    expect(tooLong.status).toBe(422);
    const other = await signedInOwner("nt-other");
    const foreign = await insertDomain(other.teamId);
    const domainRefused = await add(b, "email-members", [
      ["name", "Mail"],
      ["domain_ids", String(foreign.id)],
    ]);
    expect(domainRefused.status).toBe(422);
    expect(await domainRefused.text()).toContain(`Domains: No such domain in this team: ${foreign.id}.`);
    const kind = await add(b, "email-members", [
      ["name", "Mail"],
      ["kinds", "weather"],
    ]);
    expect(await kind.text()).toContain("Alert kinds: Unknown alert kind: weather");

    const n = await env.DB.prepare("SELECT COUNT(*) AS n FROM notification_channels WHERE team_id = ?").bind(teamId).first<{ n: number }>();
    expect(n?.n).toBe(0);
  });

  it("hides the add forms once the plan's channels are in use, and a further post is refused with 409", async () => {
    const { b } = await signedInOwner("nt-full");
    for (const name of ["One", "Two", "Three"]) expect((await add(b, "email-members", [["name", name]])).status).toBe(303);
    const list = await (await b.fetch("/notifications")).text();
    expect(list).toContain("Channels (3 of 3 on your plan)");
    expect(list).toContain("channels are in use");
    expect(list).not.toContain('name="form"');
    expect((await add(b, "email-members", [["name", "Four"]])).status).toBe(409);
  });

  it("sends a test to Slack and shows its outcome, the log and the message's attempts; a failing receiver says why", async () => {
    const { b } = await proOwner();
    const id = idOf(
      await add(b, "slack", [
        ["name", "Ops Slack"],
        ["url", SLACK_URL],
      ]),
    );
    r.respond(() => new Response("ok", { status: 200 }));
    const tested = await b.post(`/notifications/${id}/test`, {}, `/notifications/${id}`);
    expect(tested.status).toBe(303);
    const location = tested.headers.get("location") ?? "";
    expect(location).toMatch(new RegExp(`^/notifications/${id}\\?tested=\\d+#test-outcome$`));
    expect(chat()).toHaveLength(1);
    expect(chat()[0]?.url).toBe(SLACK_URL);
    // A Block Kit message (Slack: "blocks" with a plain-text "text" fallback).
    const body = JSON.parse(chat()[0]?.body ?? "{}") as { text?: string; blocks?: unknown[] };
    expect(typeof body.text).toBe("string");
    expect(body.blocks?.length).toBeGreaterThan(0);
    const page = await (await b.fetch(location.replace(/#.*/, ""))).text();
    expect(page).toContain("The test message was delivered (HTTP 200).");
    const messageId = Number(/tested=(\d+)/.exec(location)?.[1]);
    expect(page).toContain(`href="/notifications/${id}/messages/${messageId}"`);
    expect(page).toContain(`#${messageId} (test)`);
    const detail = await (await b.fetch(`/notifications/${id}/messages/${messageId}`)).text();
    expect(detail).toContain("Attempts (1)");
    expect(detail).toContain("HTTP 200");
    expect(detail).toContain("A test message lists no alert.");

    r.respond(() => new Response("channel_not_found", { status: 404 }));
    const failed = await b.post(`/notifications/${id}/test`, {}, `/notifications/${id}`);
    const after = await (await b.fetch((failed.headers.get("location") ?? "").replace(/#.*/, ""))).text();
    expect(after).toMatch(/The test message (was not|could not be) delivered: receiver answered 404/);
    expect(after).toContain("channel_not_found");
    expect((await b.fetch(`/notifications/${id}/messages/999999999`)).status).toBe(404);
    expect((await b.fetch(`/notifications/${id}?before=abc`)).status).toBe(422);
  });

  it("adds and deletes rules (a refused rule shown with its messages), disables, enables and deletes the channel", async () => {
    const { b } = await proOwner();
    const id = idOf(
      await add(b, "teams", [
        ["name", "Ops Teams"],
        ["url", TEAMS_URL],
      ]),
    );
    const page = `/notifications/${id}`;
    const added = await b.post(`${page}/rules`, { kinds: "expiry", min_severity: "Low", cooldown_minutes: "60" }, page);
    expect(added.headers.get("location")).toBe(`${page}?done=rule-added`);
    expect((await rulesOf(id)).results).toHaveLength(2);
    const html = await (await b.fetch(`${page}?done=rule-added`)).text();
    expect(html).toContain("Registration expiring · Low and above · every domain · 60 min cooldown");
    const refused = await b.post(`${page}/rules`, { min_severity: "Urgent" }, page);
    expect(refused.status).toBe(422);
    const refusedHtml = await refused.text();
    expect(refusedHtml).toContain("Minimum severity: Must be one of Critical, High, Medium, Low, Info.");
    expect(refusedHtml).toContain('<details class="more" id="add-rule" open="">');
    const ruleId = (await env.DB.prepare("SELECT id FROM notification_rules WHERE channel_id = ? ORDER BY id DESC").bind(id).first<{ id: number }>())?.id;
    expect((await b.post(`${page}/rules/${ruleId}/delete`, {}, page)).headers.get("location")).toBe(`${page}?done=rule-deleted`);
    expect((await rulesOf(id)).results).toHaveLength(1);
    expect((await b.post(`${page}/rules/${ruleId}/delete`, {}, page)).status).toBe(404);

    expect((await b.post(`${page}/disable`, {}, page)).headers.get("location")).toBe(`${page}?done=disabled`);
    expect((await channelRow(id))?.enabled).toBe(0);
    expect(await (await b.fetch(`${page}?done=disabled`)).text()).toContain("disabled (disabled by a member)");
    expect((await b.post(`${page}/enable`, {}, page)).status).toBe(303);
    expect((await channelRow(id))?.enabled).toBe(1);
    const gone = await b.post(`${page}/delete`, {}, page);
    expect(gone.headers.get("location")).toBe("/notifications?done=deleted");
    expect(await channelRow(id)).toBeNull();
    expect((await b.fetch(page)).status).toBe(404);
  });

  it("lets the signed-in member opt in and out of a members email channel", async () => {
    const { b, address } = await proOwner();
    const id = idOf(await add(b, "email-members", [["name", "Team mail"]]));
    const subscribed = () =>
      env.DB.prepare("SELECT COUNT(*) AS n FROM channel_subscribers s JOIN users u ON u.id = s.user_id WHERE s.channel_id = ? AND u.email = ?")
        .bind(id, address)
        .first<{ n: number }>()
        .then((x) => x?.n);
    expect(await (await b.fetch("/notifications")).text()).toContain(`aria-label="Email me: Team mail"`);
    const on = await b.post(`/notifications/${id}/subscription`, { on: "1" }, "/notifications");
    expect(on.headers.get("location")).toBe("/notifications?done=subscribed");
    expect(await subscribed()).toBe(1);
    const list = await (await b.fetch("/notifications?done=subscribed")).text();
    expect(list).toContain("You will get this channel&#39;s alerts by email.");
    expect(list).toContain("1 member opted in");
    expect(list).toContain(`aria-label="Stop emailing me: Team mail"`);
    // The test button mails the member who opted in.
    const tested = await b.post(`/notifications/${id}/test`, {}, `/notifications/${id}`);
    expect(await (await b.fetch((tested.headers.get("location") ?? "").replace(/#.*/, ""))).text()).toContain("(sent to 1 recipient)");
    const off = await b.post(`/notifications/${id}/subscription`, { on: "0", back: "channel" }, `/notifications/${id}`);
    expect(off.headers.get("location")).toBe(`/notifications/${id}?done=unsubscribed`);
    expect(await subscribed()).toBe(0);
    // Only a members channel takes subscriptions.
    const slack = idOf(
      await add(b, "slack", [
        ["name", "Ops"],
        ["url", SLACK_URL],
      ]),
    );
    expect((await b.post(`/notifications/${slack}/subscription`, { on: "1" }, "/notifications")).status).toBe(409);
  });

  it("shows a viewer the channels without a control, refuses every change with 403, and lets them opt in", async () => {
    const { b: owner } = await proOwner();
    const slack = idOf(
      await add(owner, "slack", [
        ["name", "Ops Slack"],
        ["url", SLACK_URL],
      ]),
    );
    const members = idOf(await add(owner, "email-members", [["name", "Team mail"]]));
    const viewerEmail = `${unique("ntv").toLowerCase()}@example.com`;
    expect((await owner.post("/team/invite", { email: viewerEmail, role: "viewer" }, "/team")).status).toBe(303);
    const viewer = new Browser();
    await viewer.openLatestLink(viewerEmail);
    const list = await (await viewer.fetch("/notifications")).text();
    expect(list).toContain(`href="/notifications/${slack}"`);
    expect(list).not.toContain('name="form"');
    expect(list).toContain(`action="/notifications/${members}/subscription"`);
    const page = await (await viewer.fetch(`/notifications/${slack}`)).text();
    expect(page).toContain("Delivery log");
    for (const action of ["test", "disable", "delete", "rules"]) expect(page).not.toContain(`action="/notifications/${slack}/${action}`);
    const sent = chat().length;
    for (const action of ["test", "disable", "enable", "delete", "confirm-again"]) {
      expect((await viewer.post(`/notifications/${slack}/${action}`, {}, `/notifications/${slack}`)).status).toBe(403);
    }
    expect((await viewer.post(`/notifications/${slack}/rules`, { min_severity: "Low" }, `/notifications/${slack}`)).status).toBe(403);
    const csrf = await viewer.csrf("/notifications");
    const create = await viewer.fetch("/notifications", { method: "POST", form: { _csrf: csrf, form: "slack", name: "Mine", url: SLACK_URL } });
    expect(create.status).toBe(403);
    expect(chat().length).toBe(sent);
    expect(await channelRow(slack)).toMatchObject({ enabled: 1 });
    expect((await viewer.post(`/notifications/${members}/subscription`, { on: "1" }, "/notifications")).status).toBe(303);
    expect(await (await viewer.fetch("/notifications")).text()).toContain(`aria-label="Stop emailing me: Team mail"`);
  });

  it("answers another team's channel with a 404 page and changes nothing", async () => {
    const { b: owner } = await proOwner();
    const id = idOf(
      await add(owner, "slack", [
        ["name", "Ops Slack"],
        ["url", SLACK_URL],
      ]),
    );
    const { b: other } = await signedInOwner("nt-other");
    expect(await (await other.fetch("/notifications")).text()).not.toContain(`href="/notifications/${id}"`);
    const res = await other.fetch(`/notifications/${id}`);
    expect(res.status).toBe(404);
    expect(await res.text()).toContain("Not found");
    for (const action of ["test", "disable", "delete", "subscription"]) {
      expect((await other.post(`/notifications/${id}/${action}`, { on: "1" }, "/notifications")).status).toBe(404);
    }
    expect((await other.post(`/notifications/${id}/rules`, {}, "/notifications")).status).toBe(404);
    expect(chat()).toHaveLength(0);
    expect(await channelRow(id)).toMatchObject({ enabled: 1 });
    expect((await other.fetch("/notifications/abc")).status).toBe(404);
  });

  it("refuses a post without the CSRF token or from another site", async () => {
    const { b } = await proOwner();
    const id = idOf(await add(b, "email-members", [["name", "Team mail"]]));
    expect((await b.fetch(`/notifications/${id}/delete`, { method: "POST", form: {} })).status).toBe(403);
    const csrf = await b.csrf("/notifications");
    expect((await b.fetch(`/notifications/${id}/delete`, { method: "POST", form: { _csrf: csrf }, origin: "https://evil.test" })).status).toBe(403);
    expect(await channelRow(id)).not.toBeNull();
  });

  it("confirms an address only by the POST of its link, once; a used, expired or malformed link says so", async () => {
    const { b } = await proOwner();
    const address = `${unique("desk").toLowerCase()}@example.org`;
    const id = idOf(
      await add(b, "email-address", [
        ["name", "Security desk"],
        ["address", address],
      ]),
    );
    const token = await confirmToken(address);

    // The link's GET (what a mail scanner fetches) shows a button and changes nothing, signed out.
    const visitor = new Browser();
    const get = await visitor.fetch(`/notifications/confirm/${token}`);
    expect(get.status).toBe(200);
    const html = await get.text();
    expect(html).toContain("Confirm this address</button>");
    expect(html).toContain(`action="/notifications/confirm/${token}"`);
    expect((await channelRow(id))?.confirmed_at).toBeNull();

    // The POST needs no session and no CSRF token: the token from the mail is the proof.
    const post = await new Browser().fetch(`/notifications/confirm/${token}`, { method: "POST", form: {}, origin: null });
    expect(post.status).toBe(200);
    expect(await post.text()).toContain(`${address} will now receive the alerts of the channel &quot;Security desk&quot;.`);
    expect((await channelRow(id))?.confirmed_at).not.toBeNull();
    expect(await (await b.fetch(`/notifications/${id}`)).text()).not.toContain("Send the confirmation again");

    const again = await visitor.fetch(`/notifications/confirm/${token}`, { method: "POST", form: {} });
    expect(again.status).toBe(410);
    expect(await again.text()).toContain("expired or was already used");

    // A fresh link, then past its expiry.
    const other = `${unique("desk2").toLowerCase()}@example.org`;
    const second = idOf(
      await add(b, "email-address", [
        ["name", "Second desk"],
        ["address", other],
      ]),
    );
    expect(await (await b.fetch(`/notifications/${second}`)).text()).toContain("Send the confirmation again");
    const resent = await b.post(`/notifications/${second}/confirm-again`, {}, `/notifications/${second}`);
    expect(resent.headers.get("location")).toBe(`/notifications/${second}?done=confirm-resent`);
    const late = await confirmToken(other);
    await env.DB.prepare("UPDATE notification_channels SET confirm_expires_at = ? WHERE id = ?")
      .bind(Date.now() - 1000, second)
      .run();
    const expired = await visitor.fetch(`/notifications/confirm/${late}`, { method: "POST", form: {} });
    expect(expired.status).toBe(410);
    expect(await expired.text()).toContain("This link no longer works");
    expect((await channelRow(second))?.confirmed_at).toBeNull();

    const malformed = await visitor.fetch("/notifications/confirm/not-a-token", { method: "POST", form: {} });
    expect(malformed.status).toBe(404);
    expect(await malformed.text()).toContain("This confirmation link is not valid.");
  });
});
