// Hosted BIMI over REST through the Worker's fetch export (issue 32 §2): a real VMC (PayPal, DigiCert) and
// CMC (Xometry) with the logos their certificates carry, the size and profile refusals, scopes and tenancy,
// one team per name, a certificate fetched from a URL under the outbound address rules, and delete.
import { env } from "cloudflare:workers";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { call, json, makeTeam } from "../../support/api";
import { insertDomain, installReceiver } from "../../support/webhooks";
import { BAD_SVG, callSite, clearHosted, PAYPAL_SVG_SHA256, PLAIN_SVG, paypalPem, paypalSvg, pinClock, SITE, xometryPem, xometrySvg } from "./support";

type View = {
  hosted: boolean;
  published: { status: string; record: string | null } | null;
  logo: { url: string | null; sha256: string; bytes: number } | null;
  certificate: { url: string | null; source_url: string | null; kind: string | null; not_after: string | null } | null;
  record: { host: string; value: string } | null;
  validation: {
    logo: { findings: { rule: string }[] } | null;
    certificate: { kind: string | null; valid: boolean; logo_matches: boolean | null; checks: { id: string; ok: boolean | null; fix: string | null }[] } | null;
  } | null;
  gmail: { verdict: string; summary: string; requirements: { id: string; state: string; fix: string | null }[] };
};

const base = (id: number) => `/api/v1/domains/${id}/bimi-hosting`;
const svgBody = (svg: string) => ({ rawBody: svg, headers: { "content-type": "image/svg+xml" } });
const pemBody = (pem: string) => ({ rawBody: pem, headers: { "content-type": "application/pem-certificate-chain" } });
const stateOf = (v: View, id: string) => v.gmail.requirements.find((r) => r.id === id)?.state;

let r: ReturnType<typeof installReceiver>;
beforeEach(() => {
  pinClock();
  r = installReceiver({ "certs.example.com": { A: ["93.184.216.34"] }, "internal.example.com": { A: ["10.0.0.7"] } });
});
afterEach(async () => {
  r.stub.restore();
  await clearHosted();
});

describe("hosted BIMI: a real VMC and its logo", () => {
  it("stores the logo with its SHA-256, validates PayPal's VMC against it, and says what Gmail still needs", async () => {
    const team = await makeTeam();
    const d = await insertDomain(team.id, { name: "paypal.com" });
    const logo = await call(`${base(d.id)}/logo`, { method: "PUT", token: team.full, ...svgBody(paypalSvg) });
    expect(logo.status).toBe(200);
    const afterLogo = (await json<{ data: View }>(logo)).data;
    expect(afterLogo.logo).toMatchObject({ sha256: PAYPAL_SVG_SHA256, bytes: 1098 });
    expect(afterLogo.certificate).toBeNull();
    expect(stateOf(afterLogo, "mark_certificate")).toBe("not_met");

    const cert = await call(`${base(d.id)}/certificate`, { method: "PUT", token: team.full, ...pemBody(paypalPem) });
    expect(cert.status).toBe(200);
    const v = (await json<{ data: View }>(cert)).data;
    expect(v.certificate).toMatchObject({ kind: "VMC", not_after: "2025-09-08T23:59:59.000Z", source_url: null });
    expect(v.validation?.certificate).toMatchObject({ kind: "VMC", valid: true, logo_matches: true });
    expect(v.validation?.certificate?.checks.every((c) => c.ok !== false)).toBe(true);
    expect(stateOf(v, "mark_certificate")).toBe("met");
    expect(stateOf(v, "logo_matches_certificate")).toBe("met");
    expect(stateOf(v, "certificate_dates")).toBe("met");
    // Never checked: the DMARC facts and the published record are unknown, never assumed.
    expect(stateOf(v, "dmarc_enforcement")).toBe("cannot_tell");
    expect(v.gmail.verdict).toBe("cannot_tell");

    const read = await call(base(d.id), { token: team.readOnly });
    expect(read.status).toBe(200);
    expect((await json<{ data: View }>(read)).data.validation?.certificate?.valid).toBe(true);

    const audit = await env.DB.prepare("SELECT verb, summary FROM audit_entries WHERE team_id = ? AND verb LIKE 'bimi_hosting.%' ORDER BY seq")
      .bind(team.id)
      .all<{ verb: string; summary: string }>();
    expect(audit.results.map((a) => a.verb)).toEqual(["bimi_hosting.logo_upload", "bimi_hosting.certificate_upload"]);
  });

  it("gives the TXT record with the public URLs under SITE_URL, a= only once a certificate is hosted", async () => {
    const team = await makeTeam();
    const d = await insertDomain(team.id, { name: "xometry.com" });
    const logo = await callSite(`${base(d.id)}/logo`, { method: "PUT", token: team.full, body: xometrySvg, headers: { "content-type": "image/svg+xml" } });
    const v1 = (await json<{ data: View }>(logo)).data;
    expect(v1.record).toEqual({ host: "default._bimi.xometry.com", type: "TXT", value: `v=BIMI1; l=${SITE}/bimi/xometry.com/default.svg;` });
    const cert = await callSite(`${base(d.id)}/certificate`, {
      method: "PUT",
      token: team.full,
      body: xometryPem,
      headers: { "content-type": "application/x-pem-file" },
    });
    expect(cert.status, await cert.clone().text()).toBe(200);
    const v2 = (await json<{ data: View }>(cert)).data;
    expect(v2.certificate?.kind).toBe("CMC");
    expect(v2.validation?.certificate?.logo_matches).toBe(true);
    expect(v2.record?.value).toBe(`v=BIMI1; l=${SITE}/bimi/xometry.com/default.svg; a=${SITE}/bimi/xometry.com/default.pem`);
    expect(v2.certificate?.url).toBe(`${SITE}/bimi/xometry.com/default.pem`);
    // Not published yet: DNS answers NXDOMAIN now, so that row is not met.
    expect(v2.published).toMatchObject({ status: "missing", record: null });
    expect(stateOf(v2, "record_published")).toBe("not_met");

    // Once the record is in DNS, the next read sees it (a live lookup, not the last check).
    r.stub.restore();
    r = installReceiver({ "default._bimi.xometry.com": { TXT: [v2.record?.value ?? ""] } });
    const live = (await json<{ data: View & { published: { status: string } } }>(await callSite(base(d.id), { token: team.readOnly }))).data;
    expect(live.published.status).toBe("present");
    expect(stateOf(live, "record_published")).toBe("met");
    // A record that points l= elsewhere is not met, with the fix.
    r.stub.restore();
    r = installReceiver({ "default._bimi.xometry.com": { TXT: ["v=BIMI1; l=https://cdn.example/logo.svg; a="] } });
    const other = (await json<{ data: View }>(await callSite(base(d.id), { token: team.full }))).data;
    expect(other.gmail.requirements.find((x) => x.id === "record_published")).toMatchObject({
      state: "not_met",
      fix: expect.stringMatching(/default\._bimi\.xometry\.com/),
    });
  });

  it("a subdomain with no record of its own: the Organizational Domain's record is read, as receivers fall back to it", async () => {
    const team = await makeTeam();
    const d = await insertDomain(team.id, { name: "news.brand-org.example" });
    await call(`${base(d.id)}/logo`, { method: "PUT", token: team.full, ...svgBody(PLAIN_SVG) });
    r.stub.restore();
    r = installReceiver({
      "_dmarc.brand-org.example": { TXT: ["v=DMARC1; p=reject"] },
      "default._bimi.brand-org.example": { TXT: ["v=BIMI1; l=https://cdn.example/org.svg; a="] },
    });
    const v = (await json<{ data: View & { published: { host: string; from_org_domain: boolean } } }>(await callSite(base(d.id), { token: team.readOnly })))
      .data;
    expect(v.published).toMatchObject({ status: "present", host: "default._bimi.brand-org.example", from_org_domain: true });
    expect(v.gmail.requirements.find((x) => x.id === "record_published")).toMatchObject({
      state: "not_met",
      fix: expect.stringMatching(/default\._bimi\.news\.brand-org\.example/),
    });
    // Once the subdomain publishes its own record, that one is read.
    r.stub.restore();
    r = installReceiver({
      "_dmarc.brand-org.example": { TXT: ["v=DMARC1; p=reject"] },
      "default._bimi.brand-org.example": { TXT: ["v=BIMI1; l=https://cdn.example/org.svg; a="] },
      "default._bimi.news.brand-org.example": { TXT: [v.record?.value ?? ""] },
    });
    const own = (await json<{ data: View & { published: { host: string; from_org_domain: boolean } } }>(await callSite(base(d.id), { token: team.readOnly })))
      .data;
    expect(own.published).toMatchObject({ status: "present", host: "default._bimi.news.brand-org.example", from_org_domain: false });
    expect(stateOf(own, "record_published")).toBe("met");
  });

  it("reports a logo that is not the one in the certificate, and raises the hosting alert", async () => {
    const team = await makeTeam();
    const d = await insertDomain(team.id, { name: "paypal.com" });
    await call(`${base(d.id)}/logo`, { method: "PUT", token: team.full, ...svgBody(PLAIN_SVG) });
    const res = await call(`${base(d.id)}/certificate`, { method: "PUT", token: team.full, body: { pem: paypalPem } });
    const v = (await json<{ data: View }>(res)).data;
    expect(v.validation?.certificate).toMatchObject({ valid: false, logo_matches: false });
    const row = v.gmail.requirements.find((x) => x.id === "logo_matches_certificate");
    expect(row?.state).toBe("not_met");
    expect(row?.fix).toMatch(/exactly the SVG/);
    expect(v.gmail.verdict).toBe("does_not_show");
    const alerts = await env.DB.prepare("SELECT kind, subject FROM alerts WHERE domain_id = ? AND resolved_at IS NULL").bind(d.id).all();
    expect(alerts.results).toEqual([{ kind: "hosting", subject: "bimi.mark:default" }]);

    // The right logo fixes it: the alert resolves in the same batch.
    await call(`${base(d.id)}/logo`, { method: "PUT", token: team.full, ...svgBody(paypalSvg) });
    const open = await env.DB.prepare("SELECT COUNT(*) AS n FROM alerts WHERE domain_id = ? AND resolved_at IS NULL").bind(d.id).first<{ n: number }>();
    expect(open?.n).toBe(0);
  });

  it("fetches the certificate from an https URL on a public address, and refuses a private one", async () => {
    const team = await makeTeam();
    const d = await insertDomain(team.id, { name: "paypal.com" });
    r.respond(() => new Response(paypalPem, { headers: { "content-type": "application/pem-certificate-chain" } }));
    const ok = await call(`${base(d.id)}/certificate`, { method: "PUT", token: team.full, body: { url: "https://certs.example.com/paypal.pem" } });
    expect(ok.status).toBe(200);
    expect((await json<{ data: View }>(ok)).data.certificate).toMatchObject({ kind: "VMC", source_url: "https://certs.example.com/paypal.pem" });
    expect(r.received.map((x) => x.url)).toEqual(["https://certs.example.com/paypal.pem"]);

    const priv = await call(`${base(d.id)}/certificate`, { method: "PUT", token: team.full, body: { url: "https://internal.example.com/vmc.pem" } });
    expect(priv.status).toBe(422);
    expect(((await json(priv)) as { errors: { url: string[] } }).errors.url[0]).toMatch(/10\.0\.0\.7.*not a public address/);
    const http = await call(`${base(d.id)}/certificate`, { method: "PUT", token: team.full, body: { url: "http://certs.example.com/vmc.pem" } });
    expect(http.status).toBe(422);
    expect(r.received).toHaveLength(1);
  });
});

describe("hosted BIMI: refusals", () => {
  it("refuses a logo over 32 KB with 413 and one that breaks SVG Tiny PS with 422, listing every problem and its fix", async () => {
    const team = await makeTeam();
    const d = await insertDomain(team.id);
    const big = PLAIN_SVG.replace("</svg>", `<desc>${"x".repeat(33 * 1024)}</desc></svg>`);
    const tooBig = await call(`${base(d.id)}/logo`, { method: "PUT", token: team.full, ...svgBody(big) });
    expect(tooBig.status).toBe(413);
    expect((await json(tooBig)).code).toBe("payload_too_large");
    const asJson = await call(`${base(d.id)}/logo`, { method: "PUT", token: team.full, body: { svg: big } });
    expect(asJson.status).toBe(413);

    const bad = await call(`${base(d.id)}/logo`, { method: "PUT", token: team.full, ...svgBody(BAD_SVG) });
    expect(bad.status).toBe(422);
    const body = await json<{ code: string; message: string; errors: { svg: string[] } }>(bad);
    expect(body.code).toBe("validation_failed");
    const lines = body.errors.svg.join("\n");
    expect(lines).toMatch(/tiny-ps/);
    expect(lines).toMatch(/script/i);
    expect(lines).toMatch(/external/i);
    expect(lines).toMatch(/Fix: Add version="1.2" baseProfile="tiny-ps"/);
    const state = await call(base(d.id), { token: team.full });
    expect((await json<{ data: View }>(state)).data.hosted).toBe(false);
  });

  it("refuses a private key in the bundle, text that holds no certificate, and neither pem nor url", async () => {
    const team = await makeTeam();
    const d = await insertDomain(team.id);
    const key = `${paypalPem}\n-----BEGIN PRIVATE KEY-----\nMIIB\n-----END PRIVATE KEY-----\n`;
    const withKey = await call(`${base(d.id)}/certificate`, { method: "PUT", token: team.full, ...pemBody(key) });
    expect(withKey.status).toBe(422);
    expect(((await json(withKey)) as { errors: { pem: string[] } }).errors.pem[0]).toMatch(/private key/);
    const noCert = await call(`${base(d.id)}/certificate`, { method: "PUT", token: team.full, body: { pem: "hello" } });
    expect(noCert.status).toBe(422);
    const none = await call(`${base(d.id)}/certificate`, { method: "PUT", token: team.full, body: {} });
    expect(none.status).toBe(422);
    const selector = await call(`${base(d.id)}/logo?selector=Bad_Selector`, { method: "PUT", token: team.full, ...svgBody(PLAIN_SVG) });
    expect(selector.status).toBe(422);
  });

  it("401 without a token, 403 for a read-only token, 404 for another team's domain, 409 before verification", async () => {
    const team = await makeTeam();
    const other = await makeTeam();
    const d = await insertDomain(team.id);
    expect((await call(base(d.id))).status).toBe(401);
    const ro = await call(`${base(d.id)}/logo`, { method: "PUT", token: team.readOnly, ...svgBody(PLAIN_SVG) });
    expect(ro.status).toBe(403);
    expect((await call(base(d.id), { method: "DELETE", token: team.readOnly })).status).toBe(403);
    expect((await call(base(d.id), { token: other.full })).status).toBe(404);
    expect((await call(`${base(d.id)}/logo`, { method: "PUT", token: other.full, ...svgBody(PLAIN_SVG) })).status).toBe(404);
    const unverified = await insertDomain(team.id, { verified: false });
    const res = await call(`${base(unverified.id)}/logo`, { method: "PUT", token: team.full, ...svgBody(PLAIN_SVG) });
    expect(res.status).toBe(409);
    expect((await json(res)).code).toBe("domain_not_verified");
  });

  it("one team hosts a name and selector: a second team's upload for the same name is a 409", async () => {
    const a = await makeTeam();
    const b = await makeTeam();
    const da = await insertDomain(a.id, { name: "brand-409.example" });
    const db = await insertDomain(b.id, { name: "brand-409.example" });
    expect((await call(`${base(da.id)}/logo`, { method: "PUT", token: a.full, ...svgBody(PLAIN_SVG) })).status).toBe(200);
    const taken = await call(`${base(db.id)}/logo`, { method: "PUT", token: b.full, ...svgBody(PLAIN_SVG) });
    expect(taken.status).toBe(409);
    expect((await json(taken)).message).toMatch(/Another team already hosts/);
    // Another selector of the same name is free.
    expect((await call(`${base(db.id)}/logo?selector=brand2`, { method: "PUT", token: b.full, ...svgBody(PLAIN_SVG) })).status).toBe(200);
  });
});

describe("DELETE /domains/{domain}/bimi-hosting", () => {
  it("stops serving the files, resolves the certificate alerts and writes the audit entry; a second delete is a 404", async () => {
    const team = await makeTeam();
    const d = await insertDomain(team.id, { name: "paypal.com" });
    await call(`${base(d.id)}/logo`, { method: "PUT", token: team.full, ...svgBody(PLAIN_SVG) });
    await call(`${base(d.id)}/certificate`, { method: "PUT", token: team.full, ...pemBody(paypalPem) });
    expect((await call("/bimi/paypal.com/default.svg")).status).toBe(200);
    const del = await call(base(d.id), { method: "DELETE", token: team.full });
    expect(del.status).toBe(204);
    expect((await call("/bimi/paypal.com/default.svg")).status).toBe(404);
    expect((await call("/bimi/paypal.com/default.pem")).status).toBe(404);
    const open = await env.DB.prepare("SELECT COUNT(*) AS n FROM alerts WHERE domain_id = ? AND resolved_at IS NULL").bind(d.id).first<{ n: number }>();
    expect(open?.n).toBe(0);
    const verbs = await env.DB.prepare("SELECT verb FROM audit_entries WHERE team_id = ? ORDER BY seq").bind(team.id).all<{ verb: string }>();
    expect(verbs.results.at(-1)?.verb).toBe("bimi_hosting.delete");
    expect((await call(base(d.id), { method: "DELETE", token: team.full })).status).toBe(404);
  });
});
