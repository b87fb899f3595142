import { beforeAll, describe, expect, it } from "vitest";
import { call, json, makeTeam, type TestTeam } from "../../support/api";
import { b64, generate, pemDer, pTag, sha256HexOf, zoneStrings } from "../../support/dkim-tools";

let team: TestTeam;
beforeAll(async () => {
  team = await makeTeam();
});

const BITS = { "rsa-1024": 1024, "rsa-2048": 2048, "rsa-4096": 4096, ed25519: 256 } as const;
const enc = new TextEncoder();

describe("POST /api/v1/dkim/generate", () => {
  for (const algorithm of Object.keys(BITS) as Array<keyof typeof BITS>) {
    it(`generates ${algorithm}: record, 255-byte zone strings, SHA-256 fingerprint, usable PKCS#8 key`, async () => {
      const { res, key } = await generate(team.full, { domain: "Example.COM.", selector: "Mail2026", algorithm });
      expect(res.headers.get("Cache-Control")).toBe("no-store");
      expect(key).toMatchObject({ domain: "example.com", selector: "mail2026", algorithm, key_bits: BITS[algorithm] });
      expect(key.dns).toMatchObject({ host: "mail2026._domainkey.example.com", type: "TXT" });
      const k = algorithm === "ed25519" ? "ed25519" : "rsa";
      expect(key.dns.value).toMatch(new RegExp(`^v=DKIM1; k=${k}; p=[A-Za-z0-9+/]+=*$`));

      // RFC 1035 §3.3.14: each character-string holds at most 255 octets; together they are the value.
      const strings = zoneStrings(key.zone_file);
      expect(key.zone_file.startsWith("mail2026._domainkey.example.com. IN TXT")).toBe(true);
      for (const s of strings) expect(enc.encode(s).byteLength).toBeLessThanOrEqual(255);
      expect(strings.join("")).toBe(key.dns.value);
      if (algorithm === "rsa-2048" || algorithm === "rsa-4096") expect(strings.length).toBeGreaterThan(1);

      // docs/decisions.md D18: fingerprint = SHA-256 of the base64-decoded p= bytes, lower-case hex.
      const p = b64(pTag(key.dns.value));
      expect(key.fingerprint).toBe(await sha256HexOf(p));
      expect(key.fingerprint).toMatch(/^[0-9a-f]{64}$/);

      // The private key is PKCS#8 and belongs to the published public key.
      expect(key.private_key_pem).toMatch(/^-----BEGIN PRIVATE KEY-----\n[\s\S]+\n-----END PRIVATE KEY-----\n?$/);
      const data = enc.encode("dkim round trip");
      if (k === "rsa") {
        const alg = { name: "RSASSA-PKCS1-v1_5", hash: "SHA-256" };
        // For RSA p= is the DER SubjectPublicKeyInfo: WebCrypto imports it and exports the same bytes.
        const pub = await crypto.subtle.importKey("spki", p, alg, true, ["verify"]);
        expect(new Uint8Array((await crypto.subtle.exportKey("spki", pub)) as ArrayBuffer)).toEqual(p);
        expect((pub.algorithm as { modulusLength?: number }).modulusLength).toBe(BITS[algorithm]);
        const priv = await crypto.subtle.importKey("pkcs8", pemDer(key.private_key_pem), alg, false, ["sign"]);
        expect(await crypto.subtle.verify(alg, pub, await crypto.subtle.sign(alg, priv, data), data)).toBe(true);
      } else {
        // RFC 8463 §4.2: p= is the raw 32-byte Ed25519 public key.
        expect(p.byteLength).toBe(32);
        const pub = await crypto.subtle.importKey("raw", p, { name: "Ed25519" }, false, ["verify"]);
        const priv = await crypto.subtle.importKey("pkcs8", pemDer(key.private_key_pem), { name: "Ed25519" }, false, ["sign"]);
        expect(await crypto.subtle.verify("Ed25519", pub, await crypto.subtle.sign("Ed25519", priv, data), data)).toBe(true);
      }
    });
  }

  it("defaults to rsa-2048 and gives a fresh key each time", async () => {
    const a = (await generate(team.full, { domain: "example.org", selector: "s1" })).key;
    const b = (await generate(team.full, { domain: "example.org", selector: "s1" })).key;
    expect(a.algorithm).toBe("rsa-2048");
    expect(a.key_bits).toBe(2048);
    expect(a.fingerprint).not.toBe(b.fingerprint);
  });

  it("converts an internationalised domain to its A-label", async () => {
    const { key } = await generate(team.full, { domain: "bücher.example", selector: "s1", algorithm: "ed25519" });
    expect(key.domain).toBe("xn--bcher-kva.example");
    expect(key.dns.host).toBe("s1._domainkey.xn--bcher-kva.example");
  });

  it.each([
    [{ domain: "example.com", selector: "bad selector" }, "selector"],
    [{ domain: "example.com", selector: "_lead" }, "selector"],
    [{ domain: "example.com", selector: "a..b" }, "selector"],
    [{ domain: "example.com", selector: "" }, "selector"],
    [{ domain: "not a domain", selector: "s1" }, "domain"],
    [{ domain: "192.0.2.1", selector: "s1" }, "domain"],
    [{ domain: "localhost", selector: "s1" }, "domain"],
    [{ domain: "example.com", selector: "s1", algorithm: "rsa-512" }, "algorithm"],
    [{ selector: "s1" }, "domain"],
  ])("refuses %j with 422 on %s", async (body, field) => {
    const res = await call("/api/v1/dkim/generate", { method: "POST", token: team.full, body });
    expect(res.status).toBe(422);
    const err = await json<{ code: string; errors: Record<string, string[]> }>(res);
    expect(err.code).toBe("validation_failed");
    expect(err.errors).toHaveProperty(field);
  });

  it("needs a JSON body and a token; a read-only token may generate", async () => {
    expect(
      (
        await call("/api/v1/dkim/generate", {
          method: "POST",
          token: team.full,
          rawBody: "domain=example.com",
          headers: { "content-type": "application/x-www-form-urlencoded" },
        })
      ).status,
    ).toBe(415);
    expect((await call("/api/v1/dkim/generate", { method: "POST", body: { domain: "example.com", selector: "s1" } })).status).toBe(401);
    const { key } = await generate(team.readOnly, { domain: "example.com", selector: "ro", algorithm: "ed25519" });
    expect(key.selector).toBe("ro");
  });
});
