// RFC 5280 §4.2.1.9 pathLenConstraint inside workerd, on chains made with openssl (test/fixtures/bimi-marks/README.md):
// `openssl verify` refuses "pathlen-vmc.pem" ("path length constraint exceeded") and accepts "pathlen-ok-vmc.pem".
import { describe, expect, it } from "vitest";
import root from "../../../../test/fixtures/bimi-marks/generated/pathlen-root.pem?raw";
import ok from "../../../../test/fixtures/bimi-marks/generated/pathlen-ok-vmc.pem?raw";
import tooLong from "../../../../test/fixtures/bimi-marks/generated/pathlen-vmc.pem?raw";
import { validateMarkCertificate } from ".";

const opts = { domain: "brand.example", selector: "default", now: new Date("2030-01-01T00:00:00Z"), roots: [root] };
const failed = (r: { checks: { id: string; ok: boolean | null }[] }) => r.checks.filter((c) => c.ok !== true).map((c) => c.id);

describe("path length constraints", () => {
  it("an intermediate with pathlen 0 may issue the mark certificate itself", async () => {
    const r = await validateMarkCertificate(ok, opts);
    expect(r.checks.find((c) => c.id === "chain")).toMatchObject({ ok: true });
    expect(failed(r)).not.toContain("chain");
  });
  it("but not a further CA: the chain through it is broken, and the message says why", async () => {
    const r = await validateMarkCertificate(tooLong, opts);
    const chain = r.checks.find((c) => c.id === "chain");
    expect(chain).toMatchObject({ ok: false });
    expect(chain?.message).toMatch(/allows 0 intermediate certificate\(s\) below it but the chain has 1/);
    expect(r.valid).toBe(false);
  });
});
