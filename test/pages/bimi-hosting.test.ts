// The hosted BIMI page through the Worker's real fetch export: a signed-out visitor goes to sign-in; the
// owner uploads a logo and PayPal's VMC with the page's multipart forms and reads the Gmail table, the
// certificate checks, the record under SITE_URL and the preview drawn from the public URL; a logo that
// breaks SVG Tiny PS is a 422 page with every fix; a form without its CSRF token is refused; stop hosting.
import { env } from "cloudflare:workers";
import { afterEach, describe, expect, it } from "vitest";
import { Browser, ORIGIN, signedInOwner } from "../support/browser";
import { insertDomain } from "../support/factories";
import { installReceiver } from "../support/webhooks";
import ecdsaLogo from "../fixtures/bimi-marks/generated/ecdsa-logo.svg?raw";
import ecdsaVmc from "../fixtures/bimi-marks/generated/ecdsa-vmc.pem?raw";
import { BAD_SVG, clearHosted, paypalPem, paypalSvg, pinClock } from "../routes/bimi-hosting/support";

afterEach(clearHosted);

async function upload(
  b: Browser,
  path: string,
  field: string,
  file: { name: string; content: string; type: string } | null,
  extra: Record<string, string> = {},
  csrf = true,
) {
  const form = new FormData();
  if (csrf) form.set("_csrf", await b.csrf(path.replace(/\/(logo|certificate)$/, "")));
  for (const [k, v] of Object.entries(extra)) form.set(k, v);
  if (file) form.set(field, new File([file.content], file.name, { type: file.type }));
  const req = new Request("https://x.test", { method: "POST", body: form });
  return b.fetch(path, { method: "POST", body: new Uint8Array(await req.arrayBuffer()), headers: { "content-type": req.headers.get("content-type") ?? "" } });
}

async function ownerWithDomain() {
  pinClock();
  const { b, teamId } = await signedInOwner("bimi");
  const d = await insertDomain(teamId, { name: "paypal.com" });
  return { b, d, page: `/domains/${d.id}/hosting/bimi` };
}

describe("the hosted BIMI page", () => {
  it("sends a signed-out visitor to sign-in", async () => {
    const res = await new Browser().fetch("/domains/1/hosting/bimi");
    expect(res.status).toBe(303);
    expect(res.headers.get("location")).toMatch(/^\/sign-in\?next=/);
  });

  it("uploads the logo and the VMC, then shows the report, the record, the Gmail table and the preview", async () => {
    const { b, page } = await ownerWithDomain();
    const empty = await (await b.fetch(page)).text();
    expect(empty).toContain('<tr data-row="mark_certificate" data-state="not_met">');
    expect(empty).not.toContain('id="logo-preview"');

    const logo = await upload(b, `${page}/logo`, "logo", { name: "paypal.svg", content: paypalSvg, type: "image/svg+xml" });
    expect(logo.status).toBe(303);
    expect(logo.headers.get("location")).toBe(`${page}?saved=logo`);
    const cert = await upload(b, `${page}/certificate`, "certificate", { name: "paypal.pem", content: paypalPem, type: "application/x-pem-file" });
    expect(cert.status).toBe(303);

    const html = await (await b.fetch(`${page}?saved=certificate`)).text();
    expect(html).toContain("The certificate is uploaded and validated");
    expect(html).toContain('<tr data-row="mark_certificate" data-state="met">');
    expect(html).toContain('<tr data-row="logo_matches_certificate" data-state="met">');
    expect(html).toContain('<tr data-row="dmarc_enforcement" data-state="cannot_tell">');
    expect(html).toMatch(/<span class="badge ok">valid<\/span> VMC · PayPal, Inc\./);
    expect(html).toContain('data-check="chain"');
    expect(html).toContain(`v=BIMI1; l=${ORIGIN}/bimi/paypal.com/default.svg; a=${ORIGIN}/bimi/paypal.com/default.pem`);
    // The preview is an <img> of the public URL (an SVG in <img> runs no script), in a circle and a square.
    expect(html).toMatch(/<img class="circle large" src="\/bimi\/paypal\.com\/default\.svg\?v=977f6761f83a"/);
    expect(html).toMatch(/<img class="square large" src="\/bimi\/paypal\.com\/default\.svg\?v=977f6761f83a"/);
    expect(html).not.toContain("<svg xmlns");
    const served = await b.fetch("/bimi/paypal.com/default.svg?v=977f6761f83a");
    expect(served.status).toBe(200);
    expect(await served.text()).toBe(paypalSvg);

    const verbs = await env.DB.prepare("SELECT verb, face FROM audit_entries WHERE verb LIKE 'bimi_hosting.%' ORDER BY at, seq").all<{
      verb: string;
      face: string;
    }>();
    expect(verbs.results.slice(-2)).toEqual([
      { verb: "bimi_hosting.logo_upload", face: "dashboard" },
      { verb: "bimi_hosting.certificate_upload", face: "dashboard" },
    ]);
  });

  it("a check that only informs is a note, not a failure: the subject fields of a test certificate beside its untrusted chain", async () => {
    // The generated certificate (test/fixtures/bimi-marks/README.md) chains to a test root, not a BIMI one, and its
    // subject carries only the attributes the tests need (MC Requirements §7.1.4.2.2 asks for more).
    pinClock(Date.parse("2030-01-01T00:00:00Z"));
    const { b, teamId } = await signedInOwner("bimi");
    const d = await insertDomain(teamId, { name: "brand.example" });
    const page = `/domains/${d.id}/hosting/bimi`;
    expect((await upload(b, `${page}/logo`, "logo", { name: "logo.svg", content: ecdsaLogo, type: "image/svg+xml" })).status).toBe(303);
    expect((await upload(b, `${page}/certificate`, "certificate", { name: "vmc.pem", content: ecdsaVmc, type: "application/x-pem-file" })).status).toBe(303);
    const html = await (await b.fetch(page)).text();
    const row = (id: string) => html.match(new RegExp(`<tr data-check="${id}">[\\s\\S]*?</tr>`))?.[0] ?? "";
    expect(row("subject-fields")).toContain('<span class="badge warn">note</span>');
    expect(row("trusted-root")).toContain('<span class="badge bad">failed</span>');
    // The certificate row lists what refuses the certificate, not the note.
    const gmail = html.match(/<tr data-row="mark_certificate"[\s\S]*?<\/tr>/)?.[0] ?? "";
    expect(gmail).toContain('data-state="not_met"');
    expect(gmail).not.toContain("Mark Certificate Requirements");
  });

  it("a subdomain without a record shows the Organizational Domain's record that receivers use instead", async () => {
    const { b, teamId } = await signedInOwner("bimi");
    const d = await insertDomain(teamId, { name: "news.brand-org.example" });
    const r = installReceiver({
      "_dmarc.brand-org.example": { TXT: ["v=DMARC1; p=reject"] },
      "default._bimi.brand-org.example": { TXT: ["v=BIMI1; l=https://cdn.example/org.svg; a="] },
    });
    try {
      const html = await (await b.fetch(`/domains/${d.id}/hosting/bimi`)).text();
      const live = html.match(/<p id="record-live"[\s\S]*?<\/p>/)?.[0] ?? "";
      expect(live).toContain("receivers use the Organizational Domain&#39;s at");
      expect(live).toContain("default._bimi.brand-org.example");
      expect(live).toContain("v=BIMI1; l=https://cdn.example/org.svg; a=");
    } finally {
      r.stub.restore();
    }
  });

  it("a logo that breaks SVG Tiny PS is a 422 page listing each problem with its fix; a missing CSRF token is refused", async () => {
    const { b, page } = await ownerWithDomain();
    const bad = await upload(b, `${page}/logo`, "logo", { name: "bad.svg", content: BAD_SVG, type: "image/svg+xml" });
    expect(bad.status).toBe(422);
    const html = await bad.text();
    expect(html).toContain('id="upload-errors"');
    expect(html).toContain("does not follow SVG Tiny PS");
    expect(html).toContain("Fix: Add version=&quot;1.2&quot; baseProfile=&quot;tiny-ps&quot; to the root &lt;svg&gt; element.");
    const noFile = await upload(b, `${page}/logo`, "logo", null);
    expect(noFile.status).toBe(422);
    const forged = await upload(b, `${page}/logo`, "logo", { name: "paypal.svg", content: paypalSvg, type: "image/svg+xml" }, {}, false);
    expect(forged.status).toBe(403);
  });

  it("stops hosting: the page says so and the public URL answers 404", async () => {
    const { b, page } = await ownerWithDomain();
    expect((await upload(b, `${page}/logo`, "logo", { name: "paypal.svg", content: paypalSvg, type: "image/svg+xml" })).status).toBe(303);
    const res = await b.post(`${page}/delete`, {}, page);
    expect(res.status).toBe(303);
    expect(res.headers.get("location")).toBe(`${page}?saved=deleted`);
    expect(await (await b.fetch(`${page}?saved=deleted`)).text()).toContain("Hosting stopped");
    expect((await b.fetch("/bimi/paypal.com/default.svg")).status).toBe(404);
  });
});
