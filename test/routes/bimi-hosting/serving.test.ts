// The public files behind l= and a= through the Worker's fetch export: no credentials, the stored bytes,
// the BIMI draft's content types, a strong ETag with 304, the cache policy, nosniff and a CSP that lets
// the SVG run nothing; 404 for anything not hosted, whatever the path looks like.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { call, makeTeam } from "../../support/api";
import { insertDomain } from "../../support/webhooks";
import { clearHosted, PAYPAL_SVG_SHA256, paypalPem, paypalSvg, pinClock } from "./support";

beforeEach(() => pinClock());
afterEach(clearHosted);

async function hostPaypal() {
  const team = await makeTeam();
  const d = await insertDomain(team.id, { name: "paypal.com" });
  const put = (path: string, body: string, type: string) =>
    call(`/api/v1/domains/${d.id}/bimi-hosting/${path}`, { method: "PUT", token: team.full, rawBody: body, headers: { "content-type": type } });
  expect((await put("logo", paypalSvg, "image/svg+xml")).status).toBe(200);
  expect((await put("certificate", paypalPem, "application/pem-certificate-chain")).status).toBe(200);
  return { team, d };
}

describe("GET /bimi/<domain>/<selector>.svg and .pem", () => {
  it("serves the logo's exact bytes without credentials, with the headers receivers and browsers need", async () => {
    await hostPaypal();
    const res = await call("/bimi/paypal.com/default.svg");
    expect(res.status).toBe(200);
    const bytes = new Uint8Array(await res.arrayBuffer());
    expect(bytes).toEqual(new TextEncoder().encode(paypalSvg));
    expect(res.headers.get("content-type")).toBe("image/svg+xml; charset=utf-8");
    expect(res.headers.get("etag")).toBe(`"${PAYPAL_SVG_SHA256}"`);
    expect(res.headers.get("cache-control")).toBe("public, max-age=3600, must-revalidate");
    expect(res.headers.get("x-content-type-options")).toBe("nosniff");
    const csp = res.headers.get("content-security-policy") ?? "";
    expect(csp).toContain("default-src 'none'");
    expect(csp).not.toMatch(/script-src/);
    expect(csp).toContain("sandbox");
    // The site-wide headers still apply (D149).
    expect(res.headers.get("x-frame-options")).toBe("DENY");
    expect(res.headers.get("strict-transport-security")).toMatch(/max-age=31536000/);
  });

  it("answers 304 to a matching If-None-Match and HEAD without a body, and serves the name case-insensitively", async () => {
    await hostPaypal();
    const again = await call("/bimi/PayPal.com/DEFAULT.svg", { headers: { "if-none-match": `"${PAYPAL_SVG_SHA256}"` } });
    expect(again.status).toBe(304);
    expect(await again.text()).toBe("");
    const other = await call("/bimi/paypal.com/default.svg", { headers: { "if-none-match": '"0000"' } });
    expect(other.status).toBe(200);
    // HEAD (receivers and caches probe with it): the GET's headers, no body.
    const head = await call("/bimi/paypal.com/default.svg", { method: "HEAD" });
    expect(head.status).toBe(200);
    expect(head.headers.get("etag")).toBe(`"${PAYPAL_SVG_SHA256}"`);
    expect(await head.text()).toBe("");
  });

  it("serves the certificate bundle as application/pem-certificate-chain, certificates only, leaf first", async () => {
    await hostPaypal();
    const res = await call("/bimi/paypal.com/default.pem");
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("application/pem-certificate-chain");
    const text = await res.text();
    const blocks = text.match(/-----BEGIN CERTIFICATE-----/g) ?? [];
    expect(blocks).toHaveLength(3);
    const leafBody = (s: string) => s.split("-----END CERTIFICATE-----")[0]?.replace(/\s+/g, "");
    expect(leafBody(text)).toBe(leafBody(paypalPem));
    expect(res.headers.get("etag")).toMatch(/^"[0-9a-f]{64}"$/);
  });

  it("404 for a name, selector or extension that is not hosted, and for a logo-only row's certificate", async () => {
    const team = await makeTeam();
    const d = await insertDomain(team.id, { name: "logo-only.example" });
    await call(`/api/v1/domains/${d.id}/bimi-hosting/logo`, {
      method: "PUT",
      token: team.full,
      rawBody: paypalSvg,
      headers: { "content-type": "image/svg+xml" },
    });
    expect((await call("/bimi/logo-only.example/default.svg")).status).toBe(200);
    for (const path of [
      "/bimi/logo-only.example/default.pem",
      "/bimi/logo-only.example/other.svg",
      "/bimi/nothing.example/default.svg",
      "/bimi/logo-only.example/default.png",
      "/bimi/logo-only.example/..svg",
    ]) {
      expect((await call(path)).status, path).toBe(404);
    }
  });
});
