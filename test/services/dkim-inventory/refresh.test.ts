import { beforeAll, describe, expect, it } from "vitest";
import type { Resolver } from "../../../src/core/dns/types";
import { refreshDkimInventory } from "../../../src/services/dkim-inventory/refresh";
import { installDohStub, type DohStub, type StubZone } from "../../support/doh-stub";
import { makeTeam } from "../../support/api";
import { commit, eventsOf, insertDomain, keysOf, newKey, selectorsOf, services } from "../../support/dkim-inventory";

const DAY = 86_400_000;
const t = (n: number) => new Date(Date.UTC(2026, 0, 1) + n * DAY);
const GOOGLE = { mxHosts: ["aspmx.l.google.com"], spfIncludes: ["_spf.google.com"] };

let teamId: number;
let stub: DohStub | null = null;
beforeAll(async () => {
  teamId = (await makeTeam()).id;
});

describe("refreshDkimInventory", () => {
  it("walks a selector through discovery, rotation, record change, temperror, revocation and removal", async () => {
    const svc = services();
    const domain = await insertDomain(svc, teamId);
    const d = domain.name;
    const keyA = await newKey(d, "google");
    const keyB = await newKey(d, "google");
    const keyM = await newKey(d, "selector1");
    const msTarget = `selector1-${d.replace(/\./g, "-")}._domainkey.contoso.onmicrosoft.com`;
    const zone: StubZone = {
      [`google._domainkey.${d}`]: { TXT: [keyA.dns.value] },
      [`selector1._domainkey.${d}`]: { CNAME: msTarget },
      [msTarget]: { TXT: [keyM.dns.value] },
    };
    stub = installDohStub(zone);
    const run = async (now: Date) => {
      const r = await refreshDkimInventory(svc, domain, svc.createResolver(), GOOGLE, now);
      await commit(svc, r, now);
      return r;
    };

    // 1. Discovery: only published selectors are stored, as "discovered".
    const r1 = await run(t(0));
    expect(r1.stale).toBe(false);
    expect(r1.posture).toMatchObject({ selectors: 2, active: 2 });
    const q = stub.queries.filter((x) => x.type === "TXT").map((x) => x.name);
    expect(q[1], "known and inferred-provider selectors first (after the wildcard probe)").toBe(`google._domainkey.${d}`);
    expect(q.length).toBeLessThanOrEqual(41);
    let rows = await selectorsOf(svc, domain.id);
    expect(rows.map((r) => r.selector)).toEqual(["google", "selector1"]);
    expect(rows[0]).toMatchObject({
      source: "discovered",
      status: "active",
      health: "pass",
      provider: "Google Workspace",
      keyFingerprint: keyA.fingerprint,
      keyType: "ed25519",
      keyBits: 256,
      rotations: 0,
      firstSeenAt: t(0),
    });
    expect(rows[1]).toMatchObject({ status: "active", delegatedTo: msTarget, provider: "Microsoft 365", keyFingerprint: keyM.fingerprint });
    let evs = await eventsOf(svc, domain.id);
    expect(evs.map((e) => [e.type, e.data.selector])).toEqual([
      ["dkim.selector.added", "google"],
      ["dkim.selector.added", "selector1"],
    ]);
    expect(evs[0]?.data).toMatchObject({ domain: { id: domain.id, name: d }, fingerprint: keyA.fingerprint, type: "ed25519", bits: 256 });

    // 2. Rotation: the old key is retired as rotated, the new one recorded, rotations + 1.
    zone[`google._domainkey.${d}`] = { TXT: [keyB.dns.value] };
    await run(t(1));
    rows = await selectorsOf(svc, domain.id);
    expect(rows[0]).toMatchObject({ keyFingerprint: keyB.fingerprint, rotations: 1, keyFirstSeenAt: t(1), firstSeenAt: t(0) });
    let keys = await keysOf(svc, domain.id, "google");
    expect(keys.map((k) => [k.fingerprint, k.retiredReason, k.retiredAt])).toEqual([
      [keyA.fingerprint, "rotated", t(1)],
      [keyB.fingerprint, null, null],
    ]);
    evs = await eventsOf(svc, domain.id);
    expect(evs.slice(2).map((e) => e.type)).toEqual(["dkim.key.rotated"]);
    expect(evs[2]?.data).toMatchObject({
      selector: "google",
      old_fingerprint: keyA.fingerprint,
      new_fingerprint: keyB.fingerprint,
      type: "ed25519",
      bits: 256,
    });

    // 3. Same key, new tags (t=y): dkim.record.changed, no new key row, health warning (testing mode).
    const testing = keyB.dns.value.replace("v=DKIM1;", "v=DKIM1; t=y;");
    zone[`google._domainkey.${d}`] = { TXT: [testing] };
    await run(t(2));
    rows = await selectorsOf(svc, domain.id);
    expect(rows[0]).toMatchObject({
      keyFingerprint: keyB.fingerprint,
      rotations: 1,
      record: testing,
      keyTesting: true,
      health: "warning",
      keyFirstSeenAt: t(1),
    });
    expect(await keysOf(svc, domain.id, "google")).toHaveLength(2);
    evs = await eventsOf(svc, domain.id);
    expect(evs.slice(3).map((e) => e.type)).toEqual(["dkim.record.changed"]);
    expect(evs[3]?.data).toMatchObject({ selector: "google", fingerprint: keyB.fingerprint, old_record: keyB.dns.value, new_record: testing });

    // 4. A temperror on one selector leaves it untouched: no event, no change, still counted active.
    stub.setFault(msTarget, "TXT", "servfail");
    stub.setFault(`selector1._domainkey.${d}`, "TXT", "servfail");
    zone[msTarget] = "nxdomain";
    const r4 = await run(t(3));
    expect(r4.stale).toBe(false);
    expect(r4.posture).toMatchObject({ active: 2 });
    expect(r4.alerts).toEqual([]);
    rows = await selectorsOf(svc, domain.id);
    expect(rows[1]).toMatchObject({ status: "active", keyFingerprint: keyM.fingerprint, lastSeenAt: t(2) });
    expect((await eventsOf(svc, domain.id)).length).toBe(4);
    stub.setFault(msTarget, "TXT", null);
    stub.setFault(`selector1._domainkey.${d}`, "TXT", null);

    // 5. Revocation (empty p=): status revoked, key retired as revoked, dkim.key.revoked.
    zone[msTarget] = { TXT: ["v=DKIM1; k=ed25519; p="] };
    await run(t(4));
    rows = await selectorsOf(svc, domain.id);
    expect(rows[1]).toMatchObject({ status: "revoked", health: "warning", keyFingerprint: null });
    keys = await keysOf(svc, domain.id, "selector1");
    expect(keys.map((k) => [k.retiredReason, k.retiredAt])).toEqual([["revoked", t(4)]]);
    evs = await eventsOf(svc, domain.id);
    expect(evs.slice(4).map((e) => [e.type, e.data.selector, e.data.fingerprint])).toEqual([["dkim.key.revoked", "selector1", keyM.fingerprint]]);

    // 6. Removal (NXDOMAIN): missing, missing_since set once, key retired as removed, one event.
    delete zone[`google._domainkey.${d}`];
    await run(t(5));
    await run(t(6));
    rows = await selectorsOf(svc, domain.id);
    expect(rows[0]).toMatchObject({ status: "missing", health: "fail", missingSince: t(5), keyFingerprint: null, record: null, lastSeenAt: t(4) });
    keys = await keysOf(svc, domain.id, "google");
    expect(keys.map((k) => k.retiredReason)).toEqual(["rotated", "removed"]);
    evs = await eventsOf(svc, domain.id);
    expect(evs.slice(5).map((e) => [e.type, e.data.selector, e.data.fingerprint])).toEqual([["dkim.selector.removed", "google", keyB.fingerprint]]);

    // 7. Re-published later: added again, missing_since cleared.
    zone[`google._domainkey.${d}`] = { TXT: [keyA.dns.value] };
    await run(t(7));
    rows = await selectorsOf(svc, domain.id);
    expect(rows[0]).toMatchObject({ status: "active", missingSince: null, keyFingerprint: keyA.fingerprint });
    keys = await keysOf(svc, domain.id, "google");
    expect(keys.find((k) => k.fingerprint === keyA.fingerprint)).toMatchObject({ retiredAt: null, retiredReason: null, firstSeenAt: t(0), lastSeenAt: t(7) });
    evs = await eventsOf(svc, domain.id);
    expect(evs.slice(6).map((e) => e.type)).toEqual(["dkim.selector.added"]);
  });

  it("raises a dkim alert for High findings, subject dkim:<selector>", async () => {
    const svc = services();
    const domain = await insertDomain(svc, teamId);
    const key = await newKey(domain.name, "s1");
    stub = installDohStub({ [`s1._domainkey.${domain.name}`]: { TXT: [`${key.dns.value.replace("k=ed25519;", "k=ed25519; h=sha1;")}`] } });
    const r = await refreshDkimInventory(svc, domain, svc.createResolver(), { mxHosts: [], spfIncludes: [] }, t(0));
    expect(r.alerts).toEqual([
      expect.objectContaining({ kind: "dkim", subject: "dkim:s1", severity: "High", teamId, domain: { id: domain.id, name: domain.name } }),
    ]);
    expect(r.posture?.findings.map((f) => f.rule)).toContain("dkim.key.sha1_only");
    await commit(svc, r, t(0));
    expect((await selectorsOf(svc, domain.id))[0]).toMatchObject({ status: "active", health: "fail" });
  });

  it("is stale and writes nothing when no lookup answers", async () => {
    const svc = services();
    const domain = await insertDomain(svc, teamId);
    const failing: Resolver = { queriesSent: 0, query: async () => ({ kind: "temperror", reason: "all resolvers down" }) };
    const r = await refreshDkimInventory(svc, domain, failing, GOOGLE, t(0));
    expect(r).toEqual({ statements: [], events: [], alerts: [], posture: null, stale: true });
  });

  it("is stale when no key is active and some lookups failed (never claims 'no DKIM')", async () => {
    const svc = services();
    const domain = await insertDomain(svc, teamId);
    stub = installDohStub({});
    stub.setFault(`google._domainkey.${domain.name}`, "TXT", "servfail");
    const r = await refreshDkimInventory(svc, domain, svc.createResolver(), GOOGLE, t(0));
    expect(r.stale).toBe(true);
    expect(r.posture).toBeNull();
  });

  it("reports zero active keys without storing never-published candidates", async () => {
    const svc = services();
    const domain = await insertDomain(svc, teamId);
    stub = installDohStub({});
    const r = await refreshDkimInventory(svc, domain, svc.createResolver(), GOOGLE, t(0));
    expect(r).toMatchObject({ stale: false, posture: { selectors: 0, active: 0, findings: [] }, statements: [], events: [] });
  });
});
