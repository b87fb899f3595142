// The dashboard as a customer sees it (docs/decisions.md D167-D169), through the Worker's real fetch
// export: refused forms said in words on the form with what was typed kept (a domain name, a webhook,
// a report upload), the webhook form's grouped events with the alert-worthy ones ticked, the domain
// page (one entry per change in words, the queued check shown as pending without its id, the one-time
// flag dropped on refresh), drift alert titles in words, plurals, the favicon, the "Copied" announcement,
// and "Check your email" naming the address with a resend through the same throttled request.
import { env } from "cloudflare:workers";
import { afterEach, describe, expect, it } from "vitest";
import { consumeChecks } from "../../src/queues/checks";
import { runCheck } from "../../src/services/checks/run-check";
import { unique } from "../support/api";
import { Browser, signedInOwner } from "../support/browser";
import { type DohStub, installDohStub } from "../support/doh-stub";
import { insertDomain } from "../support/factories";
import { captureChecks, clockedServices, fakeBatch, newDomainName, zoneFor } from "../support/monitoring";
import { day0, reportXml } from "../support/reports";
import { installReceiver } from "../support/webhooks";

let capture: ReturnType<typeof captureChecks> | null = null;
let dns: DohStub | null = null;
afterEach(() => {
  capture?.restore();
  capture = null;
  dns?.restore();
  dns = null;
});

const serve = (zone: Parameters<typeof installDohStub>[0]) => {
  dns?.restore();
  dns = installDohStub(zone);
};

const tokenOf = async (id: number) =>
  (await env.DB.prepare("SELECT verification_token AS t FROM domains WHERE id = ?").bind(id).first<{ t: string }>())?.t ?? "";

/** Adds a domain through the form, verifies it (the first check is captured, not run) and returns it. */
async function verifiedDomain(b: Browser, dmarc = "v=DMARC1; p=none") {
  const name = newDomainName();
  const res = await b.post("/domains", { name }, "/domains/new");
  const id = Number(/^\/domains\/(\d+)\/verify/.exec(res.headers.get("location") ?? "")?.[1]);
  capture = captureChecks();
  serve(zoneFor(name, { verifyValue: `emailauth-verify=${await tokenOf(id)}`, dmarc }));
  const verified = await b.post(`/domains/${id}/verify`, {}, `/domains/${id}/verify`);
  expect(verified.headers.get("location")).toBe(`/domains/${id}?verified=1`);
  return { id, name };
}

async function runFirstCheck(at: Date) {
  const msg = capture?.sent[0];
  if (!msg) throw new Error("no check queued");
  await consumeChecks(fakeBatch([msg]).batch, clockedServices(at));
}

/** A multipart upload of `content` as the report file, as the upload form sends it. */
async function upload(b: Browser, domainId: number, content: string | Uint8Array) {
  const form = new FormData();
  form.set("_csrf", await b.csrf(`/domains/${domainId}/dmarc`));
  form.set("report", new File([content], "report.xml", { type: "text/xml" }));
  const req = new Request("https://x.test", { method: "POST", body: form });
  return b.fetch(`/domains/${domainId}/dmarc/upload`, {
    method: "POST",
    body: new Uint8Array(await req.arrayBuffer()),
    headers: { "content-type": req.headers.get("content-type") ?? "" },
  });
}

describe("refused forms, said in words on the form", () => {
  it("re-shows the domain form with what was typed and what a domain name looks like (422), never the parser's field name", async () => {
    const { b } = await signedInOwner("cv");
    const res = await b.post("/domains", { name: "my shop" }, "/domains/new");
    expect(res.status).toBe(422);
    const html = await res.text();
    expect(html).toContain("<h1>Add a domain</h1>");
    expect(html).toContain('value="my shop"');
    expect(html).toContain("&quot;my shop&quot; is not a domain name we can monitor. Enter a name like example.com");
    expect(html).toContain('aria-invalid="true"');
    expect(html).toContain('aria-describedby="domain-name-error"');
    expect(html).not.toContain("name:");
    expect(html).not.toContain("contains characters");
    expect(html).not.toContain("Check your input");
  });

  it("explains a file that is not a report on the upload form (422), without the internal code, and an empty choice", async () => {
    dns = installDohStub({});
    const { b, teamId } = await signedInOwner("cv");
    const domain = await insertDomain(teamId);
    const bad = await upload(b, domain.id, "<html><body>hello</body></html>");
    expect(bad.status).toBe(422);
    const html = await bad.text();
    expect(html).toContain(`DMARC reports for ${domain.name}`);
    expect(html).toContain("That file is not a DMARC aggregate report we can read.");
    expect(html).toContain("What we found: root element is &lt;html&gt;, not &lt;feedback&gt;");
    expect(html).toContain('id="report-file"');
    expect(html).toContain('aria-describedby="report-file-error"');
    expect(html).toContain(`action="/domains/${domain.id}/dmarc/upload#dmarc-upload"`);
    expect(html).not.toMatch(/\(not_a_report\)|not_a_report|Check your input|Go back/);
    const empty = await upload(b, domain.id, "");
    expect(empty.status).toBe(422);
    expect(await empty.text()).toContain("Choose a report file to upload");
    const foreign = await upload(
      b,
      domain.id,
      reportXml({ domain: "elsewhere.example", reportId: unique("rid"), begin: day0(2), end: day0(2) + 86_399, records: [{ ip: "192.0.2.1", count: 1 }] }),
    );
    expect(foreign.status).toBe(422);
    expect(await foreign.text()).toContain(`The report is about elsewhere.example, not ${domain.name}.`);
  });

  it("keeps a post that is not the upload form an error page (400): only a refusal of the file is said on the form", async () => {
    dns = installDohStub({});
    const { b, teamId } = await signedInOwner("cv");
    const domain = await insertDomain(teamId);
    const res = await b.fetch(`/domains/${domain.id}/dmarc/upload`, { method: "POST", form: { report: "x" } });
    expect(res.status).toBe(400);
    expect(await res.text()).not.toContain('id="report-file"');
  });
});

describe("the webhook form", () => {
  it("groups the events by area in words, with the alert-worthy ones ticked on a new form", async () => {
    const r = installReceiver();
    try {
      const { b } = await signedInOwner("cv");
      const html = await (await b.fetch("/webhooks")).text();
      for (const legend of ["Alerts", "Domain posture", "DKIM", "Blocklists", "Reports (DMARC and TLS)", "Domains"])
        expect(html).toContain(`<legend>${legend}</legend>`);
      expect(html).toMatch(/<input type="checkbox" name="events" value="alert.created" checked=""\/>\s*<span>An alert is raised <code>alert.created<\/code>/);
      for (const ticked of ["alert.created", "alert.resolved", "blacklist.listed", "dkim.key.revoked", "domain.unverified"])
        expect(html).toContain(`value="${ticked}" checked=""`);
      for (const unticked of ["check.completed", "posture.changed", "dmarc.report.received", "*"]) {
        expect(html).toContain(`value="${unticked}"`);
        expect(html).not.toContain(`value="${unticked}" checked=""`);
      }
      // Every type of the catalogue is offered once.
      expect((html.match(/name="events" value="/g) ?? []).length).toBe(21);
    } finally {
      r.stub.restore();
    }
  });

  it("says a form with no event ticked in words, keeping the URL and the (empty) choice", async () => {
    const r = installReceiver();
    try {
      const { b } = await signedInOwner("cv");
      const csrf = await b.csrf("/webhooks");
      const res = await b.fetch("/webhooks", {
        method: "POST",
        body: new URLSearchParams([
          ["_csrf", csrf],
          ["url", "https://hooks.example.com/kept"],
          ["description", "Kept text"],
        ]).toString(),
        headers: { "content-type": "application/x-www-form-urlencoded" },
      });
      expect(res.status).toBe(422);
      const html = await res.text();
      expect(html).toContain("Choose at least one event to send, or every event.");
      // The answer opens at the form, where the message is.
      expect(html).toContain('<form method="post" action="/webhooks#create-webhook">');
      expect(html).not.toContain("subscribe to at least one event type");
      expect(html).not.toContain("events:");
      expect(html).toContain('value="https://hooks.example.com/kept"');
      expect(html).toContain('value="Kept text"');
      // What was sent is kept: nothing ticked, not the defaults.
      expect(html).not.toMatch(/name="events" value="[^"]+" checked=""/);
      const local = await b.fetch("/webhooks", {
        method: "POST",
        body: new URLSearchParams([
          ["_csrf", csrf],
          ["url", "https://127.0.0.1/in"],
          ["events", "alert.created"],
        ]).toString(),
        headers: { "content-type": "application/x-www-form-urlencoded" },
      });
      expect(local.status).toBe(422);
      const localHtml = await local.text();
      expect(localHtml).toContain("Receiver URL: ");
      expect(localHtml).toContain('value="alert.created" checked=""');
      expect(localHtml).not.toContain('value="alert.resolved" checked=""');
    } finally {
      r.stub.restore();
    }
  });
});

describe("the domain page", () => {
  it("shows a queued check as pending without its id, and refreshes to the address without the one-time flag", async () => {
    const { b } = await signedInOwner("cv");
    const { id } = await verifiedDomain(b);
    const waiting = await (await b.fetch(`/domains/${id}?verified=1`)).text();
    // One notice: verified, and the first check queued (with its time, not its id).
    expect(waiting).toMatch(/Ownership verified. The first check is queued \(since \d{4}-\d\d-\d\d \d\d:\d\d UTC\)/);
    expect(waiting.match(/Ownership verified/g)?.length).toBe(1);
    expect(waiting).not.toMatch(/chk_/);
    expect(waiting).toContain(`data-refresh-to="/domains/${id}?checked=1"`);
    expect(waiting).toMatch(/<button type="submit" class="pending" disabled="" aria-disabled="true">Check queued…<\/button>/);
    expect(waiting).not.toContain(">Check now<");
    const plain = await (await b.fetch(`/domains/${id}`)).text();
    expect(plain).toContain(`data-refresh-to="/domains/${id}"`);
    expect(plain).toMatch(/A check is queued \(since \d{4}-\d\d-\d\d \d\d:\d\d UTC\)/);
    await runFirstCheck(new Date());
    const done = await (await b.fetch(`/domains/${id}?checked=1`)).text();
    expect(done).toContain("The check finished; the posture below is its result.");
    expect(done).not.toContain("Ownership verified");
    expect(done).not.toContain("data-refresh-after");
    expect(done).toMatch(/<button type="submit">Check now<\/button>/);
    // Opened with the flag after the check: the notice says the check is done, not queued.
    expect(await (await b.fetch(`/domains/${id}?verified=1`)).text()).toContain("Ownership verified. The first check has finished");
  });

  it("lists one entry per change in words, right after the place of the plan and before the posture", async () => {
    const { b } = await signedInOwner("cv");
    const { id, name } = await verifiedDomain(b, "v=DMARC1; p=reject");
    const t1 = new Date();
    await runFirstCheck(t1);
    serve(zoneFor(name, { verifyValue: `emailauth-verify=${await tokenOf(id)}`, dmarc: "v=DMARC1; p=none" }));
    const out = await runCheck(clockedServices(new Date(t1.getTime() + 60_000)), { domain_id: id, check_id: `chk_cv_${id}`, trigger: "manual" });
    expect(out).toMatchObject({ recorded: true, status: "completed" });
    const html = await (await b.fetch(`/domains/${id}`)).text();
    expect(html.match(/DMARC policy changed from reject to none/g)?.length).toBe(1);
    expect(html).not.toMatch(/dmarc p<|dmarc record<|DMARC record changed</);
    expect(html).toContain('<code class="break">v=DMARC1; p=reject</code>');
    expect(html).toContain('<code class="break">v=DMARC1; p=none</code>');
    const at = (s: string) => html.indexOf(s);
    expect(at("Recent changes")).toBeGreaterThan(0);
    expect(at('id="diffs-h"')).toBeLessThan(at('id="posture-h"'));
    expect(at('id="diffs-h"')).toBeLessThan(at('id="actions-h"'));
    // Parts with nothing to do are folded; a part with a finding stays open.
    expect(html).toMatch(/<details class="part folded" id="part-spf-section">/);
    expect(html).toMatch(/<section class="part" aria-labelledby="part-dmarc" id="part-dmarc-section">/);
    expect(html).toContain("2 checks; latest score");

    const alerts = await (await b.fetch("/alerts")).text();
    expect(alerts).toContain(`DMARC policy changed from reject to none on ${name}`);
    expect(alerts).not.toMatch(/drift · |DMARC p changed/);
    expect(alerts).toContain('<table class="stack">');
    expect(alerts).toMatch(/<td data-label="Action">\s*<form method="post" action="\/alerts\/\d+\/resolve"/);
    expect(alerts).toContain("1 open alert<");
  });

  it("says one check in the singular and labels the score history of one day with times", async () => {
    const { b } = await signedInOwner("cv");
    const { id } = await verifiedDomain(b);
    const t1 = new Date(Date.UTC(2026, 10, 28, 9, 15));
    await runFirstCheck(t1);
    let html = await (await b.fetch(`/domains/${id}`)).text();
    expect(html).toContain("1 check; latest score");
    expect(html).not.toContain("1 checks");
    await runCheck(clockedServices(new Date(t1.getTime() + 5 * 3_600_000)), { domain_id: id, check_id: `chk_cv2_${id}`, trigger: "manual" });
    html = await (await b.fetch(`/domains/${id}`)).text();
    expect(html).toMatch(/<div class="x-axis" aria-hidden="true"><span>Nov 28, 09:15<\/span><span>Nov 28, 14:15 UTC<\/span><\/div>/);
    expect(html).not.toMatch(/class="tick"/);
  });
});

describe("small things", () => {
  it("serves /favicon.ico as the site's icon with a day's cache, and every page links the icon", async () => {
    const res = await new Browser().fetch("/favicon.ico");
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("image/svg+xml");
    expect(res.headers.get("cache-control")).toBe("public, max-age=86400");
    expect(await res.text()).toMatch(/^<svg xmlns="http:\/\/www.w3.org\/2000\/svg"/);
    const page = await (await new Browser().fetch("/sign-in")).text();
    const href = /<link rel="icon" href="(\/assets\/icon\.[0-9a-z]+\.svg)" type="image\/svg\+xml"\/>/.exec(page)?.[1];
    expect(href).toBeTruthy();
    const icon = await new Browser().fetch(href ?? "");
    expect(icon.status).toBe(200);
    expect(icon.headers.get("cache-control")).toContain("immutable");
  });

  it("announces Copied through a live region, and the copy button's name changes too", async () => {
    const page = await (await new Browser().fetch("/sign-in")).text();
    expect(page).toContain('<div id="live-status" class="visually-hidden" role="status" aria-live="polite"></div>');
    const js = /<script src="([^"]+)"/.exec(page)?.[1] ?? "";
    const script = await (await new Browser().fetch(js)).text();
    expect(script).toContain('getElementById("live-status")');
    expect(script).toContain('setAttribute("aria-label", "Copied")');
  });

  it("names the address on 'Check your email' and resends through the same throttled request", async () => {
    const b = new Browser();
    const email = `${unique("cv").toLowerCase()}@example.com`;
    const first = await b.post("/sign-in", { email, next: "/alerts" }, "/sign-in");
    expect(first.status).toBe(200);
    const html = await first.text();
    expect(html).toContain(`We sent a sign-in link to <strong class="break">${email}</strong>`);
    expect(html).toContain(`<input type="hidden" name="email" value="${email}"/>`);
    expect(html).toContain('<input type="hidden" name="next" value="/alerts"/>');
    expect(html).toMatch(/<form method="post" action="\/sign-in">/);
    expect(html).toContain("send the link again");
    const mails = async () => (await env.DB.prepare("SELECT COUNT(*) AS n FROM dev_outbox WHERE recipient = ?").bind(email).first<{ n: number }>())?.n ?? 0;
    expect(await mails()).toBe(1);
    const again = await b.post("/sign-in", { email, next: "/alerts" }, "/sign-in");
    expect(again.status).toBe(200);
    expect(await mails()).toBe(2);
    // The resend is the same request: it meets the same per-address limit.
    let last = again;
    for (let i = 0; i < 10 && last.status === 200; i++) last = await b.post("/sign-in", { email }, "/sign-in");
    expect(last.status).toBe(429);
  });
});
