// Domain pages through the Worker's real fetch export: the list, adding and verifying (with the DoH
// stub), the domain page (posture, fixes, history, pending check that refreshes), check now, delete;
// viewers see no controls and are refused; another team's ids are a 404 page; signed out goes to sign-in.
import { env } from "cloudflare:workers";
import { afterEach, describe, expect, it } from "vitest";
import { consumeChecks } from "../../src/queues/checks";
import { runCheck } from "../../src/services/checks/run-check";
import { unique } from "../support/api";
import { Browser } from "../support/browser";
import { installDohStub, type StubZone } from "../support/doh-stub";
import { captureChecks, clockedServices, fakeBatch, newDomainName, zoneFor } from "../support/monitoring";

let capture: ReturnType<typeof captureChecks> | null = null;
afterEach(() => {
  capture?.restore();
  capture = null;
});

const email = () => `${unique("d").toLowerCase()}@example.com`;
const serve = (zone: StubZone) => installDohStub(zone);

async function owner(): Promise<Browser> {
  const b = new Browser();
  await b.signIn(email());
  return b;
}

async function ownerWithViewer() {
  const o = await owner();
  const viewerEmail = email();
  expect((await o.post("/team/invite", { email: viewerEmail, role: "viewer" }, "/team")).status).toBe(303);
  const viewer = new Browser();
  await viewer.openLatestLink(viewerEmail);
  return { owner: o, viewer };
}

async function addViaPage(b: Browser, name = newDomainName()): Promise<{ id: number; name: string }> {
  const res = await b.post("/domains", { name }, "/domains/new");
  expect(res.status).toBe(303);
  const id = Number(/^\/domains\/(\d+)\/verify\?added=1$/.exec(res.headers.get("location") ?? "")?.[1]);
  expect(id).toBeGreaterThan(0);
  return { id, name };
}

const tokenOf = async (id: number) =>
  (await env.DB.prepare("SELECT verification_token AS t FROM domains WHERE id = ?").bind(id).first<{ t: string }>())?.t ?? "";

describe("domains list and adding a domain", () => {
  it("sends a signed-out visitor to sign-in, coming back to the page", async () => {
    const res = await new Browser().fetch("/domains?page=2");
    expect(res.status).toBe(303);
    expect(res.headers.get("location")).toBe(`/sign-in?next=${encodeURIComponent("/domains?page=2")}`);
    for (const path of ["/domains/new", "/domains/1", "/domains/1/verify", "/domains/1/dkim/s1"]) {
      expect((await new Browser().fetch(path)).status).toBe(303);
    }
    expect((await new Browser().fetch("/domains", { method: "POST", form: { name: "x.com" } })).status).toBe(303);
  });

  it("adds a domain, shows the exact TXT record with copy buttons, and lists it with its state", async () => {
    const b = await owner();
    const empty = await (await b.fetch("/domains")).text();
    expect(empty).toContain("No domains yet.");
    expect(empty).toContain('href="/domains/new"');
    const form = await (await b.fetch("/domains/new")).text();
    expect(form).toMatch(/<label for="domain-name">/);
    const { id, name } = await addViaPage(b, ` ${newDomainName().toUpperCase()}. `);
    const verify = await (await b.fetch(`/domains/${id}/verify?added=1`)).text();
    const token = await tokenOf(id);
    const lower = name.trim().toLowerCase().replace(/\.$/, "");
    expect(verify).toContain(`data-copy="_emailauth-verify.${lower}"`);
    expect(verify).toContain(`data-copy="emailauth-verify=${token}"`);
    expect(verify).toContain('data-copy="TXT"');
    expect(verify).toContain("Verify now");
    const list = await (await b.fetch("/domains")).text();
    expect(list).toContain(`href="/domains/${id}"`);
    expect(list).toContain(lower);
    expect(list).toContain("unverified");
    expect(list).toContain("1 domain<");
  });

  it("re-shows the form with the reason for a bad name (422) or a duplicate (409)", async () => {
    const b = await owner();
    const bad = await b.post("/domains", { name: "not a domain" }, "/domains/new");
    expect(bad.status).toBe(422);
    const html = await bad.text();
    expect(html).toContain('value="not a domain"');
    expect(html).toContain("is not a domain name we can monitor");
    const { name } = await addViaPage(b);
    const dup = await b.post("/domains", { name }, "/domains/new");
    expect(dup.status).toBe(409);
    expect(await dup.text()).toContain("already in this team");
  });

  it("paginates with the API's bounds: out of range is a 422 page", async () => {
    const b = await owner();
    for (let i = 0; i < 3; i++) await addViaPage(b);
    const p2 = await (await b.fetch("/domains?page=2&per_page=2")).text();
    expect(p2).toContain("Page 2 of 2");
    expect((p2.match(/href="\/domains\/\d+"/g) ?? []).length).toBe(1);
    expect((await b.fetch("/domains?page=0")).status).toBe(422);
    expect((await b.fetch("/domains?per_page=201")).status).toBe(422);
    expect((await b.fetch("/domains?page=abc")).status).toBe(422);
  });

  it("refuses a cross-site post and one without the CSRF token", async () => {
    const b = await owner();
    const _csrf = await b.csrf("/domains/new");
    expect((await b.fetch("/domains", { method: "POST", form: { _csrf, name: newDomainName() }, origin: "https://evil.test" })).status).toBe(403);
    expect((await b.fetch("/domains", { method: "POST", form: { name: newDomainName() } })).status).toBe(403);
    expect(await (await b.fetch("/domains")).text()).toContain("No domains yet.");
  });
});

describe("verifying ownership", () => {
  it("says 'not found yet' without the record, 'does not contain' for a wrong one, and verifies with it", async () => {
    const b = await owner();
    const { id, name } = await addViaPage(b);
    capture = captureChecks();
    let stub = serve(zoneFor(name));
    let res = await b.post(`/domains/${id}/verify`, {}, `/domains/${id}/verify`);
    expect(res.status).toBe(200);
    expect(await res.text()).toContain(`Not verified yet: no TXT record at _emailauth-verify.${name}`);
    stub.restore();
    stub = serve(zoneFor(name, { verifyValue: "emailauth-verify=wrong" }));
    res = await b.post(`/domains/${id}/verify`, {}, `/domains/${id}/verify`);
    expect(await res.text()).toContain("does not contain");
    stub.restore();
    serve(zoneFor(name, { verifyValue: `emailauth-verify=${await tokenOf(id)}` }));
    res = await b.post(`/domains/${id}/verify`, {}, `/domains/${id}/verify`);
    expect(res.status).toBe(303);
    expect(res.headers.get("location")).toBe(`/domains/${id}?verified=1`);
    expect(capture.sent).toEqual([{ domain_id: id, check_id: expect.stringMatching(/^chk_/), trigger: "verify" }]);
    expect(await (await b.fetch(`/domains/${id}/verify`)).text()).toContain("This domain is verified.");
  });

  it("reports a DNS failure as a failed lookup (503), distinct from 'not found yet', and changes nothing", async () => {
    const b = await owner();
    const { id, name } = await addViaPage(b);
    const stub = serve(zoneFor(name, { verifyValue: `emailauth-verify=${await tokenOf(id)}` }));
    stub.setFault(`_emailauth-verify.${name}`, "TXT", "servfail");
    const res = await b.post(`/domains/${id}/verify`, {}, `/domains/${id}/verify`);
    expect(res.status).toBe(503);
    const html = await res.text();
    expect(html).toContain("The DNS lookup failed");
    expect(html).not.toContain("Not verified yet");
    const row = await env.DB.prepare("SELECT verified FROM domains WHERE id = ?").bind(id).first<{ verified: number }>();
    expect(row?.verified).toBe(0);
  });
});

describe("the domain page", () => {
  async function verifiedAndChecked() {
    const b = await owner();
    const { id, name } = await addViaPage(b);
    capture = captureChecks();
    serve(zoneFor(name, { verifyValue: `emailauth-verify=${await tokenOf(id)}`, dmarc: "v=DMARC1; p=none" }));
    await b.post(`/domains/${id}/verify`, {}, `/domains/${id}/verify`);
    return { b, id, name };
  }

  it("shows the queued check and refreshes itself until the result is there, then the posture, fixes and history", async () => {
    const { b, id, name } = await verifiedAndChecked();
    const waiting = await (await b.fetch(`/domains/${id}?verified=1`)).text();
    expect(waiting).toContain("Ownership verified.");
    expect(waiting).toMatch(/data-refresh-after="\d+"/);
    expect(waiting).toContain("The first check is queued");
    expect(waiting).toContain("No check has finished yet.");
    const msg = capture?.sent[0];
    if (!msg) throw new Error("no check queued");
    await consumeChecks(fakeBatch([msg]).batch, clockedServices(new Date()));
    const done = await (await b.fetch(`/domains/${id}`)).text();
    expect(done).not.toContain("data-refresh-after");
    for (const part of ["SPF", "DMARC", "DKIM", "BIMI", "MTA-STS", "TLS-RPT", "MX", "Blocklists"]) expect(done).toContain(`>${part} <`);
    expect(done).toContain('data-copy="v=spf1 include:_spf.google.com -all"');
    // p=none without rua: the plan comes first, with the DMARC record to paste and copy buttons.
    expect(done).toContain("Your plan to grade A");
    expect(done.indexOf("Your plan to grade A")).toBeLessThan(done.indexOf('id="posture-h"'));
    expect(done).toContain(`data-copy="_dmarc.${name}"`);
    expect(done).toMatch(/data-copy="v=DMARC1; p=none; rua=mailto:[0-9a-z]{20}@reports\.test"/);
    expect(done).toMatch(/<svg[^>]*role="img"[^>]*aria-label="Score of /);
    expect(done).toContain("1 check; latest score");
    expect(done).toMatch(/data-copy="[0-9a-z]{20}@reports\.test"/);
    expect(done).not.toMatch(/style="/);
    expect(done).not.toMatch(/<script>/);
  });

  it("check now queues one check (a second click returns the same), shown as pending; an unverified domain is a 409 page", async () => {
    const { b, id } = await verifiedAndChecked();
    const msg = capture?.sent[0];
    if (!msg) throw new Error("no check queued");
    await consumeChecks(fakeBatch([msg]).batch, clockedServices(new Date()));
    const before = capture?.sent.length ?? 0;
    const res = await b.post(`/domains/${id}/check`, {}, `/domains/${id}`);
    expect(res.status).toBe(303);
    expect(res.headers.get("location")).toBe(`/domains/${id}?checked=1`);
    expect(await b.post(`/domains/${id}/check`, {}, `/domains/${id}`)).toMatchObject({ status: 303 });
    expect((capture?.sent.length ?? 0) - before).toBe(1);
    const page = await (await b.fetch(`/domains/${id}?checked=1`)).text();
    expect(page).toContain("A check is queued");
    expect(page).toContain("Check queued");
    const other = await addViaPage(b);
    const refused = await b.post(`/domains/${other.id}/check`, {}, `/domains/${other.id}`);
    expect(refused.status).toBe(409);
    expect(await refused.text()).toContain("Verify the domain");
  });

  it("shows the diffs timeline with severities after a record changes between two checks", async () => {
    const { b, id, name } = await verifiedAndChecked();
    const msg = capture?.sent[0];
    if (!msg) throw new Error("no check queued");
    const t1 = new Date();
    await consumeChecks(fakeBatch([msg]).batch, clockedServices(t1));
    serve(zoneFor(name, { verifyValue: `emailauth-verify=${await tokenOf(id)}`, dmarc: "v=DMARC1; p=reject" }));
    const out = await runCheck(clockedServices(new Date(t1.getTime() + 60_000)), { domain_id: id, check_id: `chk_page_${id}`, trigger: "manual" });
    expect(out).toMatchObject({ recorded: true, status: "completed" });
    const html = await (await b.fetch(`/domains/${id}`)).text();
    expect(html).toMatch(/<span class="badge[^"]*">(Critical|High|Medium|Low|Info)<\/span> <strong>DMARC policy changed from none to reject<\/strong>/);
    expect(html).toContain('<code class="break">v=DMARC1; p=none</code>');
    expect(html).toContain('<code class="break">v=DMARC1; p=reject</code>');
    expect(html).toContain("2 checks; latest score");
  });

  it("deletes a domain after confirmation", async () => {
    const b = await owner();
    const { id, name } = await addViaPage(b);
    const page = await (await b.fetch(`/domains/${id}`)).text();
    expect(page).toContain(`data-confirm="Delete ${name} and all its data? This cannot be undone."`);
    const res = await b.post(`/domains/${id}/delete`, {}, `/domains/${id}`);
    expect(res.headers.get("location")).toBe("/domains?deleted=1");
    expect((await b.fetch(`/domains/${id}`)).status).toBe(404);
  });

  it("is a 404 page for junk and unknown ids", async () => {
    const b = await owner();
    for (const path of ["/domains/abc", "/domains/0", "/domains/99999999", "/domains/1e3/verify"]) expect((await b.fetch(path)).status).toBe(404);
  });
});

describe("viewers and other teams", () => {
  it("shows a viewer everything without a change control, and refuses every change with 403", async () => {
    const { owner: o, viewer } = await ownerWithViewer();
    const { id, name } = await addViaPage(o);
    const list = await (await viewer.fetch("/domains")).text();
    expect(list).toContain(name);
    expect(list).not.toContain('href="/domains/new"');
    const page = await (await viewer.fetch(`/domains/${id}`)).text();
    expect(page).toContain(name);
    expect(page).not.toMatch(/action="\/domains\/\d+\/(check|delete)"/);
    expect(await (await viewer.fetch(`/domains/${id}/verify`)).text()).not.toContain("Verify now");
    expect((await viewer.fetch("/domains/new")).status).toBe(403);
    expect((await viewer.post("/domains", { name: newDomainName() }, "/domains")).status).toBe(403);
    expect((await viewer.post(`/domains/${id}/verify`, {}, "/domains")).status).toBe(403);
    expect((await viewer.post(`/domains/${id}/check`, {}, "/domains")).status).toBe(403);
    expect((await viewer.post(`/domains/${id}/delete`, {}, "/domains")).status).toBe(403);
    expect((await o.fetch(`/domains/${id}`)).status).toBe(200);
  });

  it("answers another team's domain with a 404 page and changes nothing", async () => {
    const a = await owner();
    const stranger = await owner();
    const { id } = await addViaPage(a);
    for (const path of [`/domains/${id}`, `/domains/${id}/verify`, `/domains/${id}/dkim/google`]) expect((await stranger.fetch(path)).status).toBe(404);
    for (const action of ["verify", "check", "delete"]) expect((await stranger.post(`/domains/${id}/${action}`, {}, "/domains")).status).toBe(404);
    expect(await (await stranger.fetch("/domains")).text()).toContain("No domains yet.");
    expect((await a.fetch(`/domains/${id}`)).status).toBe(200);
  });
});
