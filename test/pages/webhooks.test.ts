// Webhook pages through the Worker's real fetch export, with a receiver behind the DoH stub: create
// (secret shown once, refused forms kept), endpoint page, test event, delivery log and filters, delivery
// detail, redeliver, enable/disable, rotate, delete; viewers without controls and refused; another
// team's ids a 404 page; signed out sent to sign-in.
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

const email = () => `${unique("wh").toLowerCase()}@example.com`;
const hooks = () => r.received.filter((x) => x.url.startsWith("https://hooks.example.com/"));

const signedIn = () => signedInOwner("wh");

/** A form post with repeated fields (checkbox groups), as a browser sends it. */
async function postPairs(b: Browser, path: string, pairs: Array<[string, string]>, from = "/webhooks") {
  const csrf = await b.csrf(from);
  return b.fetch(path, {
    method: "POST",
    body: new URLSearchParams([["_csrf", csrf], ...pairs]).toString(),
    headers: { "content-type": "application/x-www-form-urlencoded" },
  });
}

async function create(b: Browser, pairs: Array<[string, string]> = [["events", "*"]], url = "https://hooks.example.com/in") {
  const res = await postPairs(b, "/webhooks", [["url", url], ["description", "Ops"], ...pairs]);
  const html = await res.text();
  const id = Number(/href="\/webhooks\/(\d+)"/.exec(html)?.[1]);
  const secret = /data-copy="(whsec_[^"]+)"/.exec(html)?.[1] ?? "";
  return { res, html, id, secret };
}

const endpointRow = (id: number) =>
  env.DB.prepare("SELECT enabled, secret_enc AS s FROM webhook_endpoints WHERE id = ?").bind(id).first<{ enabled: number; s: string }>();

describe("webhook pages", () => {
  it("sends a signed-out visitor to sign-in", async () => {
    for (const path of ["/webhooks", "/webhooks/1", "/webhooks/1/deliveries/1"]) {
      const res = await new Browser().fetch(path);
      expect(res.status).toBe(303);
      expect(res.headers.get("location")).toBe(`/sign-in?next=${encodeURIComponent(path)}`);
    }
    expect((await new Browser().fetch("/webhooks", { method: "POST", form: { url: "https://hooks.example.com/in" } })).status).toBe(303);
  });

  it("creates an endpoint from the form, shows the secret once with a copy button, and lists it", async () => {
    const { b, teamId } = await signedIn();
    const domain = await insertDomain(teamId);
    const form = await (await b.fetch("/webhooks")).text();
    expect(form).toContain("No endpoints yet.");
    expect(form).toContain('<label for="webhook-url">');
    expect(form).toContain('value="alert.created"');
    expect(form).toContain(`value="${domain.id}"`);
    const made = await create(b, [
      ["events", "alert.created"],
      ["events", "webhook.test"],
      ["domain_ids", String(domain.id)],
    ]);
    expect(made.res.status).toBe(201);
    expect(made.secret).toMatch(/^whsec_/);
    expect(made.html).toContain("shown only once");
    const row = await env.DB.prepare("SELECT events, domain_ids, description FROM webhook_endpoints WHERE id = ?").bind(made.id).first();
    expect(row).toEqual({ events: '["alert.created","webhook.test"]', domain_ids: `[${domain.id}]`, description: "Ops" });
    const list = await (await b.fetch("/webhooks")).text();
    expect(list).toContain(`href="/webhooks/${made.id}"`);
    expect(list).toContain("alert.created, webhook.test");
    expect(list).not.toContain(made.secret);
    const page = await (await b.fetch(`/webhooks/${made.id}`)).text();
    expect(page).not.toContain(made.secret);
    expect(page).toContain(`Domain ids ${domain.id}`);
  });

  it("keeps a refused form with its messages: no event, a private target, an unknown domain", async () => {
    const { b } = await signedIn();
    const none = await create(b, []);
    expect(none.res.status).toBe(422);
    expect(none.html).toContain("Choose at least one event to send");
    expect(none.html).toContain('value="https://hooks.example.com/in"');
    const local = await create(b, [["events", "*"]], "https://127.0.0.1/in");
    expect(local.res.status).toBe(422);
    expect(local.html).toContain("Receiver URL:");
    const foreign = await create(b, [
      ["events", "*"],
      ["domain_ids", "999999"],
    ]);
    expect(foreign.res.status).toBe(422);
    expect(foreign.html).toContain("Domains: Unknown domain ids");
    const bad = await create(b, [
      ["events", "*"],
      ["domain_ids", "abc"],
    ]);
    expect(bad.res.status).toBe(422);
    expect((await env.DB.prepare("SELECT COUNT(*) AS n FROM webhook_endpoints WHERE url = 'https://127.0.0.1/in'").first<{ n: number }>())?.n).toBe(0);
  });

  it("sends a test event, logs it, filters the log, shows payload and response, and redelivers", async () => {
    const { b } = await signedIn();
    const { id } = await create(b);
    r.respond(() => new Response("thanks", { status: 200, headers: { "x-receiver": "yes" } }));
    const tested = await b.post(`/webhooks/${id}/test`, {}, `/webhooks/${id}`);
    expect(tested.status).toBe(303);
    expect(tested.headers.get("location")).toBe(`/webhooks/${id}?done=tested`);
    expect(hooks()).toHaveLength(1);
    const page = await (await b.fetch(`/webhooks/${id}?done=tested`)).text();
    expect(page).toContain("A test event was sent.");
    const deliveryId = Number(new RegExp(`href="/webhooks/${id}/deliveries/(\\d+)"`).exec(page)?.[1]);
    expect(deliveryId).toBeGreaterThan(0);
    expect(page).toContain("HTTP 200");
    expect(await (await b.fetch(`/webhooks/${id}?status=failed`)).text()).toContain("No deliveries match.");
    expect(await (await b.fetch(`/webhooks/${id}?status=delivered&event=webhook.test`)).text()).toContain(`#${deliveryId}`);
    expect(await (await b.fetch(`/webhooks/${id}?event=alert.created`)).text()).toContain("No deliveries match.");
    expect((await b.fetch(`/webhooks/${id}?status=lost`)).status).toBe(422);
    expect((await b.fetch(`/webhooks/${id}?page=0`)).status).toBe(422);
    const detail = await (await b.fetch(`/webhooks/${id}/deliveries/${deliveryId}`)).text();
    expect(detail).toContain("&quot;type&quot;: &quot;webhook.test&quot;");
    expect(detail).toContain("thanks");
    expect(detail).toContain("x-receiver: yes");
    r.respond(() => new Response("down", { status: 500 }));
    const again = await b.post(`/webhooks/${id}/deliveries/${deliveryId}/redeliver`, {}, `/webhooks/${id}/deliveries/${deliveryId}`);
    expect(again.status).toBe(303);
    expect(hooks()).toHaveLength(2);
    expect(hooks()[1]?.headers["webhook-id"]).toBe(hooks()[0]?.headers["webhook-id"]);
    const after = await (await b.fetch(`/webhooks/${id}/deliveries/${deliveryId}?done=redelivered`)).text();
    expect(after).toContain("attempted again");
    expect(after).toContain("HTTP 500");
    expect((await b.fetch(`/webhooks/${id}/deliveries/999999999`)).status).toBe(404);
  });

  it("disables, enables, rotates (new secret shown once) and deletes an endpoint", async () => {
    const { b } = await signedIn();
    const { id, secret } = await create(b);
    expect((await b.post(`/webhooks/${id}/disable`, {}, `/webhooks/${id}`)).headers.get("location")).toBe(`/webhooks/${id}?done=disabled`);
    expect((await endpointRow(id))?.enabled).toBe(0);
    expect(await (await b.fetch(`/webhooks/${id}?done=disabled`)).text()).toContain(">Enable<");
    expect((await b.post(`/webhooks/${id}/enable`, {}, `/webhooks/${id}`)).status).toBe(303);
    expect((await endpointRow(id))?.enabled).toBe(1);
    const before = (await endpointRow(id))?.s;
    const rotated = await b.post(`/webhooks/${id}/rotate`, {}, `/webhooks/${id}`);
    expect(rotated.status).toBe(200);
    const html = await rotated.text();
    const fresh = /data-copy="(whsec_[^"]+)"/.exec(html)?.[1];
    expect(fresh).toMatch(/^whsec_/);
    expect(fresh).not.toBe(secret);
    expect((await endpointRow(id))?.s).not.toBe(before);
    const gone = await b.post(`/webhooks/${id}/delete`, {}, `/webhooks/${id}`);
    expect(gone.headers.get("location")).toBe("/webhooks?deleted=1");
    expect(await endpointRow(id)).toBeNull();
    expect((await b.fetch(`/webhooks/${id}`)).status).toBe(404);
  });

  it("refuses a missing CSRF token, a cross-site post and bad ids", async () => {
    const { b } = await signedIn();
    const { id } = await create(b);
    expect((await b.fetch(`/webhooks/${id}/delete`, { method: "POST", form: {} })).status).toBe(403);
    const csrf = await b.csrf("/webhooks");
    expect((await b.fetch(`/webhooks/${id}/delete`, { method: "POST", form: { _csrf: csrf }, origin: "https://evil.test" })).status).toBe(403);
    expect(
      (await b.fetch("/webhooks", { method: "POST", form: { _csrf: csrf, url: "https://hooks.example.com/x", events: "*" }, origin: "https://evil.test" }))
        .status,
    ).toBe(403);
    expect(await endpointRow(id)).not.toBeNull();
    expect((await b.fetch("/webhooks/abc")).status).toBe(404);
    expect((await b.post("/webhooks/0/test", {}, "/webhooks")).status).toBe(404);
  });

  it("shows a viewer everything without a control and refuses every change with 403", async () => {
    const { b: owner } = await signedIn();
    const { id } = await create(owner);
    expect((await owner.post(`/webhooks/${id}/test`, {}, `/webhooks/${id}`)).status).toBe(303);
    const page = await (await owner.fetch(`/webhooks/${id}`)).text();
    const deliveryId = Number(new RegExp(`href="/webhooks/${id}/deliveries/(\\d+)"`).exec(page)?.[1]);
    const viewerEmail = email();
    expect((await owner.post("/team/invite", { email: viewerEmail, role: "viewer" }, "/team")).status).toBe(303);
    const viewer = new Browser();
    await viewer.openLatestLink(viewerEmail);
    const list = await (await viewer.fetch("/webhooks")).text();
    expect(list).toContain(`href="/webhooks/${id}"`);
    expect(list).not.toMatch(/action="\/webhooks[#"]/);
    const vpage = await (await viewer.fetch(`/webhooks/${id}`)).text();
    expect(vpage).toContain(`#${deliveryId}`);
    expect(vpage).not.toContain('method="post" action="/webhooks/');
    const vdetail = await (await viewer.fetch(`/webhooks/${id}/deliveries/${deliveryId}`)).text();
    expect(vdetail).toContain("webhook.test");
    expect(vdetail).not.toContain("/redeliver");
    const sent = hooks().length;
    for (const action of ["test", "disable", "enable", "rotate", "delete"]) {
      expect((await viewer.post(`/webhooks/${id}/${action}`, {}, `/webhooks/${id}`)).status).toBe(403);
    }
    expect((await viewer.post(`/webhooks/${id}/deliveries/${deliveryId}/redeliver`, {}, `/webhooks/${id}`)).status).toBe(403);
    expect(
      (
        await postPairs(viewer, "/webhooks", [
          ["url", "https://hooks.example.com/v"],
          ["events", "*"],
        ])
      ).status,
    ).toBe(403);
    expect(hooks().length).toBe(sent);
    expect((await endpointRow(id))?.enabled).toBe(1);
  });

  it("answers another team's endpoint and delivery with a 404 page and changes nothing", async () => {
    const { b: owner } = await signedIn();
    const { id } = await create(owner);
    await owner.post(`/webhooks/${id}/test`, {}, `/webhooks/${id}`);
    const page = await (await owner.fetch(`/webhooks/${id}`)).text();
    const deliveryId = Number(new RegExp(`href="/webhooks/${id}/deliveries/(\\d+)"`).exec(page)?.[1]);
    const { b: other } = await signedIn();
    expect(await (await other.fetch("/webhooks")).text()).not.toContain(`href="/webhooks/${id}"`);
    expect((await other.fetch(`/webhooks/${id}`)).status).toBe(404);
    expect((await other.fetch(`/webhooks/${id}/deliveries/${deliveryId}`)).status).toBe(404);
    const sent = hooks().length;
    for (const action of ["test", "disable", "rotate", "delete"]) {
      expect((await other.post(`/webhooks/${id}/${action}`, {}, "/webhooks")).status).toBe(404);
    }
    expect((await other.post(`/webhooks/${id}/deliveries/${deliveryId}/redeliver`, {}, "/webhooks")).status).toBe(404);
    expect(hooks().length).toBe(sent);
    expect((await endpointRow(id))?.enabled).toBe(1);
  });
});
