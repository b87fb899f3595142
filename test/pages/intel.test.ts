// The intel page through the Worker's real fetch export: any domain's posture part by part, address
// checks (one or a batch), bad input as a 422 page, a failed lookup as a 503 page; viewers may use it.
import { describe, expect, it, vi } from "vitest";
import { unique } from "../support/api";
import { Browser } from "../support/browser";
import { installDohStub } from "../support/doh-stub";
import { newDomainName, zoneFor } from "../support/monitoring";

const email = () => `${unique("i").toLowerCase()}@example.com`;

async function signedIn(): Promise<Browser> {
  const b = new Browser();
  await b.signIn(email());
  return b;
}

describe("intel", () => {
  it("sends a signed-out visitor to sign-in", async () => {
    expect((await new Browser().fetch("/intel?domain=example.com")).status).toBe(303);
    expect((await new Browser().fetch("/intel/emails", { method: "POST", form: { emails: "a@b.com" } })).status).toBe(303);
  });

  it("analyzes any domain: grade, every part with its record, and the fixes to paste", async () => {
    const b = await signedIn();
    const name = newDomainName();
    installDohStub(zoneFor(name, { dmarc: "v=DMARC1; p=none" }));
    const res = await b.fetch(`/intel?domain=${name}`);
    expect(res.status).toBe(200);
    const html = await res.text();
    expect(html).toMatch(/class="grade [A-F]"/);
    for (const part of ["SPF", "DMARC", "BIMI", "MTA-STS", "TLS-RPT", "MX", "Blocklists"]) expect(html).toContain(`>${part} <`);
    expect(html).toContain('data-copy="v=DMARC1; p=none"');
    // The same remediation plan as /api/v1/intel/domain, with the DMARC record to publish.
    expect(html).toContain("Your plan to grade A");
    expect(html).toMatch(/data-copy="v=DMARC1; p=none; rua=mailto:[^"]+"/);
    expect(html).not.toMatch(/style="/);
  });

  it("answers a bad name with a 422 page and no resolver with a 503 page that says the lookup failed", async () => {
    const b = await signedIn();
    const bad = await b.fetch("/intel?domain=not%20a%20domain");
    expect(bad.status).toBe(422);
    expect(await bad.text()).toContain("domain:");
    vi.spyOn(globalThis, "fetch").mockImplementation(async () => new Response("down", { status: 502 }));
    const down = await b.fetch("/intel?domain=example.com");
    expect(down.status).toBe(503);
    const html = await down.text();
    expect(html).toContain("No DNS resolver answered");
    expect(html).not.toContain("missing");
  });

  it("checks one address or a batch pasted one per line; too many or an invalid single one is a 422", async () => {
    const b = await signedIn();
    const name = newDomainName();
    installDohStub(zoneFor(name));
    const one = await b.post("/intel/emails", { emails: `jane@${name}` }, "/intel");
    expect(one.status).toBe(200);
    expect(await one.text()).toContain("1 address<");
    const batch = await b.post("/intel/emails", { emails: `jane@${name}\r\n\r\nnot-an-address\nsupport@${name}` }, "/intel");
    expect(batch.status).toBe(200);
    const html = await batch.text();
    expect(html).toContain("3 addresses");
    expect(html).toContain("Invalid address");
    expect(html).toContain("A role mailbox");
    expect((await b.post("/intel/emails", { emails: "not-an-address" }, "/intel")).status).toBe(422);
    expect((await b.post("/intel/emails", { emails: Array.from({ length: 101 }, (_, i) => `u${i}@${name}`).join("\n") }, "/intel")).status).toBe(422);
    expect((await b.post("/intel/emails", { emails: "" }, "/intel")).status).toBe(422);
    const _csrf = await b.csrf("/intel");
    expect((await b.fetch("/intel/emails", { method: "POST", form: { _csrf, emails: "a@b.com" }, origin: "https://evil.test" })).status).toBe(403);
  });

  it("lets a viewer use it (compute-only)", async () => {
    const o = await signedIn();
    const viewerEmail = email();
    await o.post("/team/invite", { email: viewerEmail, role: "viewer" }, "/team");
    const viewer = new Browser();
    await viewer.openLatestLink(viewerEmail);
    const name = newDomainName();
    installDohStub(zoneFor(name));
    expect((await viewer.fetch(`/intel?domain=${name}`)).status).toBe(200);
    expect((await viewer.post("/intel/emails", { emails: `jane@${name}` }, "/intel")).status).toBe(200);
  });
});
