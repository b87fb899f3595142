// DKIM pages through the Worker's real fetch export: the selector inventory per domain, adding and
// removing manual selectors, the key history page, and the tools (lookup, verify, generate) with the
// DoH stub; viewers use the tools but change nothing; another team's domain is a 404.
import { env } from "cloudflare:workers";
import { describe, expect, it, vi } from "vitest";
import { unique } from "../support/api";
import { Browser } from "../support/browser";
import { installDohStub } from "../support/doh-stub";
import { dkimRecord, newDomainName, zoneFor } from "../support/monitoring";

const email = () => `${unique("k").toLowerCase()}@example.com`;

async function owner(): Promise<Browser> {
  const b = new Browser();
  await b.signIn(email());
  return b;
}

async function withDomain(b: Browser) {
  const name = newDomainName();
  const res = await b.post("/domains", { name }, "/domains/new");
  const id = Number(/^\/domains\/(\d+)\//.exec(res.headers.get("location") ?? "")?.[1]);
  return { id, name };
}

const selectorCount = async (id: number) =>
  (await env.DB.prepare("SELECT count(*) AS n FROM dkim_selectors WHERE domain_id = ?").bind(id).first<{ n: number }>())?.n ?? 0;

describe("the DKIM inventory", () => {
  it("sends a signed-out visitor to sign-in", async () => {
    for (const path of ["/dkim", "/dkim/lookup?domain=example.com"]) expect((await new Browser().fetch(path)).status).toBe(303);
    expect((await new Browser().fetch("/dkim/generate", { method: "POST", form: {} })).status).toBe(303);
  });

  it("adds a selector, looks it up at once, and shows its key, age and history", async () => {
    const b = await owner();
    const { id, name } = await withDomain(b);
    const key = await dkimRecord(name);
    installDohStub(zoneFor(name, { dkimRecord: key.record }));
    const res = await b.post("/dkim/selectors", { domain_id: String(id), selector: "Google" }, "/dkim");
    expect(res.status).toBe(303);
    expect(res.headers.get("location")).toBe(`/dkim?done=added#domain-${id}`);
    const page = await (await b.fetch("/dkim?done=added")).text();
    expect(page).toContain("Selector added and looked up.");
    expect(page).toContain(`href="/domains/${id}/dkim/google"`);
    expect(page).toContain('<span class="badge ok">active</span>');
    expect(page).toContain("ed25519 256");
    expect(page).toContain("published or discovered");
    const again = await b.post("/dkim/selectors", { domain_id: String(id), selector: "google" }, "/dkim");
    expect(again.headers.get("location")).toBe(`/dkim?done=exists#domain-${id}`);
    const detail = await (await b.fetch(`/domains/${id}/dkim/google`)).text();
    expect(detail).toContain(key.fingerprint);
    expect(detail).toContain(`google._domainkey.${name}`);
    expect(detail).toContain("Key history");
    expect(detail).toContain('<span class="badge ok">current</span>');
    expect((await b.fetch(`/domains/${id}/dkim/nope`)).status).toBe(404);
    expect((await b.fetch(`/domains/${id}`)).status).toBe(200);
  });

  it("removes an unpublished manual selector after confirmation; refuses a bad name with 422", async () => {
    const b = await owner();
    const { id, name } = await withDomain(b);
    installDohStub(zoneFor(name));
    await b.post("/dkim/selectors", { domain_id: String(id), selector: "s2026" }, "/dkim");
    const page = await (await b.fetch("/dkim")).text();
    expect(page).toContain('data-confirm="Remove selector s2026');
    const res = await b.post("/dkim/selectors/remove", { domain_id: String(id), selector: "s2026", back: "https://evil.test/" }, "/dkim");
    expect(res.headers.get("location")).toBe(`/dkim?done=removed#domain-${id}`);
    expect(await selectorCount(id)).toBe(0);
    expect((await b.post("/dkim/selectors", { domain_id: String(id), selector: "bad selector!" }, "/dkim")).status).toBe(422);
    expect((await b.post("/dkim/selectors", { domain_id: "x", selector: "s1" }, "/dkim")).status).toBe(404);
    expect((await b.post("/dkim/selectors/remove", { domain_id: String(id), selector: "never" }, "/dkim")).status).toBe(404);
  });

  it("shows a viewer the inventory without controls and refuses changes; another team's domain is a 404", async () => {
    const o = await owner();
    const { id, name } = await withDomain(o);
    installDohStub(zoneFor(name));
    await o.post("/dkim/selectors", { domain_id: String(id), selector: "s1" }, "/dkim");
    const viewerEmail = email();
    await o.post("/team/invite", { email: viewerEmail, role: "viewer" }, "/team");
    const viewer = new Browser();
    await viewer.openLatestLink(viewerEmail);
    const page = await (await viewer.fetch("/dkim")).text();
    expect(page).toContain("s1");
    expect(page).not.toContain('action="/dkim/selectors"');
    expect(page).not.toContain('action="/dkim/selectors/remove"');
    expect((await viewer.post("/dkim/selectors", { domain_id: String(id), selector: "s9" }, "/dkim")).status).toBe(403);
    expect((await viewer.post("/dkim/selectors/remove", { domain_id: String(id), selector: "s1" }, "/dkim")).status).toBe(403);
    const stranger = await owner();
    expect((await stranger.post("/dkim/selectors", { domain_id: String(id), selector: "s9" }, "/dkim")).status).toBe(404);
    expect((await stranger.post("/dkim/selectors/remove", { domain_id: String(id), selector: "s1" }, "/dkim")).status).toBe(404);
    expect((await stranger.fetch(`/domains/${id}/dkim/s1`)).status).toBe(404);
    expect(await (await stranger.fetch("/dkim")).text()).not.toContain(name);
    expect(await selectorCount(id)).toBe(1);
  });
});

describe("the DKIM tools", () => {
  it("looks up selectors of any domain; a bad name is a 422 page; no resolver is a failed lookup (503)", async () => {
    const b = await owner();
    const name = newDomainName();
    const key = await dkimRecord(name);
    installDohStub(zoneFor(name, { dkimRecord: key.record }));
    const res = await b.fetch(`/dkim/lookup?domain=${name}&selectors=google,nothere`);
    expect(res.status).toBe(200);
    const html = await res.text();
    expect(html).toContain(`Selectors of ${name}`);
    expect(html).toContain(key.record.slice(0, 40));
    expect((await b.fetch("/dkim/lookup?domain=not%20a%20domain")).status).toBe(422);
    vi.spyOn(globalThis, "fetch").mockImplementation(async () => new Response("down", { status: 502 }));
    const down = await b.fetch(`/dkim/lookup?domain=${name}&selectors=google`);
    expect(down.status).toBe(503);
    expect(await down.text()).toContain("No DNS resolver answered");
  });

  it("generates a key pair shown once with a download, stored nowhere; viewers may use it", async () => {
    const b = await owner();
    const res = await b.post("/dkim/generate", { domain: "example.com", selector: "mail2026", algorithm: "ed25519" }, "/dkim");
    expect(res.status).toBe(200);
    const html = await res.text();
    expect(html).toContain("-----BEGIN PRIVATE KEY-----");
    expect(html).toMatch(/href="data:application\/x-pem-file;base64,[A-Za-z0-9+/=]+" download="mail2026\.example\.com\.private\.pem"/);
    expect(html).toContain('data-copy="mail2026._domainkey.example.com"');
    expect(res.headers.get("cache-control")).toBe("no-store");
    expect((await b.post("/dkim/generate", { domain: "example.com", selector: "bad selector", algorithm: "ed25519" }, "/dkim")).status).toBe(422);
    expect((await b.post("/dkim/generate", { domain: "example.com", selector: "s1", algorithm: "rsa-512" }, "/dkim")).status).toBe(422);
    const _csrf = await b.csrf("/dkim");
    expect(
      (await b.fetch("/dkim/generate", { method: "POST", form: { _csrf, domain: "example.com", selector: "s1" }, origin: "https://evil.test" })).status,
    ).toBe(403);
  });

  it("verifies a pasted message: an unsigned one says so; an empty one is a 422 page", async () => {
    const b = await owner();
    installDohStub({});
    const res = await b.post("/dkim/verify", { message: "From: a@example.com\r\nTo: b@example.org\r\nSubject: hi\r\n\r\nHello.\r\n" }, "/dkim");
    expect(res.status).toBe(200);
    expect(await res.text()).toContain("The message carries no DKIM-Signature.");
    expect((await b.post("/dkim/verify", { message: "   " }, "/dkim")).status).toBe(422);
  });
});
