import { beforeAll, describe, expect, it } from "vitest";
import { signMessage } from "../../../src/core/dkim";
import { RFC8463_KEYS, RFC8463_MESSAGE } from "../../fixtures/dkim/rfc8463";
import { call, json, makeTeam, type TestTeam } from "../../support/api";
import { installDohStub, type DohStub, type StubZone } from "../../support/doh-stub";
import { generate, MESSAGE, verify, zoneStrings, type KeyPair } from "../../support/dkim-tools";

let team: TestTeam;
let stub: DohStub | null = null;
beforeAll(async () => {
  team = await makeTeam();
});

const rfcZone = (): StubZone => Object.fromEntries(Object.entries(RFC8463_KEYS).map(([k, v]) => [k, { TXT: [v] }]));

async function signed(key: KeyPair, message = MESSAGE): Promise<string> {
  const algorithm = key.algorithm === "ed25519" ? "ed25519-sha256" : "rsa-sha256";
  const r = await signMessage(message, { domain: key.domain, selector: key.selector, privateKey: key.private_key_pem, algorithm });
  if (!r.ok) throw new Error(r.error);
  return r.value;
}

describe("POST /api/v1/dkim/verify", () => {
  it("passes RFC 8463 Appendix A (ed25519-sha256 and rsa-sha256) through HTTP", async () => {
    stub = installDohStub(rfcZone());
    const v = await verify(team.full, RFC8463_MESSAGE);
    expect(v.result).toBe("pass");
    expect(v.from_domain).toBe("football.example.com");
    expect(v.aligned).toBe(true);
    expect(v.signatures.map((s) => [s.selector, s.algorithm, s.result, s.body_hash, s.alignment])).toEqual([
      ["brisbane", "ed25519-sha256", "pass", "pass", "strict"],
      ["test", "rsa-sha256", "pass", "pass", "strict"],
    ]);
    expect(v.signatures[0]?.key).toMatchObject({ type: "ed25519", bits: 256 });
    expect(v.signatures[1]?.key).toMatchObject({ type: "rsa", bits: 1024 });
    // RFC 8301 §3.2: the Appendix A RSA key is 1024 bits, acceptable but weak.
    expect(v.warnings.some((w) => w.includes("1024-bit"))).toBe(true);
    expect(stub.queries.map((q) => `${q.name} ${q.type}`)).toEqual(
      expect.arrayContaining(["brisbane._domainkey.football.example.com TXT", "test._domainkey.football.example.com TXT"]),
    );
  });

  for (const algorithm of ["rsa-1024", "rsa-2048", "rsa-4096", "ed25519"] as const) {
    it(`verifies a message signed with a ${algorithm} key from POST /dkim/generate, and fails it once tampered`, async () => {
      const { key } = await generate(team.full, { domain: "example.com", selector: `gen-${algorithm}`, algorithm });
      // Publish exactly the zone_file's character-strings: the resolver must join them (RFC 6376 §3.6.2.2).
      stub = installDohStub({ [key.dns.host]: { TXT: [zoneStrings(key.zone_file)] } });
      const msg = await signed(key);
      const ok = await verify(team.readOnly, msg);
      expect(ok.result).toBe("pass");
      expect(ok.aligned).toBe(true);
      expect(ok.signatures[0]?.key?.fingerprint).toBe(key.fingerprint);
      expect(ok.signatures[0]?.key?.bits).toBe(key.key_bits);

      const body = await verify(team.full, msg.replace("attached.", "attached!"));
      expect(body.result).toBe("fail");
      expect(body.signatures[0]).toMatchObject({ result: "fail", body_hash: "fail" });

      const header = await verify(team.full, msg.replace("Subject: Quarterly numbers", "Subject: Quarterly numberz"));
      expect(header.result).toBe("fail");
      expect(header.signatures[0]).toMatchObject({ result: "fail", body_hash: "pass", reason: "signature did not verify" });
    });
  }

  it("accepts LF-only input (converted to CRLF) and says so", async () => {
    const { key } = await generate(team.full, { domain: "example.com", selector: "lf", algorithm: "ed25519" });
    stub = installDohStub({ [key.dns.host]: { TXT: [key.dns.value] } });
    const lf = (await signed(key)).replace(/\r\n/g, "\n");
    expect(lf.includes("\r")).toBe(false);
    const v = await verify(team.full, lf);
    expect(v.result).toBe("pass");
    expect(v.warnings.some((w) => w.includes("bare LF"))).toBe(true);
  });

  it("checks relaxed alignment through the RFC 9989 tree walk", async () => {
    const { key } = await generate(team.full, { domain: "example.com", selector: "rel", algorithm: "ed25519" });
    stub = installDohStub({ [key.dns.host]: { TXT: [key.dns.value] }, "_dmarc.example.com": { TXT: ["v=DMARC1; p=reject"] } });
    const v = await verify(team.full, await signed(key, MESSAGE.replace("alice@example.com", "alice@news.example.com")));
    expect(v.from_domain).toBe("news.example.com");
    expect(v.result).toBe("pass");
    expect(v.signatures[0]?.alignment).toBe("relaxed");
    expect(v.aligned).toBe(true);
  });

  it("answers none for a message without a signature", async () => {
    stub = installDohStub({});
    const v = await verify(team.full, MESSAGE);
    expect(v).toMatchObject({ result: "none", from_domain: "example.com", aligned: false, signatures: [] });
    expect(stub.queries).toEqual([]);
  });

  it("is a permerror when the key is not published", async () => {
    stub = installDohStub({});
    const v = await verify(team.full, RFC8463_MESSAGE);
    expect(v.result).toBe("permerror");
    expect(v.signatures.every((s) => s.result === "permerror" && (s.reason ?? "").includes("no key"))).toBe(true);
  });

  it("is a temperror, never a fail, when the key lookup fails", async () => {
    stub = installDohStub(rfcZone());
    stub.setFault("brisbane._domainkey.football.example.com", "TXT", "servfail");
    stub.setFault("test._domainkey.football.example.com", "TXT", "servfail");
    const v = await verify(team.full, RFC8463_MESSAGE);
    expect(v.result).toBe("temperror");
    expect(v.signatures.map((s) => s.result)).toEqual(["temperror", "temperror"]);
    expect(v.signatures.every((s) => s.body_hash === "pass")).toBe(true);
  });

  it("passes when one signature verifies and the other's lookup fails", async () => {
    stub = installDohStub(rfcZone());
    stub.setFault("test._domainkey.football.example.com", "TXT", "servfail");
    const v = await verify(team.full, RFC8463_MESSAGE);
    expect(v.result).toBe("pass");
    expect(v.signatures.map((s) => s.result)).toEqual(["pass", "temperror"]);
  });

  it("accepts exactly 1 MB and refuses 1 MB + 1 byte with 413, counting UTF-8 bytes", async () => {
    stub = installDohStub({});
    const head = "From: a@example.com\r\nSubject: big\r\n\r\n";
    const exact = head + "a".repeat(1024 * 1024 - head.length);
    expect((await call("/api/v1/dkim/verify", { method: "POST", token: team.full, body: { message: exact } })).status).toBe(200);
    const over = await call("/api/v1/dkim/verify", { method: "POST", token: team.full, body: { message: `${exact}a` } });
    expect(over.status).toBe(413);
    expect(await json(over)).toMatchObject({ code: "payload_too_large" });
    // 2-byte characters: fewer than 1 M characters, more than 1 MB.
    const wide = head + "é".repeat(524_288);
    expect(wide.length).toBeLessThan(1024 * 1024);
    expect((await call("/api/v1/dkim/verify", { method: "POST", token: team.full, body: { message: wide } })).status).toBe(413);
  });

  it("validates the body", async () => {
    const missing = await call("/api/v1/dkim/verify", { method: "POST", token: team.full, body: {} });
    expect(missing.status).toBe(422);
    expect((await json<{ errors: Record<string, string[]> }>(missing)).errors).toHaveProperty("message");
    expect((await call("/api/v1/dkim/verify", { method: "POST", token: team.full, body: { message: 42 } })).status).toBe(422);
    expect((await call("/api/v1/dkim/verify", { method: "POST", token: team.full, body: { message: "" } })).status).toBe(422);
    const text = await call("/api/v1/dkim/verify", { method: "POST", token: team.full, rawBody: MESSAGE, headers: { "content-type": "message/rfc822" } });
    expect(text.status).toBe(415);
    const bad = await call("/api/v1/dkim/verify", { method: "POST", token: team.full, rawBody: "{", headers: { "content-type": "application/json" } });
    expect(bad.status).toBe(400);
  });

  it("needs a token; a read-only token may verify", async () => {
    stub = installDohStub({});
    expect((await call("/api/v1/dkim/verify", { method: "POST", body: { message: MESSAGE } })).status).toBe(401);
    expect((await call("/api/v1/dkim/verify", { method: "POST", token: "nope", body: { message: MESSAGE } })).status).toBe(401);
    expect((await verify(team.readOnly, MESSAGE)).result).toBe("none");
  });
});
