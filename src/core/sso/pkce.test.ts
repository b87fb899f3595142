import { describe, expect, it } from "vitest";
import { s256Challenge } from "./pkce";

describe("PKCE S256 (RFC 7636)", () => {
  it("matches the RFC's Appendix B example", async () => {
    expect(await s256Challenge("dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk")).toBe("E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM");
  });

  it("refuses a verifier outside 43-128 unreserved characters (§4.1)", async () => {
    await expect(s256Challenge("short")).rejects.toThrow();
    await expect(s256Challenge(`${"a".repeat(43)} `)).rejects.toThrow();
  });
});
