// Hosted BIMI against an attacker through the Worker's fetch export: logos that hide a script, an external
// load or a document that is not an SVG behind XML syntax the profile checks must see through (namespace
// prefixes, CDATA, DTD entities, CSS url()), a logo kept byte for byte with its BOM, and certificate blocks
// that are not certificates. Each hostile logo is a 422 and nothing is stored or served.
import { env } from "cloudflare:workers";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { deleteBimiHosting } from "../../../src/services/bimi-hosting/delete";
import { putLogo } from "../../../src/services/bimi-hosting/logo";
import { call, json, makeTeam } from "../../support/api";
import { teamContext } from "../../support/context";
import { insertDomain, installReceiver, testServices } from "../../support/webhooks";
import { clearHosted, PLAIN_SVG, paypalSvg, pinClock } from "./support";

const base = (id: number) => `/api/v1/domains/${id}/bimi-hosting`;
const svgBody = (svg: string) => ({ rawBody: svg, headers: { "content-type": "image/svg+xml" } });
const pemBody = (pem: string) => ({ rawBody: pem, headers: { "content-type": "application/pem-certificate-chain" } });

const ROOT = '<svg xmlns="http://www.w3.org/2000/svg" version="1.2" baseProfile="tiny-ps" viewBox="0 0 100 100"';
/** A profile-valid logo with `inner` after its title (and `attrs` on its root). */
const logo = (inner: string, attrs = "") => `${ROOT}${attrs}><title>Brand</title>${inner}<circle cx="50" cy="50" r="40"/></svg>`;

// DNS answers nothing: the state's live record lookup stays off the network.
let dns: ReturnType<typeof installReceiver>;
beforeEach(() => {
  pinClock();
  dns = installReceiver({});
});
afterEach(async () => {
  dns.stub.restore();
  await clearHosted();
});

describe("hosted BIMI: hostile logos are refused", () => {
  const hostile: [string, string][] = [
    // A namespace prefix names the same SVG (or XHTML) element: browsers run svg:script and html:script.
    ["a prefixed svg:script", logo("<svg:script>alert(1)</svg:script>", ' xmlns:svg="http://www.w3.org/2000/svg"')],
    ["an XHTML script", logo('<h:script xmlns:h="http://www.w3.org/1999/xhtml">alert(1)</h:script>')],
    ["a prefixed foreignObject", logo("<s:foreignObject><div/></s:foreignObject>", ' xmlns:s="http://www.w3.org/2000/svg"')],
    // The XLink namespace under any prefix is xlink:href.
    [
      "a use to another file through an XLink prefix other than xlink:",
      logo('<use xl:href="https://evil.example/x.svg#a"/>', ' xmlns:xl="http://www.w3.org/1999/xlink"'),
    ],
    // CSS loads through url() and @import in presentation attributes, style attributes and <style>.
    ["a fill paint from another file", logo('<rect width="10" height="10" fill="url(https://evil.example/p.svg#g)"/>')],
    ["a style attribute loading a URL", logo(`<rect width="10" height="10" style="fill: url('https://evil.example/p.svg#g')"/>`)],
    ["a style element importing a stylesheet", logo("<style>@import 'https://evil.example/x.css';</style>")],
    // A comment opener inside CDATA is text, not a comment: what follows it is markup.
    ["a script after a CDATA section holding <!--", logo("<desc><![CDATA[<!--]]></desc><script>alert(1)</script><desc>--></desc>")],
    // An internal DTD subset: entities expand into markup (and into billions of characters).
    ["an entity expanding to a script", `<!DOCTYPE svg [<!ENTITY x "&#60;script&#62;alert(1)&#60;/script&#62;">]>${logo("&x;")}`],
    ["an attribute default declared in the DTD", `<!DOCTYPE svg [<!ATTLIST svg onload CDATA "alert(1)">]>${logo("")}`],
    // The document element must be the svg: a tiny-ps svg nested in another root is not an SVG document.
    ["an XHTML document around the svg", `<html xmlns="http://www.w3.org/1999/xhtml"><body><iframe src="https://evil.example/"/>${logo("")}</body></html>`],
    ["a stylesheet processing instruction", `<?xml-stylesheet type="text/xsl" href="#t"?>${logo("")}`],
    // An <svg> root in the XHTML namespace (or in none) is not SVG: its <iframe> is an XHTML iframe.
    [
      "an svg root in the XHTML namespace",
      '<svg xmlns="http://www.w3.org/1999/xhtml" version="1.2" baseProfile="tiny-ps" viewBox="0 0 10 10"><title>Brand</title><iframe src="https://evil.example/"/></svg>',
    ],
    ["an svg root in no namespace", '<svg version="1.2" baseProfile="tiny-ps" viewBox="0 0 10 10"><title>Brand</title></svg>'],
    // Receivers decode by the declared encoding: in UTF-7 this text is a script element.
    ["a UTF-7 declaration", `<?xml version="1.0" encoding="UTF-7"?>${logo("+ADw-script+AD4-alert(1)+ADw-/script+AD4-")}`],
    // XML Base resolves even href="#c" against another document.
    ["xml:base", logo('<use href="#c" xml:base="https://evil.example/x.svg"/><circle id="c" r="1"/>')],
  ];

  it.each(hostile)("%s is a 422 and nothing is served", async (_name, svg) => {
    const team = await makeTeam();
    const d = await insertDomain(team.id);
    const res = await call(`${base(d.id)}/logo`, { method: "PUT", token: team.full, ...svgBody(svg) });
    expect(res.status).toBe(422);
    const body = await json<{ code: string; errors: { svg: string[] } }>(res);
    expect(body.code).toBe("validation_failed");
    expect(body.errors.svg.every((l) => l.includes("Fix:"))).toBe(true);
    expect((await call(`/bimi/${d.name}/default.svg`)).status).toBe(404);
  });

  it("the same tricks without their payload stay accepted: a prefixed root, a fragment fill, a CDATA title, an Illustrator prolog", async () => {
    const team = await makeTeam();
    const d = await insertDomain(team.id);
    for (const svg of [
      `<?xml version="1.0" encoding="UTF-8"?>\n<!-- Generator: Adobe Illustrator -->\n${logo('<defs><linearGradient id="g"/></defs><rect width="9" height="9" fill="url(#g)" style="fill: url( \'#g\' )"/>')}`,
      '<s:svg xmlns:s="http://www.w3.org/2000/svg" version="1.2" baseProfile="tiny-ps" viewBox="0 0 10 10"><s:title>Brand</s:title><s:use xmlns:xl="http://www.w3.org/1999/xlink" xl:href="#c"/><s:circle id="c" r="4"/></s:svg>',
      logo("<desc><![CDATA[a <script> in text is only text]]></desc>").replace("<title>Brand</title>", "<title><![CDATA[Brand & Co]]></title>"),
      paypalSvg,
    ]) {
      const res = await call(`${base(d.id)}/logo`, { method: "PUT", token: team.full, ...svgBody(svg) });
      expect(res.status, svg.slice(0, 80)).toBe(200);
    }
  });
});

describe("hosted BIMI: bytes and certificate blocks", () => {
  it("keeps a UTF-8 byte order mark: the served bytes and the SHA-256 are those of the file uploaded", async () => {
    const team = await makeTeam();
    const d = await insertDomain(team.id);
    const file = `\uFEFF${PLAIN_SVG}`;
    const bytes = new TextEncoder().encode(file);
    expect([...bytes.slice(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
    const put = await call(`${base(d.id)}/logo`, { method: "PUT", token: team.full, rawBody: bytes, headers: { "content-type": "image/svg+xml" } });
    expect(put.status).toBe(200);
    const digest = [...new Uint8Array(await crypto.subtle.digest("SHA-256", bytes))].map((b) => b.toString(16).padStart(2, "0")).join("");
    const view = (await json<{ data: { logo: { sha256: string; bytes: number } } }>(put)).data;
    expect(view.logo).toEqual(expect.objectContaining({ sha256: digest, bytes: bytes.length }));
    const served = await call(`/bimi/${d.name}/default.svg`);
    expect(new Uint8Array(await served.arrayBuffer())).toEqual(bytes);
    expect(served.headers.get("etag")).toBe(`"${digest}"`);
  });

  it("a CERTIFICATE block that is not base64 is a 422 and is never served; base64 that is no certificate is kept with its report", async () => {
    const team = await makeTeam();
    const d = await insertDomain(team.id);
    const html = "-----BEGIN CERTIFICATE-----\n<html><script>alert(1)</script></html>\n-----END CERTIFICATE-----\n";
    const bad = await call(`${base(d.id)}/certificate`, { method: "PUT", token: team.full, ...pemBody(html) });
    expect(bad.status).toBe(422);
    expect((await json<{ errors: { pem: string[] } }>(bad)).errors.pem[0]).toMatch(/base64/);
    expect((await call(`/bimi/${d.name}/default.pem`)).status).toBe(404);
    // RFC 7468 §3: base64 text, whatever it decodes to, is a block the validator judges and reports on.
    const junk = await call(`${base(d.id)}/certificate`, {
      method: "PUT",
      token: team.full,
      ...pemBody("-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n"),
    });
    expect(junk.status).toBe(200);
    const v = (await json<{ data: { validation: { certificate: { valid: boolean } } } }>(junk)).data;
    expect(v.validation.certificate.valid).toBe(false);
  });
});

describe("hosted BIMI: racing writes", () => {
  it("a delete that loses the race (the row went between its read and its batch) records nothing (D238)", async () => {
    const team = await makeTeam();
    const d = await insertDomain(team.id);
    expect((await call(`${base(d.id)}/logo`, { method: "PUT", token: team.full, ...svgBody(PLAIN_SVG) })).status).toBe(200);
    const svc = testServices();
    const batch = svc.db.batch.bind(svc.db);
    vi.spyOn(svc.db, "batch").mockImplementationOnce(async (statements) => {
      await env.DB.prepare("DELETE FROM hosted_bimi WHERE domain_id = ?").bind(d.id).run();
      return batch(statements);
    });
    await deleteBimiHosting(svc, teamContext(team.id), d.id, {});
    const entries = await env.DB.prepare("SELECT COUNT(*) AS n FROM audit_entries WHERE team_id = ? AND verb = 'bimi_hosting.delete'")
      .bind(team.id)
      .first<{ n: number }>();
    expect(entries?.n).toBe(0);
    // The delete that wins records itself.
    expect((await call(`${base(d.id)}/logo`, { method: "PUT", token: team.full, ...svgBody(PLAIN_SVG) })).status).toBe(200);
    expect((await call(base(d.id), { method: "DELETE", token: team.full })).status).toBe(204);
    const after = await env.DB.prepare("SELECT COUNT(*) AS n FROM audit_entries WHERE team_id = ? AND verb = 'bimi_hosting.delete'")
      .bind(team.id)
      .first<{ n: number }>();
    expect(after?.n).toBe(1);
  });

  it("a logo upload over a row a concurrent delete removed records nothing (D238)", async () => {
    const team = await makeTeam();
    const d = await insertDomain(team.id);
    expect((await call(`${base(d.id)}/logo`, { method: "PUT", token: team.full, ...svgBody(PLAIN_SVG) })).status).toBe(200);
    const svc = testServices();
    const batch = svc.db.batch.bind(svc.db);
    vi.spyOn(svc.db, "batch").mockImplementationOnce(async (statements) => {
      await env.DB.prepare("DELETE FROM hosted_bimi WHERE domain_id = ?").bind(d.id).run();
      return batch(statements);
    });
    await putLogo(svc, teamContext(team.id), d.id, { svg: paypalSvg, origin: null });
    const entries = await env.DB.prepare("SELECT COUNT(*) AS n FROM audit_entries WHERE team_id = ? AND verb = 'bimi_hosting.logo_upload'")
      .bind(team.id)
      .first<{ n: number }>();
    expect(entries?.n).toBe(1);
  });
});
