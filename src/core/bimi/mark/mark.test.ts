// validateMarkCertificate inside workerd (the Workers pool): WebCrypto RSA and ECDSA verification, gzip and
// hashing as the deployed Worker runs them, on real certificates (test/fixtures/bimi-marks/README.md) and a
// generated ECDSA chain. The comparison with independent implementations is test/node/bimi-marks.test.ts.
import { describe, expect, it } from "vitest";
import ecdsaLogo from "../../../../test/fixtures/bimi-marks/generated/ecdsa-logo.svg?raw";
import ecdsaRoot from "../../../../test/fixtures/bimi-marks/generated/ecdsa-root.pem?raw";
import ecdsaVmc from "../../../../test/fixtures/bimi-marks/generated/ecdsa-vmc.pem?raw";
import paypalLogo from "../../../../test/fixtures/bimi-marks/paypal-logo.svg?raw";
import paypal from "../../../../test/fixtures/bimi-marks/paypal_vmc.pem?raw";
import xometry from "../../../../test/fixtures/bimi-marks/xometry_cmc.pem?raw";
import { validateMarkCertificate } from ".";

const PAYPAL_NOW = new Date("2024-11-05T06:50:13Z");
const failed = (r: { checks: { id: string; ok: boolean | null }[] }) => r.checks.filter((c) => c.ok !== true).map((c) => c.id);

/** The PEM with one byte of certificate `index`'s signature changed (its last byte). */
function forge(pem: string, index = 0): string {
  const blocks = pem.match(/-----BEGIN CERTIFICATE-----[\s\S]*?-----END CERTIFICATE-----/g) ?? [];
  const b64 = (blocks[index] ?? "").replace(/-----(BEGIN|END) CERTIFICATE-----|\s/g, "");
  const der = Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));
  der[der.length - 1] = (der[der.length - 1] ?? 0) ^ 1;
  blocks[index] = `-----BEGIN CERTIFICATE-----\n${btoa(String.fromCharCode(...der)).replace(/.{64}/g, "$&\n")}\n-----END CERTIFICATE-----`;
  return `${blocks.join("\n")}\n`;
}

describe("validateMarkCertificate in workerd", () => {
  it("accepts PayPal's VMC (DigiCert RSA chain) with its own logo published", async () => {
    const r = await validateMarkCertificate(paypal, { domain: "paypal.com", selector: "default", now: PAYPAL_NOW, logoSvg: paypalLogo });
    expect(failed(r)).toEqual([]);
    expect(r).toMatchObject({ kind: "VMC", valid: true, sans: ["paypal.com"], subject: { organization: "PayPal, Inc.", markType: "Registered Mark" } });
    expect(r.issuer).toContain("DigiCert Verified Mark");
    expect(r.embeddedSvg).toBe(paypalLogo);
    expect(r.embeddedSvgSha256).toMatch(/^[0-9a-f]{64}$/);
    expect(r.checks.map((c) => c.id)).toEqual([
      "parse",
      "not-self-signed",
      "chain",
      "trusted-root",
      "validity",
      "eku",
      "san",
      "mark-type",
      "subject-fields",
      "extensions",
      "logotype",
      "logo-hash",
      "embedded-svg",
      "logo-match",
    ]);
  });
  it("tells Xometry's CMC (Prior Use Mark) from a VMC", async () => {
    const r = await validateMarkCertificate(xometry, { domain: "xometry.com", selector: "default", now: new Date("2025-01-15T00:00:00Z") });
    expect(r).toMatchObject({ kind: "CMC", valid: true });
    // Issued in 2024 with the (critical) Pilot identifier, which the MC Requirements allow before 2025-03-15.
    expect(failed(r)).toEqual([]);
  });
  it("verifies an ECDSA chain (P-256 leaf, P-384 root) under a given root, and refuses it under the BIMI roots", async () => {
    const now = new Date("2030-01-01T00:00:00Z");
    const r = await validateMarkCertificate(ecdsaVmc, { domain: "brand.example", selector: "default", now, roots: [ecdsaRoot], logoSvg: ecdsaLogo });
    // The test certificate's subject has only C, O, CN and the mark fields: informational (the CA's to fix), still valid.
    expect(failed(r)).toEqual(["subject-fields"]);
    expect(r.valid).toBe(true);
    expect(r.checks.find((c) => c.id === "subject-fields")?.message).toMatch(/missing streetAddress, businessCategory, serialNumber, jurisdictionCountryName/);
    const bimiRoots = await validateMarkCertificate(ecdsaVmc, { domain: "brand.example", selector: "default", now });
    expect(failed(bimiRoots), "the root is neither in the file nor a BIMI root").toEqual(["chain", "trusted-root", "subject-fields"]);
  });
  it("refuses a forged signature (RSA and ECDSA)", async () => {
    const rsa = await validateMarkCertificate(forge(paypal), { domain: "paypal.com", selector: "default", now: PAYPAL_NOW });
    expect(failed(rsa)).toEqual(["chain"]);
    const ec = await validateMarkCertificate(forge(ecdsaVmc), {
      domain: "brand.example",
      selector: "default",
      now: new Date("2030-01-01"),
      roots: [ecdsaRoot],
    });
    expect(failed(ec)).toEqual(["chain", "subject-fields"]);
  });
  it("refuses an intermediate that names a BIMI root as issuer but was not signed by it", async () => {
    // PayPal's bundle is leaf, intermediate, root: keep leaf and a forged intermediate, so the root must come from the store.
    const blocks = forge(paypal, 1).match(/-----BEGIN CERTIFICATE-----[\s\S]*?-----END CERTIFICATE-----/g) ?? [];
    const r = await validateMarkCertificate(`${blocks.slice(0, 2).join("\n")}\n`, { domain: "paypal.com", selector: "default", now: PAYPAL_NOW });
    expect(failed(r)).toEqual(["chain", "trusted-root"]);
    expect(r.checks.find((c) => c.id === "chain")?.message).toMatch(/names the BIMI root "digicert.pem" as its issuer/);
  });
  it("a logo that differs only in whitespace is still a mismatch, and says so", async () => {
    const r = await validateMarkCertificate(paypal, { domain: "paypal.com", selector: "default", now: PAYPAL_NOW, logoSvg: paypalLogo.replace(/\n/g, "\r\n") });
    const match = r.checks.find((c) => c.id === "logo-match");
    expect(match).toMatchObject({ ok: false });
    expect(match?.message).toMatch(/whitespace/);
    expect(match?.fix).toMatch(/SVG file embedded in your certificate/);
  });
  it("the selector name in the SAN: the right selector, a parent domain, another selector", async () => {
    const base = { now: PAYPAL_NOW };
    const san = async (domain: string, selector: string) =>
      (await validateMarkCertificate(paypal, { ...base, domain, selector })).checks.find((c) => c.id === "san")?.ok;
    expect(await san("paypal.com", "brand")).toBe(true);
    expect(await san("email.paypal.com", "default")).toBe(true);
    expect(await san("paypal.co", "default")).toBe(false);
  });
  it("not a PEM, or a PEM that is not X.509: one failed parse check with its fix", async () => {
    for (const pem of ["hello", "-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n"]) {
      const r = await validateMarkCertificate(pem, { domain: "x.example", selector: "default", now: PAYPAL_NOW });
      expect(r.valid).toBe(false);
      expect(r.checks).toHaveLength(1);
      expect(r.checks[0]).toMatchObject({ id: "parse", ok: false });
      expect(r.checks[0]?.fix).toBeTruthy();
    }
  });
});
