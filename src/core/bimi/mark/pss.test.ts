// RSASSA-PSS certificate signatures inside workerd: a chain made with openssl (test/fixtures/bimi-marks/README.md,
// "pss-vmc.pem"; `openssl verify` accepts it), and the parameter encodings of RFC 4055 §3.1.
import { describe, expect, it } from "vitest";
import ecdsaLogo from "../../../../test/fixtures/bimi-marks/generated/ecdsa-logo.svg?raw";
import pssRoot from "../../../../test/fixtures/bimi-marks/generated/pss-root.pem?raw";
import pssVmc from "../../../../test/fixtures/bimi-marks/generated/pss-vmc.pem?raw";
import { validateMarkCertificate } from ".";
import { pssParams } from "./pss";

const NOW = new Date("2030-01-01T00:00:00Z");
/** The checks that involve signatures; the generated subject carries only the attributes these tests need. */
const SIGNED = ["not-self-signed", "chain", "trusted-root"];
const failed = (r: { checks: { id: string; ok: boolean | null }[] }) => r.checks.filter((c) => SIGNED.includes(c.id) && c.ok !== true).map((c) => c.id);
const der = (hex: string) => Uint8Array.from(hex.match(/../g) ?? [], (h) => Number.parseInt(h, 16)).buffer;

/** The PEM with the last byte of the first certificate's signature flipped. */
function forge(pem: string): string {
  const b64 = (pem.match(/-----BEGIN CERTIFICATE-----([\s\S]*?)-----END CERTIFICATE-----/)?.[1] ?? "").replace(/\s/g, "");
  const bytes = Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));
  bytes[bytes.length - 1] = (bytes[bytes.length - 1] ?? 0) ^ 1;
  return `-----BEGIN CERTIFICATE-----\n${btoa(String.fromCharCode(...bytes))}\n-----END CERTIFICATE-----\n`;
}

describe("RSASSA-PSS mark certificates", () => {
  it("verifies a leaf signed with RSASSA-PSS (SHA-384, salt 48) by a root whose key is labelled id-RSASSA-PSS", async () => {
    const r = await validateMarkCertificate(pssVmc, { domain: "brand.example", selector: "default", now: NOW, roots: [pssRoot], logoSvg: ecdsaLogo });
    expect(failed(r)).toEqual([]);
    expect(r.checks.find((c) => c.id === "chain")?.message).toMatch(/every signature checked/);
    expect(r.checks.find((c) => c.id === "logo-match")).toMatchObject({ ok: true });
  });
  it("refuses the same leaf with one bit of its signature changed", async () => {
    const r = await validateMarkCertificate(forge(pssVmc), { domain: "brand.example", selector: "default", now: NOW, roots: [pssRoot] });
    // The leaf names the root directly, so no path is left to a trusted root either.
    expect(failed(r)).toEqual(["chain", "trusted-root"]);
    expect(r.checks.find((c) => c.id === "chain")?.message).toMatch(/signature does not verify/);
  });
});

describe("pssParams (RFC 4055 §3.1)", () => {
  it("an empty SEQUENCE is every default: SHA-1, MGF1 with SHA-1, salt 20", () => {
    expect(pssParams(der("3000"))).toEqual({ ok: true, hash: "SHA-1", saltLength: 20 });
  });
  it("reads RFC 4055's SHA-256 parameters with a 32-byte salt", () => {
    // hashAlgorithm [0] sha256, maskGenAlgorithm [1] mgf1(sha256), saltLength [2] 32 (RFC 4055 §3.1 / §5's rSASSA-PSS-SHA256-Params).
    const sha256 = "300d06096086480165030402010500";
    const mgf = `301a06092a864886f70d010108${sha256}`;
    const hex = `3034a00f${sha256}a11c${mgf}a203020120`;
    expect(pssParams(der(hex))).toEqual({ ok: true, hash: "SHA-256", saltLength: 32 });
  });
  it("MGF1 over another hash is well-formed but beyond WebCrypto (cannot tell), a trailer other than 1 is malformed", () => {
    const sha256 = "300d06096086480165030402010500";
    const mgfSha1 = "301606092a864886f70d010108300906052b0e03021a0500";
    expect(pssParams(der(`3030a00f${sha256}a118${mgfSha1}a203020120`))).toMatchObject({ ok: null });
    expect(pssParams(der("3005a303020102"))).toMatchObject({ ok: false });
    expect(pssParams(der("05"))).toMatchObject({ ok: false });
    expect(pssParams(null)).toMatchObject({ ok: false });
  });
});
