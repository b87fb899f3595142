// RFC test vectors: RFC 8463 Appendix A (ed25519 + rsa) and RFC 6376 §3.4.6 canonicalization examples.
import { describe, expect, it } from "vitest";
import { FakeResolver } from "../../../test/support/fake-resolver";
import { base64Encode, sha } from "./bytes";
import { canonBody, canonHeaderRelaxed, canonHeaderSimple } from "./canonicalize";
import { parseMessage } from "./message";
import { verifyMessage } from "./verify";
import { DKIMPY_ED25519_SIMPLE, RFC8463_KEYS, RFC8463_MESSAGE } from "../../../test/fixtures/dkim/rfc8463";

const lastTwoLabels = async (d: string): Promise<string | null> => d.split(".").slice(-2).join(".");
const resolver = () => new FakeResolver(Object.fromEntries(Object.entries(RFC8463_KEYS).map(([k, v]) => [k, { TXT: [v] }])));

describe("RFC 8463 Appendix A", () => {
  it("verifies both the ed25519-sha256 and the rsa-sha256 signature", async () => {
    const r = await verifyMessage(RFC8463_MESSAGE, { resolver: resolver(), now: new Date("2018-06-11T00:00:00Z"), orgDomain: lastTwoLabels });
    expect(r.result).toBe("pass");
    expect(r.from_domain).toBe("football.example.com");
    expect(r.aligned).toBe(true);
    expect(r.signatures.map((s) => [s.algorithm, s.selector, s.body_hash, s.result, s.reason])).toEqual([
      ["ed25519-sha256", "brisbane", "pass", "pass", null],
      ["rsa-sha256", "test", "pass", "pass", null],
    ]);
    const [ed, rsa] = r.signatures;
    expect(ed?.key).toMatchObject({ type: "ed25519", bits: 256, testing: false });
    expect(rsa?.key).toMatchObject({ type: "rsa", bits: 1024 });
    expect(ed?.alignment).toBe("strict");
    expect(ed?.headers).toEqual(["from", "to", "subject", "date", "message-id", "from", "subject", "date"]);
    expect(ed?.signed_at).toBe("2018-06-10T13:38:29.000Z");
    // The RFC's rsa key is 1024 bits: valid but weak (RFC 8301 §3.2).
    expect(r.warnings.some((w) => w.includes("weak 1024-bit"))).toBe(true);
    // From is listed twice and occurs once: over-signed, so no over-signing warning.
    expect(r.warnings.some((w) => w.includes("over-signed"))).toBe(false);
  });

  it("signs the SHA-256 of the header data with Ed25519, not the data itself (RFC 8463 §3)", async () => {
    // A tampered Subject must fail the ed25519 signature while the body hash still passes.
    const tampered = RFC8463_MESSAGE.replace("Is dinner ready?", "Is lunch ready?");
    const r = await verifyMessage(tampered, { resolver: resolver(), now: new Date("2018-06-11T00:00:00Z"), orgDomain: lastTwoLabels });
    expect(r.result).toBe("fail");
    expect(r.signatures.map((s) => [s.body_hash, s.result, s.reason])).toEqual([
      ["pass", "fail", "signature did not verify"],
      ["pass", "fail", "signature did not verify"],
    ]);
  });

  it("verifies dkimpy's simple/simple ed25519 vector (LF-stored, normalized to CRLF)", async () => {
    const r = await verifyMessage(DKIMPY_ED25519_SIMPLE, { resolver: resolver(), now: new Date("2018-02-13T00:00:00Z"), orgDomain: lastTwoLabels });
    expect(r.signatures.map((s) => [s.canonicalization, s.body_hash, s.result])).toEqual([["simple/simple", "pass", "pass"]]);
    expect(r.warnings).toContainEqual(expect.stringContaining("bare LF"));
  });

  it("has the published body hash under relaxed body canonicalization", async () => {
    const { body } = parseMessage(RFC8463_MESSAGE);
    const h = base64Encode(await sha("SHA-256", new TextEncoder().encode(canonBody(body, "relaxed"))));
    expect(h).toBe("2jUSOH9NhtVGCQWNr9BrIAPreKQjO6Sn7XIkfJVOzv8=");
  });
});

describe("RFC 6376 §3.4.6 canonicalization examples", () => {
  const raw = "A: X\r\nB : Y\t\r\n\tZ  \r\n\r\n C \r\nD \t E\r\n\r\n\r\n";
  const msg = parseMessage(raw);

  it("relaxed header canonicalization", () => {
    expect(msg.headers.map(canonHeaderRelaxed).join("")).toBe("a:X\r\nb:Y Z\r\n");
  });
  it("relaxed body canonicalization", () => {
    expect(canonBody(msg.body, "relaxed")).toBe(" C\r\nD E\r\n");
  });
  it("simple header canonicalization leaves the fields unchanged", () => {
    expect(msg.headers.map(canonHeaderSimple).join("")).toBe("A: X\r\nB : Y\t\r\n\tZ  \r\n");
  });
  it("simple body canonicalization removes only the trailing empty lines", () => {
    expect(canonBody(msg.body, "simple")).toBe(" C \r\nD \t E\r\n");
  });
  it("empty-body hashes match the RFC 6376 §3.4.3/§3.4.4 values", async () => {
    const b64 = async (s: string) => base64Encode(await sha("SHA-256", new TextEncoder().encode(s)));
    expect(await b64(canonBody("", "simple"))).toBe("frcCV1k9oG9oKj3dpUqdJg1PxRT2RSN/XKdLCPjaYaY=");
    expect(await b64(canonBody("", "relaxed"))).toBe("47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU=");
  });
});
