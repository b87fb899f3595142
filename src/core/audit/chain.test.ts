// The chain's vectors were computed outside this code: the canonical strings written by hand and hashed
// with Python's hashlib and `sha256sum` (32 zero bytes, then the UTF-8 string), docs/audit.md "The chain".
import { describe, expect, it } from "vitest";
import { type ChainEntry, ChainVerifier, canonicalEntry, chainHash, GENESIS_HASH } from "./chain";

const first: ChainEntry = {
  teamId: 7,
  seq: 1,
  at: 1764288000000,
  actorKind: "member",
  actorId: "42",
  actorLabel: "alice@example.com",
  face: "dashboard",
  verb: "domain.create",
  targetType: "domain",
  targetId: "13",
  summary: "added example.com",
  ip: "203.0.113.9",
  userAgent: "Mozilla/5.0",
};
const second: ChainEntry = {
  teamId: 7,
  seq: 2,
  at: 1764288060000,
  actorKind: "system",
  actorId: "system",
  actorLabel: "the service",
  face: "system",
  verb: "notification_channel.disable",
  targetType: "notification_channel",
  targetId: "5",
  summary: "disabled after 20 failures é✓",
  ip: null,
  userAgent: null,
};
const H1 = "2c7c5832615278a3f0ac1500df7b02432cbee91f6c2fffa19739caa0433979d3";
const H2 = "27ba05b19f7ae51e89a4997811e50851d1b9366b323d3c99948b9cff7bfcb537";

const sealed = [
  { ...first, hash: H1 },
  { ...second, hash: H2 },
];

async function verify(entries: Array<ChainEntry & { hash: string | null }>, head = { sealedSeq: 2, headHash: H2 }, anchor = { seq: 0, hash: GENESIS_HASH }) {
  const v = new ChainVerifier(anchor, head);
  await v.push(entries);
  return v.finish();
}

describe("audit chain", () => {
  it("canonical bytes are a JSON array in the documented order", () => {
    expect(new TextDecoder().decode(canonicalEntry(first))).toBe(
      '["eam-audit-v1",7,1,1764288000000,"member","42","alice@example.com","dashboard","domain.create","domain","13","added example.com","203.0.113.9","Mozilla/5.0"]',
    );
    expect(new TextDecoder().decode(canonicalEntry(second))).toContain('"disabled after 20 failures é✓",null,null]');
  });

  it("hashes match the independently computed vectors", async () => {
    expect(await chainHash(GENESIS_HASH, first)).toBe(H1);
    expect(await chainHash(H1, second)).toBe(H2);
  });

  it("every field takes part: changing any one changes the hash", async () => {
    const changes: Partial<ChainEntry>[] = [
      { teamId: 8 },
      { seq: 3 },
      { at: first.at + 1 },
      { actorKind: "token" },
      { actorId: "43" },
      { actorLabel: "bob@example.com" },
      { face: "api" },
      { verb: "domain.delete" },
      { targetType: null },
      { targetId: "14" },
      { summary: "added example.org" },
      { ip: null },
      { userAgent: "curl/8" },
    ];
    for (const change of changes) expect(await chainHash(GENESIS_HASH, { ...first, ...change })).not.toBe(H1);
  });

  it("verifies an intact run and counts the unsealed tail", async () => {
    const tail = { ...second, seq: 3, hash: null };
    expect(await verify([...sealed, tail])).toEqual({ ok: true, checked: 2, verifiedThrough: 2, unsealed: 1, problem: null });
  });

  it("names an altered entry", async () => {
    const report = await verify([sealed[0]!, { ...sealed[1]!, summary: "nothing happened" }]);
    expect(report.ok).toBe(false);
    expect(report.problem).toMatchObject({ seq: 2, reason: "altered" });
    expect(report.checked).toBe(1);
  });

  it("names a missing entry (gap), also at the start", async () => {
    expect((await verify([sealed[1]!])).problem).toMatchObject({ seq: 1, reason: "gap" });
    const third = { ...second, seq: 3, hash: await chainHash(H2, { ...second, seq: 3 }) };
    const report = await verify([sealed[0]!, third], { sealedSeq: 3, headHash: third.hash });
    expect(report.problem).toMatchObject({ seq: 2, reason: "gap" });
  });

  it("names removed newest entries and a rewritten head", async () => {
    expect((await verify([sealed[0]!])).problem).toMatchObject({ seq: 2, reason: "head_mismatch" });
    expect((await verify(sealed, { sealedSeq: 2, headHash: H1 })).problem).toMatchObject({ seq: 2, reason: "head_mismatch" });
  });

  it("a sealed entry past the head (the head moved back or removed) is reported", async () => {
    expect((await verify(sealed, { sealedSeq: 0, headHash: GENESIS_HASH })).problem).toMatchObject({ seq: 1, reason: "head_mismatch" });
  });

  it("an entry of the sealed range without a hash is reported, not taken for the tail", async () => {
    expect((await verify([sealed[0]!, { ...second, hash: null }])).problem).toMatchObject({ seq: 2, reason: "unsealed_inside" });
  });

  it("starts from a retention anchor", async () => {
    expect(await verify([sealed[1]!], { sealedSeq: 2, headHash: H2 }, { seq: 1, hash: H1 })).toMatchObject({ ok: true, checked: 1 });
    expect((await verify([sealed[1]!], { sealedSeq: 2, headHash: H2 }, { seq: 1, hash: GENESIS_HASH })).problem).toMatchObject({ reason: "altered" });
  });
});
