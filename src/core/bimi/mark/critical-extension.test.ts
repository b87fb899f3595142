// RFC 5280 §4.2 inside workerd: a certificate with a critical extension the validator does not recognise is
// refused. The fixture is made with openssl (test/fixtures/bimi-marks/README.md), whose own `openssl verify`
// refuses it ("unhandled critical extension"); the same leaf without that extension is pathlen-ok-vmc.pem.
import { describe, expect, it } from "vitest";
import critical from "../../../../test/fixtures/bimi-marks/generated/critical-ext-vmc.pem?raw";
import root from "../../../../test/fixtures/bimi-marks/generated/pathlen-root.pem?raw";
import ok from "../../../../test/fixtures/bimi-marks/generated/pathlen-ok-vmc.pem?raw";
import { validateMarkCertificate } from ".";

const opts = { domain: "brand.example", selector: "default", now: new Date("2030-01-01T00:00:00Z"), roots: [root] };

describe("critical extensions", () => {
  it("an unrecognised critical extension refuses the certificate, naming the extension", async () => {
    const r = await validateMarkCertificate(critical, opts);
    const ext = r.checks.find((c) => c.id === "extensions");
    expect(ext).toMatchObject({ ok: false });
    expect(ext?.message).toMatch(/critical extension this check does not recognise \(1\.3\.6\.1\.4\.1\.99999\.7\)/);
    expect(r.valid).toBe(false);
    expect(r.checks.find((c) => c.id === "chain")).toMatchObject({ ok: true });
  });
  it("the critical extensions a mark certificate carries (key usage) are recognised", async () => {
    const r = await validateMarkCertificate(ok, opts);
    expect(r.checks.find((c) => c.id === "extensions")).toMatchObject({ ok: true });
  });
});
