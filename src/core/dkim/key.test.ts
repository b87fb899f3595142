// Key analysis: RSA bits from the SPKI / PKCS#1 DER, fingerprints, findings, age buckets, generated records.
import { describe, expect, it } from "vitest";
import { wrapPkcs1 } from "./asn1";
import { base64Decode, base64Encode, sha256Hex } from "./bytes";
import { generateKeyPair, txtStrings, zoneRecord } from "./generate";
import { ageBucket, analyzeKey, type KeyAnalysis } from "./key";
import { RFC8463_KEYS } from "../../../test/fixtures/dkim/rfc8463";

const analyzed = async (rec: string): Promise<KeyAnalysis> => {
  const a = await analyzeKey(rec);
  if ("error" in a) throw new Error(a.error);
  return a;
};
const rules = (a: KeyAnalysis) => a.findings.map((f) => `${f.rule}:${f.severity}`);

// A 140-byte PKCS#1 RSAPublicKey (1024 bits) as some publishers put it in p= (seen in mox's tests).
const PKCS1 =
  "MIGJAoGBALVI635dLK4cJJAH3Lx6upo3X/Lm1tQz3mezcWTA3BUBnyIsdnRf57aD5BtNmhPrYYDlWlzw3UgnKisIxktkk5+iMQMlFtAS10JB8L3YadXNJY+JBcbeSi5TgJe4WFzNgW95FWDAuSTRXSWZfA/8xjflbTLDx0euFZOM7C4T0GwLAgMBAAE=";

/** An SPKI whose modulus has exactly `bits` bits (top bit set), for size checks without crypto. */
function spkiOfBits(bits: number): string {
  const n = new Uint8Array(bits / 8 + 1);
  n[1] = 0x80; // leading 0x00 keeps the INTEGER positive, as DER requires
  const body = [0x02, ...len(n.length), ...n, 0x02, 0x03, 1, 0, 1];
  return base64Encode(wrapPkcs1(new Uint8Array([0x30, ...len(body.length), ...body])));
}
const len = (n: number) => (n < 0x80 ? [n] : n < 0x100 ? [0x81, n] : [0x82, n >> 8, n & 0xff]);

describe("analyzeKey", () => {
  it("reads 1024 bits from the RFC 8463 RSA key's SPKI, fingerprint = SHA-256 of the DER", async () => {
    const a = await analyzed(RFC8463_KEYS["test._domainkey.football.example.com"]);
    expect(a).toMatchObject({ type: "rsa", bits: 1024, usable: true, revoked: false });
    const der = base64Decode(RFC8463_KEYS["test._domainkey.football.example.com"].split("p=")[1] ?? "");
    expect(a.fingerprint).toBe(await sha256Hex(der ?? new Uint8Array()));
    expect(a.fingerprint).toMatch(/^[0-9a-f]{64}$/);
    expect(rules(a)).toEqual(["dkim.key.weak:Medium"]);
  });
  it("reads the raw Ed25519 key of RFC 8463", async () => {
    const a = await analyzed(RFC8463_KEYS["brisbane._domainkey.football.example.com"]);
    expect(a).toMatchObject({ type: "ed25519", bits: 256, usable: true });
    expect(a.findings).toEqual([]);
  });
  it("accepts a bare PKCS#1 RSAPublicKey and counts its bits", async () => {
    expect(await analyzed(`v=DKIM1; p=${PKCS1}`)).toMatchObject({ bits: 1024, usable: true });
  });
  it("counts modulus bits, not bytes", async () => {
    expect((await analyzed(`p=${spkiOfBits(2048)}`)).bits).toBe(2048);
    expect((await analyzed(`p=${spkiOfBits(1016)}`)).bits).toBe(1016);
  });
  it("flags keys under 1024 bits as Critical and unusable (RFC 8301 §3.2)", async () => {
    const a = await analyzed(`p=${spkiOfBits(512)}`);
    expect(a.usable).toBe(false);
    expect(rules(a)).toEqual(["dkim.key.too_small:Critical"]);
  });
  it("flags revoked, testing, sha1-only, malformed and mismatched keys", async () => {
    expect(rules(await analyzed("v=DKIM1; p="))).toEqual(["dkim.key.revoked:Info"]);
    const ed = RFC8463_KEYS["brisbane._domainkey.football.example.com"];
    expect(rules(await analyzed(`${ed}; t=y`))).toEqual(["dkim.key.testing:Low"]);
    const rsa2048 = `v=DKIM1; h=sha1; p=${spkiOfBits(2048)}`;
    expect(rules(await analyzed(rsa2048))).toEqual(["dkim.key.sha1_only:High"]);
    expect(rules(await analyzed("v=DKIM1; p=!!notbase64"))).toEqual(["dkim.key.malformed:High"]);
    expect(rules(await analyzed("v=DKIM1; k=rsa; p=11qYAYKxCrfVS/7TyWQHOg7hcvPapiMlrwIaaPcHURo="))).toEqual(["dkim.key.type_mismatch:High"]);
    expect(rules(await analyzed(`v=DKIM1; k=ed25519; p=${spkiOfBits(2048)}`))).toEqual(["dkim.key.type_mismatch:High"]);
  });
});

describe("ageBucket", () => {
  it("uses the age boundaries of docs/decisions.md D18", () => {
    expect([0, 179, 180, 729, 730, 5000].map(ageBucket)).toEqual([
      "under_6_months",
      "under_6_months",
      "over_6_months",
      "over_6_months",
      "over_2_years",
      "over_2_years",
    ]);
  });
});

describe("generateKeyPair", () => {
  it("publishes a raw 32-byte Ed25519 key (RFC 8463 §4.2)", async () => {
    const r = await generateKeyPair({ domain: "Example.com.", selector: "ed2026", algorithm: "ed25519" });
    if (!r.ok) throw new Error(r.error);
    const k = r.value;
    expect(k.dns.host).toBe("ed2026._domainkey.example.com");
    expect(k.dns.value).toMatch(/^v=DKIM1; k=ed25519; p=[A-Za-z0-9+/]{43}=$/);
    expect(base64Decode(k.dns.value.split("p=")[1] ?? "")?.length).toBe(32);
    expect(k.private_key_pem).toMatch(/^-----BEGIN PRIVATE KEY-----\n/);
    expect(k.key_bits).toBe(256);
  });
  it("splits a 2048-bit record into ≤255-byte strings in the zone file", async () => {
    const r = await generateKeyPair({ domain: "example.com", selector: "s2048", algorithm: "rsa-2048" });
    if (!r.ok) throw new Error(r.error);
    const parts = txtStrings(r.value.dns.value);
    expect(parts.length).toBe(2);
    expect(parts.every((s) => s.length <= 255)).toBe(true);
    expect(parts.join("")).toBe(r.value.dns.value);
    expect(r.value.zone_file).toBe(zoneRecord(r.value.dns.host, r.value.dns.value));
    expect(r.value.zone_file).toMatch(/^s2048\._domainkey\.example\.com\. IN TXT \(\n {2}"v=DKIM1; k=rsa; p=/);
    expect((await analyzed(r.value.dns.value)).fingerprint).toBe(r.value.fingerprint);
  });
  it("rejects an invalid selector", async () => {
    expect((await generateKeyPair({ domain: "example.com", selector: "_bad", algorithm: "ed25519" })).ok).toBe(false);
  });
});
