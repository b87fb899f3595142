// verifyMessage behaviour: tampering, l=, x=/t=, several signatures, key states, DNS errors, round trips.
import { beforeAll, describe, expect, it } from "vitest";
import { FakeResolver } from "../../../test/support/fake-resolver";
import { binaryToBytes } from "./bytes";
import type { GeneratedKey } from "./generate";
import { signMessage, type SignOptions } from "./sign";
import { verifyMessage } from "./verify";
import { NOW, NOW_S, SAMPLE, newKey, orgDomain, zoneFor } from "../../../test/fixtures/dkim/helpers";

let ed: GeneratedKey;
let rsa: GeneratedKey;
beforeAll(async () => {
  ed = await newKey("ed25519", "ed");
  rsa = await newKey("rsa-2048", "rsa");
});

async function sign(raw: string | Uint8Array, key: GeneratedKey, extra: Partial<SignOptions> = {}): Promise<string> {
  const r = await signMessage(raw, {
    domain: key.domain,
    selector: key.selector,
    privateKey: key.private_key_pem,
    algorithm: key.algorithm === "ed25519" ? "ed25519-sha256" : "rsa-sha256",
    timestamp: NOW_S - 60,
    ...extra,
  });
  if (!r.ok) throw new Error(r.error);
  return r.value;
}
const verify = (raw: string | Uint8Array, resolver = zoneFor([ed, rsa]), now = NOW) => verifyMessage(raw, { resolver, now, orgDomain });

describe("verifyMessage", () => {
  it("returns none for an unsigned message", async () => {
    const r = await verify(SAMPLE);
    expect(r).toMatchObject({ result: "none", from_domain: "example.com", aligned: false, signatures: [] });
  });

  it("passes an intact message and reports the key", async () => {
    const r = await verify(await sign(SAMPLE, rsa));
    expect(r.result).toBe("pass");
    expect(r.aligned).toBe(true);
    expect(r.signatures[0]).toMatchObject({
      domain: "example.com",
      selector: "rsa",
      algorithm: "rsa-sha256",
      canonicalization: "relaxed/relaxed",
      body_hash: "pass",
      alignment: "strict",
      length_limited: false,
    });
    expect(r.signatures[0]?.key).toEqual({ type: "rsa", bits: 2048, fingerprint: rsa.fingerprint, testing: false });
  });

  it("fails the body hash when the body is tampered", async () => {
    const r = await verify((await sign(SAMPLE, ed)).replace("numbers are attached", "numbers are wrong"));
    expect(r.result).toBe("fail");
    expect(r.signatures[0]).toMatchObject({ body_hash: "fail", result: "fail", reason: "body hash did not verify" });
  });

  it("fails the signature when a signed header is tampered", async () => {
    const r = await verify((await sign(SAMPLE, ed)).replace("Subject: Quarterly numbers", "Subject: Urgent wire transfer"));
    expect(r.signatures[0]).toMatchObject({ body_hash: "pass", result: "fail", reason: "signature did not verify" });
  });

  it("still passes when an unsigned header is added", async () => {
    const signed = await sign(SAMPLE, ed);
    const r = await verify(signed.replace("MIME-Version: 1.0", "X-Mailer: relay\r\nReceived: from a by b\r\nMIME-Version: 1.0"));
    expect(r.result).toBe("pass");
  });

  it("fails when a second From is added above an over-signed From (§5.4.2)", async () => {
    const signed = await sign(SAMPLE, ed);
    const r = await verify(signed.replace("From: Alice", "From: Mallory <m@evil.example>\r\nFrom: Alice"));
    expect(r.result).toBe("fail");
    expect(r.from_domain).toBeNull();
    expect(r.warnings.some((w) => w.includes("2 From headers"))).toBe(true);
  });

  it("passes with l= when content is appended, with a warning about the unsigned bytes", async () => {
    const signed = await sign(SAMPLE, ed, { bodyLength: 10 });
    const r = await verify(`${signed}Appended by someone else\r\n`);
    expect(r.result).toBe("pass");
    expect(r.signatures[0]?.length_limited).toBe(true);
    const total = new TextEncoder().encode("Hello Bob,\r\n\r\nThe numbers are attached. Regards, Alice\r\nAppended by someone else\r\n").length;
    expect(r.warnings).toContainEqual(expect.stringContaining(`l= leaves ${total - 10} bytes of the body unsigned`));
  });

  it("fails when l= is longer than the body", async () => {
    const r = await verify(await sign(SAMPLE, ed, { bodyLength: 100000 }));
    expect(r.signatures[0]).toMatchObject({ body_hash: "fail", result: "fail" });
  });

  it("reports an expired signature (x= in the past) as neutral, permerror overall", async () => {
    const r = await verify(await sign(SAMPLE, ed, { timestamp: NOW_S - 7200, expiration: NOW_S - 3600 }));
    expect(r.signatures[0]).toMatchObject({ result: "neutral", reason: "signature expired", body_hash: "pass" });
    expect(r.signatures[0]?.expires_at).toBe(new Date((NOW_S - 3600) * 1000).toISOString());
    expect(r.result).toBe("permerror");
  });

  it("rejects t= in the future beyond the clock-skew allowance, accepts within it", async () => {
    const far = await verify(await sign(SAMPLE, ed, { timestamp: NOW_S + 3600 }));
    expect(far.signatures[0]).toMatchObject({ result: "neutral", reason: expect.stringContaining("future") });
    const near = await verify(await sign(SAMPLE, ed, { timestamp: NOW_S + 120 }));
    expect(near.result).toBe("pass");
  });

  it("passes with one good and one bad signature, reporting both", async () => {
    const bad = (await sign(SAMPLE, rsa)).replace(/bh=[A-Za-z0-9+/]{4}/, "bh=AAAA");
    const both = await sign(bad, ed);
    const r = await verify(both);
    expect(r.result).toBe("pass");
    expect(r.signatures.map((s) => s.result)).toEqual(["pass", "fail"]);
  });

  it("permerror for a revoked key", async () => {
    const r = await verify(await sign(SAMPLE, ed), new FakeResolver({ "ed._domainkey.example.com": { TXT: ["v=DKIM1; k=ed25519; p="] } }));
    expect(r.signatures[0]).toMatchObject({ result: "permerror", reason: "key revoked (empty p=)" });
  });

  it("permerror when the key is missing (NXDOMAIN)", async () => {
    const r = await verify(await sign(SAMPLE, ed), new FakeResolver({}));
    expect(r.result).toBe("permerror");
    expect(r.signatures[0]?.reason).toMatch(/^no key/);
  });

  it("temperror, not fail, when the key lookup fails temporarily", async () => {
    const res = zoneFor([ed]);
    res.faults.set("ed._domainkey.example.com TXT", "temperror");
    const r = await verify(await sign(SAMPLE, ed), res);
    expect(r.result).toBe("temperror");
    expect(r.signatures[0]?.result).toBe("temperror");
  });

  it("permerror for several key records, a k= mismatch, and a key h= that excludes the hash", async () => {
    const signed = await sign(SAMPLE, ed);
    const two = await verify(signed, new FakeResolver({ "ed._domainkey.example.com": { TXT: [ed.dns.value, ed.dns.value] } }));
    expect(two.signatures[0]?.reason).toBe("2 key records at the selector");
    const mism = await verify(signed, new FakeResolver({ "ed._domainkey.example.com": { TXT: [rsa.dns.value] } }));
    expect(mism.signatures[0]?.reason).toMatch(/does not match a=ed25519-sha256/);
    const h = await verify(signed, new FakeResolver({ "ed._domainkey.example.com": { TXT: [`${ed.dns.value}; h=sha1`] } }));
    expect(h.signatures[0]?.reason).toMatch(/does not allow sha256/);
  });

  it("permerror when From is not signed (§5.4), and warns when From is not over-signed", async () => {
    const r = await verify(await sign(SAMPLE, ed, { headers: ["to", "subject"] }).catch(() => ""));
    expect(r.result).toBe("none"); // the signer refuses: no signature was produced
    const once = await verify(await sign(SAMPLE, ed, { headers: ["from", "subject"] }));
    expect(once.result).toBe("pass");
    expect(once.warnings).toContainEqual(expect.stringContaining("From is not over-signed"));
    const noFrom = (await sign(SAMPLE, ed)).replace(/h=from:/i, "h=");
    const r2 = await verify(noFrom.replace(/:from;/, ";"));
    expect(r2.signatures[0]).toMatchObject({ result: "permerror", reason: expect.stringContaining("From header is not in h=") });
  });

  it("treats rsa-sha1 as not acceptable (RFC 8301 §3.1) even though the signature checks out", async () => {
    const r = await verify(await sign(SAMPLE, rsa, { algorithm: "rsa-sha1" }));
    expect(r.signatures[0]).toMatchObject({ result: "permerror", body_hash: "pass", reason: expect.stringContaining("otherwise valid") });
    expect(r.warnings).toContainEqual(expect.stringContaining("rsa-sha1 must not be used"));
  });

  it("a testing-mode key (t=y) passes but never counts as aligned (RFC 6376 §3.6.1: treat as unsigned)", async () => {
    const sub = await newKey("ed25519", "s", "mail.example.com");
    const signed = await sign(SAMPLE, sub);
    const r = await verify(signed, new FakeResolver({ "s._domainkey.mail.example.com": { TXT: [`${sub.dns.value}; t=y`] } }));
    expect(r.result).toBe("pass");
    expect(r.signatures[0]).toMatchObject({ alignment: "relaxed", aligned: false, testing: true, key: { testing: true } });
    expect(r.aligned).toBe(false);
    expect(r.warnings).toContainEqual(expect.stringContaining("testing mode"));
    const live = await verify(signed, new FakeResolver({ "s._domainkey.mail.example.com": { TXT: [sub.dns.value] } }));
    expect(live.signatures[0]).toMatchObject({ alignment: "relaxed", aligned: true, testing: false });
  });

  it("does not align a third-party signer", async () => {
    const esp = await newKey("ed25519", "esp", "esp.example.org");
    const r = await verify(await sign(SAMPLE, esp), zoneFor([esp]));
    expect(r).toMatchObject({ result: "pass", aligned: false });
    expect(r.signatures[0]?.alignment).toBe("none");
  });

  it("verifies a message with bare LF line endings and says it normalized them", async () => {
    const r = await verify((await sign(SAMPLE, ed)).replace(/\r\n/g, "\n"));
    expect(r.result).toBe("pass");
    expect(r.warnings).toContainEqual(expect.stringContaining("bare LF"));
  });

  it("verifies at most MAX_SIGNATURES signatures (RFC 6376 §8.4)", async () => {
    let m = SAMPLE;
    for (let i = 0; i < 12; i++) m = await sign(m, ed);
    const res = zoneFor([ed]);
    const r = await verify(m, res);
    expect(r.result).toBe("pass");
    expect(r.signatures.length).toBe(10);
    expect(res.queriesSent).toBe(10);
    expect(r.warnings).toContainEqual("12 DKIM-Signature fields; only the first 10 were verified");
  });

  it("permerror for a syntactically broken signature, keeping what could be read", async () => {
    const r = await verify(`DKIM-Signature: v=1; a=rsa-sha256; d=example.com; s=x; h=from; bh=AAAA; b=AAAA; b=BBBB\r\n${SAMPLE}`);
    expect(r.signatures[0]).toMatchObject({ result: "permerror", domain: "example.com", selector: "x", body_hash: null });
    expect(r.signatures[0]?.reason).toMatch(/duplicate tag "b"/);
  });
});

describe("octet input and size", () => {
  it("verifies 8-bit non-UTF-8 bodies when given the raw octets", async () => {
    const head = new TextEncoder().encode(SAMPLE.slice(0, SAMPLE.indexOf("\r\n\r\n") + 4));
    const raw = new Uint8Array([...head, 0x63, 0x61, 0x66, 0xe9, 0x0d, 0x0a]); // "café" in latin-1
    const signed = await sign(raw, ed);
    const bytes = binaryToBytes(signed);
    expect(bytes.includes(0xe9)).toBe(true);
    expect((await verify(bytes)).result).toBe("pass");
    // Decoding those octets as UTF-8 first replaces 0xE9 and breaks the body hash.
    const lossy = await verify(new TextDecoder().decode(bytes));
    expect(lossy.signatures[0]?.body_hash).toBe("fail");
  });

  it("verifies UTF-8 text given as a string or as bytes alike", async () => {
    const signed = await sign(SAMPLE.replace("Hello Bob", "Grüße, Bob ✓"), ed);
    expect((await verify(signed)).result).toBe("pass");
    expect((await verify(new TextEncoder().encode(signed))).result).toBe("pass");
  });

  it("verifies a 1 MB message in well under a second", async () => {
    const big = SAMPLE + "A line of body text with   some   spaces\t and tabs\r\n".repeat(20000);
    const signed = await sign(big, rsa, { canonicalization: "relaxed/relaxed" });
    const t0 = Date.now();
    const r = await verify(signed);
    expect(r.result).toBe("pass");
    expect(Date.now() - t0).toBeLessThan(1000);
  });
});

describe("generate → sign → verify round trips", () => {
  for (const algorithm of ["ed25519", "rsa-1024", "rsa-2048", "rsa-4096"] as const) {
    for (const c of ["simple/simple", "relaxed/relaxed", "relaxed/simple", "simple/relaxed"] as const) {
      it(`${algorithm} ${c}`, async () => {
        const key = algorithm === "ed25519" ? ed : algorithm === "rsa-2048" ? rsa : await cached(algorithm);
        const r = await verify(await sign(SAMPLE, key, { canonicalization: c }), zoneFor([key]));
        expect(r.result).toBe("pass");
        expect(r.signatures[0]?.key?.bits).toBe(algorithm === "ed25519" ? 256 : Number(algorithm.slice(4)));
      }, 60_000);
    }
  }
});

const keyCache = new Map<string, Promise<GeneratedKey>>();
function cached(a: "rsa-1024" | "rsa-4096"): Promise<GeneratedKey> {
  let k = keyCache.get(a);
  if (!k) {
    k = newKey(a, a);
    keyCache.set(a, k);
  }
  return k;
}
