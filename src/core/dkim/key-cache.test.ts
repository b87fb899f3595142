// Reuse across messages (docs/decisions.md D53): the key cache changes no verdict and never hides a
// key change; the wire form (one encoding) matches the octet normalization it replaces.
import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import { FakeResolver } from "../../../test/support/fake-resolver";
import { NOW, NOW_S, SAMPLE, newKey, orgDomain, zoneFor } from "../../../test/fixtures/dkim/helpers";
import { bytesEqual, utf8 } from "./bytes";
import type { GeneratedKey } from "./generate";
import { DkimKeyCache } from "./key-cache";
import { normalizeLineEndings, parseMessage, toWire } from "./message";
import { signMessage } from "./sign";
import { verifyMessage } from "./verify";

let rsa: GeneratedKey;
let ed: GeneratedKey;
let rsa2: GeneratedKey;
beforeAll(async () => {
  rsa = await newKey("rsa-2048", "rsa");
  ed = await newKey("ed25519", "ed");
  rsa2 = await newKey("rsa-2048", "rsa"); // same selector, another key: a rotation
});

async function sign(raw: string, key: GeneratedKey, canonicalization: "relaxed/relaxed" | "simple/simple" = "relaxed/relaxed"): Promise<string> {
  const r = await signMessage(raw, {
    domain: key.domain,
    selector: key.selector,
    privateKey: key.private_key_pem,
    algorithm: key.algorithm === "ed25519" ? "ed25519-sha256" : "rsa-sha256",
    canonicalization,
    timestamp: NOW_S - 60,
  });
  if (!r.ok) throw new Error(r.error);
  return r.value;
}

describe("DkimKeyCache", () => {
  it("reads and imports each key once across messages, with the same reports as without it", async () => {
    const resolver = zoneFor([rsa, ed]);
    const cache = new DkimKeyCache();
    const messages = [
      await sign(await sign(SAMPLE, rsa), ed),
      await sign(SAMPLE.replace("Bob,", "Carol,"), rsa, "simple/simple"),
      (await sign(SAMPLE, ed)).replace("attached", "missing"),
    ];
    for (const m of messages) {
      const cached = await verifyMessage(m, { resolver, now: NOW, orgDomain, keyCache: cache });
      const fresh = await verifyMessage(m, { resolver, now: NOW, orgDomain });
      expect(cached).toEqual(fresh);
    }
    expect(cache.sizes).toEqual({ records: 2, keys: 2 });
    // Every message still looked its keys up: the cache holds keys, never DNS answers.
    expect(resolver.log.filter((q) => q.startsWith("rsa._domainkey")).length).toBe(4);
  });

  it("sees a rotated or revoked key on the very next message", async () => {
    const zone = { [rsa.dns.host]: { TXT: [rsa.dns.value] } };
    const resolver = new FakeResolver(zone);
    const cache = new DkimKeyCache();
    const deps = { resolver, now: NOW, orgDomain, keyCache: cache };
    const signed = await sign(SAMPLE, rsa);
    expect((await verifyMessage(signed, deps)).result).toBe("pass");

    zone[rsa.dns.host] = { TXT: [rsa2.dns.value] };
    const rotated = await verifyMessage(signed, deps);
    expect(rotated.signatures[0]).toMatchObject({ result: "fail", reason: "signature did not verify" });
    expect(rotated.signatures[0]?.key?.fingerprint).toBe(rsa2.fingerprint);
    expect((await verifyMessage(await sign(SAMPLE, rsa2), deps)).result).toBe("pass");

    zone[rsa.dns.host] = { TXT: ["v=DKIM1; k=rsa; p="] };
    expect((await verifyMessage(signed, deps)).signatures[0]).toMatchObject({ result: "permerror", reason: "key revoked (empty p=)" });
  });

  it("keys the record by its whole text: flags beside the same p= are read again", async () => {
    const zone = { [rsa.dns.host]: { TXT: [rsa.dns.value] } };
    const cache = new DkimKeyCache();
    const deps = { resolver: new FakeResolver(zone), now: NOW, orgDomain, keyCache: cache };
    const signed = await sign(SAMPLE, rsa);
    expect((await verifyMessage(signed, deps)).signatures[0]?.testing).toBe(false);
    zone[rsa.dns.host] = { TXT: [`${rsa.dns.value}; t=y`] };
    const testing = await verifyMessage(signed, deps);
    expect(testing.signatures[0]).toMatchObject({ result: "pass", testing: true, aligned: false });
    zone[rsa.dns.host] = { TXT: [`${rsa.dns.value}; s=other`] };
    expect((await verifyMessage(signed, deps)).signatures[0]).toMatchObject({ result: "permerror", reason: "key s= excludes email" });
    // Three record texts, one p=: one imported key.
    expect(cache.sizes).toEqual({ records: 3, keys: 1 });
  });

  it("holds at most its capacity, forgetting the least recently used", async () => {
    const cache = new DkimKeyCache(2);
    const keys = [rsa, ed, await newKey("ed25519", "third")];
    const resolver = zoneFor(keys);
    for (const k of keys) {
      const r = await verifyMessage(await sign(SAMPLE, k), { resolver, now: NOW, orgDomain, keyCache: cache });
      expect(r.result).toBe("pass");
    }
    expect(cache.sizes).toEqual({ records: 2, keys: 2 });
  });
});

describe("toWire", () => {
  // Bare LFs, CRLFs, lone CRs and non-ASCII text: the one encoding must give the octets the byte
  // normalization gives, and count the size as the UTF-8 octets given.
  const token = fc.constantFrom("a", "word ", "\n", "\r\n", "\r", "\n\n", "é", "€", "😀", " \t", "\r\r\n");
  const text = fc.array(token, { maxLength: 80 }).map((t) => t.join(""));

  it("matches normalizing the UTF-8 octets, for any text", () => {
    fc.assert(
      fc.property(text, (s) => {
        const encoded = utf8(s);
        const want = normalizeLineEndings(encoded);
        const got = toWire(s);
        return bytesEqual(got.bytes, want.bytes) && got.normalized === want.normalized && got.size === encoded.length && !got.binary;
      }),
      { numRuns: 2000 },
    );
  });

  it("parses a wire message exactly as the text it came from", () => {
    const lf = SAMPLE.replace(/\r\n/g, "\n");
    for (const s of [SAMPLE, lf, "Subject: é\n\nbody é\n"]) {
      const a = parseMessage(s);
      const b = parseMessage(toWire(s));
      expect({ headers: b.headers, body: b.body, normalized: b.normalized, binary: b.binary }).toEqual({
        headers: a.headers,
        body: a.body,
        normalized: a.normalized,
        binary: a.binary,
      });
    }
  });

  it("keeps byte input binary and counts its octets", () => {
    const bytes = new Uint8Array([0x41, 0x3a, 0x20, 0xff, 0x0a, 0x0a, 0x62]);
    const w = toWire(bytes);
    expect(w).toMatchObject({ size: 7, normalized: true, binary: true });
    expect([...w.bytes]).toEqual([0x41, 0x3a, 0x20, 0xff, 0x0d, 0x0a, 0x0d, 0x0a, 0x62]);
  });
});
