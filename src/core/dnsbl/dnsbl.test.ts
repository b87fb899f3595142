import { describe, expect, it } from "vitest";
import { FakeResolver } from "../../../test/support/fake-resolver";
import { blacklistFindings, checkBlacklists } from "./check";
import { defaultLists, type DnsblList, SPAMHAUS_NEEDS_DQS } from "./zones";

const lists = defaultLists();
const byZone = (z: string): DnsblList => {
  const l = lists.find((x) => x.zone === z);
  if (!l) throw new Error(`no list ${z}`);
  // As if a DQS key were set: these tests are about the answers, not about reaching Spamhaus.
  return { ...l, unavailable: undefined };
};

describe("return-code table", () => {
  it.each([
    ["zen.spamhaus.org", "127.0.0.2", "listed", "SBL"],
    ["zen.spamhaus.org", "127.0.0.4", "listed", "XBL"],
    ["zen.spamhaus.org", "127.0.0.10", "listed", "PBL"],
    ["zen.spamhaus.org", "127.255.255.254", "unknown", "public/open resolver"],
    ["zen.spamhaus.org", "127.255.255.252", "unknown", "typo"],
    ["zen.spamhaus.org", "127.255.255.255", "unknown", "excessive"],
    ["zen.spamhaus.org", "127.0.0.99", "unknown", "unrecognised"],
    ["zen.spamhaus.org", "10.0.0.1", "unknown", "outside 127"],
    ["bl.spamcop.net", "127.0.0.2", "listed", "listed"],
    ["dbl.spamhaus.org", "127.0.1.2", "listed", "low-reputation"],
    ["dbl.spamhaus.org", "127.0.1.102", "listed", "abused-legit"],
    ["dbl.spamhaus.org", "127.0.1.255", "unknown", "IP address was queried"],
    ["dbl.spamhaus.org", "127.0.0.2", "unknown", "unrecognised"],
    ["multi.surbl.org", "127.0.0.80", "listed", "SURBL MW (malware) + SURBL ABUSE"],
    ["multi.surbl.org", "127.0.0.8", "listed", "PH"],
    ["multi.uribl.com", "127.0.0.1", "unknown", "query refused"],
    ["multi.uribl.com", "127.0.0.2", "listed", "URIBL black"],
    ["multi.uribl.com", "127.0.0.14", "listed", "URIBL black + URIBL grey + URIBL red"],
  ])("%s %s -> %s (%s)", (zone, code, kind, text) => {
    const v = byZone(zone).interpret(code);
    expect(v.kind).toBe(kind);
    expect("reason" in v ? v.reason : "").toContain(text);
  });
  it("DBL abused-legit is reported as a compromised domain", async () => {
    const res = new FakeResolver({ "victim.example.dbl.spamhaus.org": { A: ["127.0.1.102"], TXT: ["https://check.spamhaus.org/"] } });
    const r = await checkBlacklists({ domain: "victim.example", ips: [] }, res, [byZone("dbl.spamhaus.org")]);
    expect(r.listed).toMatchObject([{ target: "victim.example", codes: ["127.0.1.102"], txt: "https://check.spamhaus.org/" }]);
    expect(blacklistFindings(r).map((f) => f.rule)).toEqual(["dnsbl.domain-compromised"]);
  });
});

describe("checkBlacklists", () => {
  it("queries d.c.b.a for IPv4 and nibbles for IPv6 (only where supported)", async () => {
    const res = new FakeResolver({
      "2.0.0.127.zen.spamhaus.org": { A: ["127.0.0.2", "127.0.0.4"] },
      "1.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.8.b.d.0.1.0.0.2.zen.spamhaus.org": { A: ["127.0.0.3"] },
    });
    const r = await checkBlacklists({ ips: ["127.0.0.2", "2001:db8::1"] }, res, [byZone("zen.spamhaus.org"), byZone("bl.spamcop.net")]);
    expect(r.listed.map((l) => [l.target, l.codes])).toEqual(
      expect.arrayContaining([
        ["127.0.0.2", ["127.0.0.2", "127.0.0.4"]],
        ["2001:db8::1", ["127.0.0.3"]],
      ]),
    );
    expect(r).toMatchObject({ clean: 1, checked: 3, unknown: [] });
    expect(res.log.filter((l) => l.includes("spamcop"))).toEqual(["2.0.0.127.bl.spamcop.net A"]);
  });
  it("a resolver temperror is unknown, never clean", async () => {
    const res = new FakeResolver({ "4.3.2.192.bl.spamcop.net": "temperror" });
    const r = await checkBlacklists({ ips: ["192.2.3.4"] }, res, [byZone("bl.spamcop.net")]);
    expect(r).toMatchObject({ clean: 0, checked: 1, listed: [] });
    expect(r.unknown).toHaveLength(1);
    expect(blacklistFindings(r).map((f) => f.rule)).toEqual(["dnsbl.unknown"]);
  });
  it("127.255.255.254 from a public resolver is unknown, not listed", async () => {
    const res = new FakeResolver({ "4.3.2.192.zen.spamhaus.org": { A: ["127.255.255.254"] } });
    const r = await checkBlacklists({ ips: ["192.2.3.4"] }, res, [byZone("zen.spamhaus.org")]);
    expect(r.listed).toEqual([]);
    expect(r.unknown[0]?.reason).toContain("public/open resolver");
  });
  it("an error code mixed with a listing makes the answer unknown", async () => {
    const res = new FakeResolver({ "4.3.2.192.zen.spamhaus.org": { A: ["127.0.0.2", "127.255.255.254"] } });
    const r = await checkBlacklists({ ips: ["192.2.3.4"] }, res, [byZone("zen.spamhaus.org")]);
    expect(r.listed).toEqual([]);
    expect(r.unknown).toHaveLength(1);
  });
  it("NXDOMAIN everywhere is clean; bounded concurrency; default lists", async () => {
    let inFlight = 0;
    let peak = 0;
    const inner = new FakeResolver({});
    const slow = {
      get queriesSent() {
        return inner.queriesSent;
      },
      query: async (...a: Parameters<FakeResolver["query"]>) => {
        inFlight++;
        peak = Math.max(peak, inFlight);
        await new Promise((r) => setTimeout(r, 2));
        inFlight--;
        return inner.query(...a);
      },
    } as FakeResolver;
    const r = await checkBlacklists({ domain: "example.com", ips: ["192.0.2.1", "192.0.2.2", "bogus"] }, slow, undefined, { concurrency: 3 });
    // Without a DQS key the three Spamhaus queries are unknown, never clean (docs/decisions.md D105).
    expect(r).toMatchObject({ listed: [], clean: 10, checked: 13 });
    expect(r.unknown.map((u) => u.reason)).toEqual([SPAMHAUS_NEEDS_DQS, SPAMHAUS_NEEDS_DQS, SPAMHAUS_NEEDS_DQS]);
    expect(peak).toBeLessThanOrEqual(3);
  });
  it("uses the DQS zone when a key is given", () => {
    expect(defaultLists({ spamhausDqsKey: "abc123" }).map((l) => l.zone)).toContain("abc123.zen.dq.spamhaus.net");
  });
  it("without a key, Spamhaus lists are unknown with the reason and never asked, even where a resolver would say NXDOMAIN", async () => {
    const asked: string[] = [];
    const res = new FakeResolver({});
    const spy = {
      query: (name: string, type: string) => {
        asked.push(name);
        return res.query(name, type as "A");
      },
    } as unknown as FakeResolver;
    const r = await checkBlacklists({ domain: "example.com", ips: ["192.0.2.1"] }, spy, defaultLists());
    expect(r.unknown.map((u) => [u.list, u.reason])).toEqual([
      ["Spamhaus DBL", SPAMHAUS_NEEDS_DQS],
      ["Spamhaus ZEN", SPAMHAUS_NEEDS_DQS],
    ]);
    expect(r.cleared.map((c) => c.list)).not.toContain("Spamhaus ZEN");
    expect(asked.some((n) => n.includes("spamhaus"))).toBe(false);
  });
  it("with a key, asks the DQS zone and never shows the key", async () => {
    const key = "k3yabcdefghijklmnopqrstuvw";
    const res = new FakeResolver({ [`1.2.0.192.${key}.zen.dq.spamhaus.net`]: { A: ["127.0.0.2"] } });
    const r = await checkBlacklists({ ips: ["192.0.2.1"] }, res, defaultLists({ spamhausDqsKey: key }));
    expect(r.listed).toMatchObject([{ list: "Spamhaus ZEN", zone: "zen.spamhaus.org", target: "192.0.2.1" }]);
    expect(JSON.stringify(r)).not.toContain(key);
  });
});

describe("query cap", () => {
  it("asks at most maxQueries (the domain first, then IPs in order) and says which targets were skipped", async () => {
    const ips = Array.from({ length: 30 }, (_, i) => `192.0.2.${i + 1}`);
    const res = new FakeResolver({});
    const ipLists = lists.filter((l) => l.target === "ip").length;
    const domainLists = lists.filter((l) => l.target === "domain").length;
    const r = await checkBlacklists({ domain: "example.com", ips }, res, lists, { maxQueries: 60 });
    expect(r.checked).toBe(60);
    const asked = Math.floor((60 - domainLists) / ipLists);
    expect(r.skipped[0]).toBe(ips[asked]);
    expect(r.skipped.at(-1)).toBe("192.0.2.30");
    expect(blacklistFindings(r).map((f) => f.rule)).toContain("dnsbl.capped");
    const small = await checkBlacklists({ domain: "example.com", ips: ips.slice(0, 2) }, res, lists);
    expect(small.skipped).toEqual([]);
  });
});
