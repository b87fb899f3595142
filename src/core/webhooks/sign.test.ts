// Signing against the spec's test vector and the official standardwebhooks package as an oracle.
import { Webhook } from "standardwebhooks";
import { describe, expect, it } from "vitest";
import { base64ToBytes, bytesToBase64 } from "./encoding";
import { decodeSecret, generateSecret, importSealingKey, openBound, sealBound, sealedKeyId, sign, verify } from "./sign";

const VECTOR = {
  secret: "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw",
  id: "msg_p5jXN8AQM9LWM0D4loKWxJek",
  timestamp: 1614265330,
  body: '{"test": 2432232314}',
  signature: "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=",
};
const TEST_KEY = "dGVzdC13ZWJob29rLXNlY3JldC1rZXktMzItYnl0ZXM="; // as in vitest.config.ts

const unwrap = <T>(r: { ok: true; value: T } | { ok: false; error: unknown }): T => {
  if (!r.ok) throw new Error(`unexpected error: ${JSON.stringify(r.error)}`);
  return r.value;
};

async function signedNow(secrets: string[], body = '{"id":"evt_1","data":{}}') {
  const timestamp = Math.floor(Date.now() / 1000); // the oracle checks against the real clock
  const signature = unwrap(await sign({ id: "evt_1", timestamp, body }, secrets));
  return { body, headers: { "webhook-id": "evt_1", "webhook-timestamp": String(timestamp), "webhook-signature": signature } };
}

describe("sign", () => {
  it("reproduces the Standard Webhooks test vector", async () => {
    const { secret, id, timestamp, body } = VECTOR;
    expect(unwrap(await sign({ id, timestamp, body }, [secret]))).toBe(VECTOR.signature);
    expect(new Webhook(secret).sign(id, new Date(timestamp * 1000), body)).toBe(VECTOR.signature);
  });

  it("is accepted by the standardwebhooks oracle", async () => {
    const secret = generateSecret();
    const { body, headers } = await signedNow([secret]);
    expect(new Webhook(secret).verify(body, headers)).toEqual({ id: "evt_1", data: {} });
  });

  it("carries two signatures during rotation, newest first, each accepted by the oracle", async () => {
    const [fresh, old, other] = [generateSecret(), generateSecret(), generateSecret()];
    const { body, headers } = await signedNow([fresh, old]);
    const parts = headers["webhook-signature"].split(" ");
    expect(parts).toHaveLength(2);
    expect(parts.every((p) => /^v1,[A-Za-z0-9+/]{43}=$/.test(p))).toBe(true);
    expect(() => new Webhook(fresh).verify(body, headers)).not.toThrow();
    expect(() => new Webhook(old).verify(body, headers)).not.toThrow();
    expect(() => new Webhook(other).verify(body, headers)).toThrow(/No matching signature/);
    const onlyFresh = unwrap(await sign({ id: "evt_1", timestamp: Number(headers["webhook-timestamp"]), body }, [fresh]));
    expect(parts[0]).toBe(onlyFresh);
  });

  it("is rejected by the oracle when the body or timestamp is tampered with", async () => {
    const secret = generateSecret();
    const { body, headers } = await signedNow([secret]);
    expect(() => new Webhook(secret).verify(body.replace("evt_1", "evt_2"), headers)).toThrow();
    const shifted = { ...headers, "webhook-timestamp": String(Number(headers["webhook-timestamp"]) - 1) };
    expect(() => new Webhook(secret).verify(body, shifted)).toThrow(/No matching signature/);
    expect(() => new Webhook(secret).verify(body, { ...headers, "webhook-id": "evt_9" })).toThrow();
  });

  it("returns errors for bad input instead of throwing", async () => {
    const m = { id: "evt_1", timestamp: 1, body: "{}" };
    expect((await sign(m, [])).ok).toBe(false);
    expect((await sign(m, ["whsec_!!!"])).ok).toBe(false);
    expect((await sign({ ...m, timestamp: 1.5 }, [VECTOR.secret])).ok).toBe(false);
  });
});

describe("secrets", () => {
  it("generates whsec_ + base64 of 32 random bytes", () => {
    const s = generateSecret();
    expect(s).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(unwrap(decodeSecret(s))).toHaveLength(32);
    expect(generateSecret()).not.toBe(s);
  });

  it("decodes the vector secret and rejects malformed ones", () => {
    expect(unwrap(decodeSecret(VECTOR.secret))).toHaveLength(24);
    for (const bad of ["MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", "whsec_", "whsec_not base64!", "whsec_AAAA", `whsec_${"A".repeat(100)}`]) {
      expect(decodeSecret(bad).ok, bad).toBe(false);
    }
  });
});

describe("verify (receiver side)", () => {
  const { secret, id, timestamp, body } = VECTOR;
  const headers = { "Webhook-Id": id, "webhook-timestamp": String(timestamp), "webhook-signature": VECTOR.signature };
  const at = (seconds: number) => new Date(seconds * 1000);

  it("accepts the vector within the tolerance and takes a Headers object", async () => {
    expect(await verify(headers, body, secret, at(timestamp + 299))).toEqual({ ok: true, value: true });
    expect((await verify(new Headers(headers), body, secret, at(timestamp))).ok).toBe(true);
  });

  it("accepts any one of several signatures and skips unknown versions", async () => {
    const sig = `v2,abc v1,${"A".repeat(43)}= ${VECTOR.signature}`;
    expect((await verify({ ...headers, "webhook-signature": sig }, body, secret, at(timestamp))).ok).toBe(true);
  });

  it("rejects stale, future, tampered and incomplete messages", async () => {
    expect(await verify(headers, body, secret, at(timestamp + 301))).toEqual({ ok: false, error: "timestamp_too_old" });
    expect(await verify(headers, body, secret, at(timestamp - 301))).toEqual({ ok: false, error: "timestamp_too_new" });
    expect(await verify(headers, `${body} `, secret, at(timestamp))).toEqual({ ok: false, error: "no_matching_signature" });
    expect(await verify({ ...headers, "webhook-timestamp": "soon" }, body, secret, at(timestamp))).toEqual({ ok: false, error: "bad_timestamp" });
    expect(await verify({ "webhook-id": id }, body, secret, at(timestamp))).toEqual({ ok: false, error: "missing_headers" });
    expect(await verify(headers, body, generateSecret(), at(timestamp))).toEqual({ ok: false, error: "no_matching_signature" });
  });
});

describe("encryption at rest", () => {
  const key = async (b64 = TEST_KEY) => unwrap(await importSealingKey(b64));
  /** A secret sealed the v1 way (no key id, no additional data), as rows written before v2 hold. */
  async function legacyV1(plain: string, b64 = TEST_KEY): Promise<string> {
    const raw = unwrap(base64ToBytes(b64));
    const k = await crypto.subtle.importKey("raw", raw, "AES-GCM", false, ["encrypt"]);
    const iv = crypto.getRandomValues(new Uint8Array(12));
    const ct = new Uint8Array(await crypto.subtle.encrypt({ name: "AES-GCM", iv }, k, new TextEncoder().encode(plain)));
    return `v1:${bytesToBase64(iv)}:${bytesToBase64(ct)}`;
  }

  it("round-trips with a fresh IV each time and names the key that sealed it", async () => {
    const k = await key();
    const plain = generateSecret();
    const a = await sealBound(plain, k, "webhook-endpoint:1");
    const b = await sealBound(plain, k, "webhook-endpoint:1");
    expect(a).toMatch(new RegExp(`^v2:${k.id}:[A-Za-z0-9+/]{16}:[A-Za-z0-9+/=]+$`));
    expect(k.id).toMatch(/^[0-9a-f]{8}$/);
    expect(a).not.toBe(b);
    expect(sealedKeyId(a)).toBe(k.id);
    expect(unwrap(await openBound(a, [k], "webhook-endpoint:1"))).toBe(plain);
  });

  it("is bound to its row: another endpoint's binding fails the tag check", async () => {
    const k = await key();
    const sealed = await sealBound("whsec_x", k, "webhook-endpoint:1");
    expect((await openBound(sealed, [k], "webhook-endpoint:2")).ok).toBe(false);
  });

  it("opens with the key it names among several (key rotation), and refuses an unknown key id", async () => {
    const oldKey = await key();
    const newKey = await key(bytesToBase64(crypto.getRandomValues(new Uint8Array(32))));
    const sealed = await sealBound("whsec_y", oldKey, "b");
    expect(unwrap(await openBound(sealed, [newKey, oldKey], "b"))).toBe("whsec_y");
    expect((await openBound(sealed, [newKey], "b")).ok).toBe(false);
  });

  it("still opens v1 secrets sealed before key ids and bindings", async () => {
    const v1 = await legacyV1("whsec_legacy");
    expect(sealedKeyId(v1)).toBeUndefined();
    expect(unwrap(await openBound(v1, [await key()], "anything"))).toBe("whsec_legacy");
  });

  it("detects tampering and a wrong key", async () => {
    const k = await key();
    const cipher = await sealBound("whsec_secret", k, "x");
    const [v, id, iv, ct] = cipher.split(":") as [string, string, string, string];
    const bytes = unwrap(base64ToBytes(ct));
    bytes[0] = (bytes[0] ?? 0) ^ 1;
    expect((await openBound(`${v}:${id}:${iv}:${bytesToBase64(bytes)}`, [k], "x")).ok).toBe(false);
    const ivBytes = unwrap(base64ToBytes(iv));
    ivBytes[11] = (ivBytes[11] ?? 0) ^ 1;
    expect((await openBound(`${v}:${id}:${bytesToBase64(ivBytes)}:${ct}`, [k], "x")).ok).toBe(false);
  });

  it("rejects bad keys and malformed ciphertexts", async () => {
    expect((await importSealingKey("c2hvcnQ=")).ok).toBe(false); // 5 bytes
    expect((await importSealingKey("not base64!")).ok).toBe(false);
    const k = await key();
    for (const bad of ["", "v1:abc", "v2:AAAAAAAAAAAAAAAA:AAAA", "v1:AAAA:AAAAAAAAAAAAAAAAAAAAAA==", "v1:AAAAAAAAAAAAAAAA:AAAA:x", `v2:${k.id}:AAAA:AAAA`]) {
      expect((await openBound(bad, [k], "x")).ok, bad).toBe(false);
    }
  });
});
