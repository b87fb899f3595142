// Tests for SPF flattening on hand-built zones: the big platforms' nested includes, duplicates, macros,
// exists, qualifiers, loops, the include chain and change detection (RFC 7208 §4.6.4, §5.2). No real I/O.
import { describe, expect, it } from "vitest";
import { FakeResolver, type Zone } from "../../../test/support/fake-resolver";
import { publish, referenceCheck } from "../../../test/support/spf-zone";
import { analyzeSpf } from "./analyze";
import { evaluateSpf } from "./evaluate";
import { flattenedChanged, flattenSpf, type SpfFlattening, splitTxtStrings } from "./flatten";

const flatten = async (zone: Zone, domain = "example.com", opts = {}) => flattenSpf(await analyzeSpf(domain, new FakeResolver(zone)), opts);
const okOf = (r: SpfFlattening) => {
  if (!r.ok) throw new Error(`expected ok, got: ${r.reason}`);
  return r;
};
const octets = (s: string) => new TextEncoder().encode(s).length;

/** The big platforms' records, nested as they publish them (addresses from the documentation ranges). */
const PLATFORMS: Zone = {
  "_spf.google.com": { TXT: ["v=spf1 include:_netblocks.google.com include:_netblocks2.google.com include:_netblocks3.google.com ~all"] },
  "_netblocks.google.com": { TXT: ["v=spf1 ip4:35.190.247.0/24 ip4:64.233.160.0/19 ip4:66.102.0.0/20 ip4:66.249.80.0/20 ip4:72.14.192.0/18 ~all"] },
  "_netblocks2.google.com": { TXT: ["v=spf1 ip6:2001:4860:4000::/36 ip6:2404:6800:4000::/36 ip6:2607:f8b0:4000::/36 ~all"] },
  "_netblocks3.google.com": { TXT: ["v=spf1 ip4:172.217.0.0/19 ip4:172.217.32.0/20 ip4:172.217.128.0/19 ~all"] },
  "spf.protection.outlook.com": {
    TXT: ["v=spf1 ip4:40.92.0.0/15 ip4:40.107.0.0/16 ip4:52.100.0.0/14 ip6:2a01:111:f400::/48 include:spfd.protection.outlook.com -all"],
  },
  "spfd.protection.outlook.com": { TXT: ["v=spf1 ip4:51.4.72.0/24 ip4:51.5.72.0/24 ip4:51.5.80.0/27 -all"] },
  "sendgrid.net": { TXT: ["v=spf1 ip4:167.89.0.0/17 ip4:208.117.48.0/20 ip4:50.31.32.0/19 ip4:198.37.144.0/20 ~all"] },
  "servers.mcsv.net": { TXT: ["v=spf1 ip4:205.201.128.0/20 ip4:198.2.128.0/18 ip4:148.105.8.0/21 ?all"] },
  "mail.zendesk.com": { TXT: ["v=spf1 include:_spf1.zendesk.com include:_spf2.zendesk.com ~all"] },
  "_spf1.zendesk.com": { TXT: ["v=spf1 ip4:192.161.144.0/20 ip4:185.12.80.0/22 ip4:188.172.128.0/20 -all"] },
  "_spf2.zendesk.com": { TXT: ["v=spf1 ip4:216.198.0.0/18 ip4:52.192.0.0/16 -all"] },
};

const bigZone = (record: string): Zone => ({
  ...PLATFORMS,
  "example.com": {
    TXT: [record, "google-site-verification=abc"],
    A: ["192.0.2.10"],
    AAAA: ["2001:db8::10"],
    MX: [{ preference: 10, exchange: "mx1.example.com" }],
  },
  "mx1.example.com": { A: ["192.0.2.25"], AAAA: ["2001:db8::25"] },
});

const SAMPLES = [
  "35.190.247.1",
  "64.233.191.255",
  "2607:f8b0:4000::1",
  "40.93.255.255",
  "51.5.80.31",
  "51.5.80.32",
  "167.89.12.1",
  "205.201.140.5",
  "216.198.63.255",
  "188.172.130.7",
  "192.0.2.10",
  "192.0.2.25",
  "2001:db8::10",
  "192.0.2.99",
  "203.0.113.5",
  "2001:db8::99",
];

/** check_host() on the new records gives every sample what the original meant to give it. */
async function expectSameResults(zone: Zone, result: Extract<SpfFlattening, { ok: true }>, domain = "example.com", samples = SAMPLES) {
  const after = new FakeResolver(publish(zone, result.records));
  for (const ip of samples) {
    const now = await evaluateSpf(ip, domain, `user@${domain}`, after);
    expect([ip, now.result]).toEqual([ip, referenceCheck(ip, domain, zone)]);
  }
}

function expectWithinLimits(r: Extract<SpfFlattening, { ok: true }>, max = 512) {
  expect(r.lookups).toBeLessThanOrEqual(10);
  expect(r.voidLookups.ipv4).toBeLessThanOrEqual(2);
  expect(r.voidLookups.ipv6).toBeLessThanOrEqual(2);
  for (const rec of r.records) {
    expect(octets(rec.value)).toBeLessThanOrEqual(max);
    expect(rec.strings.join("")).toBe(rec.value);
    for (const s of rec.strings) expect(octets(s)).toBeLessThanOrEqual(255);
  }
}

describe("flattenSpf", () => {
  const OVER =
    "v=spf1 a mx include:_spf.google.com include:spf.protection.outlook.com include:sendgrid.net include:servers.mcsv.net include:mail.zendesk.com ~all";

  it("flattens a record over the limit with the big platforms' includes into records within every limit", async () => {
    const zone = bigZone(OVER);
    const before = await analyzeSpf("example.com", new FakeResolver(zone));
    expect([before.status, before.lookups.total]).toEqual(["permerror", 13]);
    const r = okOf(flattenSpf(before));
    expectWithinLimits(r);
    // The costliest include goes first (google: 4 lookups), which is enough; the rest stay includes.
    expect(r.flattened.map((f) => f.include)).toEqual(["_spf.google.com"]);
    expect(r.flattened[0]?.cidrs).toContain("2607:f8b0:4000::/36");
    expect(r.records[0]?.host).toBe("example.com");
    expect(r.records[0]?.value).toMatch(/^v=spf1 a mx ip4:/);
    expect(r.records[0]?.value).toMatch(/include:spf\.protection\.outlook\.com include:sendgrid\.net include:servers\.mcsv\.net .*~all$/);
    expect(r.kept).toEqual(["a", "mx", "include:spf.protection.outlook.com", "include:sendgrid.net", "include:servers.mcsv.net", "include:mail.zendesk.com"]);
    expect(r.lookups).toBe(9);
    expect(r.steps.some((s) => s.startsWith("flattened include:_spf.google.com"))).toBe(true);
    await expectSameResults(zone, r);
    const after = await analyzeSpf("example.com", new FakeResolver(publish(zone, r.records)));
    expect([after.status, after.lookups.total]).toEqual(["pass-able", r.lookups]);
  });

  it("takes a lower lookup budget and a shorter record length when asked", async () => {
    const zone = bigZone(OVER);
    const r = okOf(await flatten(zone, "example.com", { maxLookups: 7, maxRecordOctets: 450 }));
    expectWithinLimits(r, 450);
    expect(r.lookups).toBeLessThanOrEqual(7);
    expect(r.flattened.map((f) => f.include)).toEqual(["_spf.google.com", "mail.zendesk.com"]);
    await expectSameResults(zone, r);
    const tight = await flatten(
      bigZone("v=spf1 a exists:%{i}.a.example.net exists:%{i}.b.example.net exists:%{i}.c.example.net exists:%{i}.d.example.net include:_spf.google.com -all"),
      "example.com",
      {
        maxLookups: 3,
      },
    );
    expect(tight.ok ? "" : tight.reason).toMatch(
      /^even with every include that can be listed flattened, the record still needs 4 DNS-querying terms \(limit 3\)/,
    );
  });

  it("keeps each record within 512 octets by splitting the networks into an include chain, each link counted", async () => {
    const many = Array.from({ length: 60 }, (_, i) => `ip4:198.18.${i * 4}.0/23`).join(" ");
    const zone: Zone = {
      ...bigZone(
        "v=spf1 include:big.example.net include:_spf.google.com include:spf.protection.outlook.com include:sendgrid.net include:mail.zendesk.com include:servers.mcsv.net -all",
      ),
      "big.example.net": { TXT: [`v=spf1 ${many} include:more.example.net -all`] },
      "more.example.net": { TXT: ["v=spf1 include:most.example.net -all"] },
      "most.example.net": { TXT: ["v=spf1 include:deep.example.net -all"] },
      "deep.example.net": { TXT: ["v=spf1 include:deeper.example.net -all"] },
      "deeper.example.net": { TXT: ["v=spf1 ip6:2001:db8:aaaa::/48 -all"] },
    };
    const r = okOf(await flatten(zone));
    expectWithinLimits(r);
    const chain = r.records.slice(1);
    expect(chain.length).toBeGreaterThan(0);
    expect(chain.map((c) => c.host)).toEqual(chain.map((_, i) => `_spf${i + 1}.example.com`));
    for (const c of chain) {
      expect(r.records[0]?.value).toContain(`include:${c.host}`);
      expect(c.value).toMatch(/^v=spf1 ip[46]:/);
      expect(c.value).not.toMatch(/all/);
    }
    // 16 lookups: big.example.net (5) and google (4) are flattened, 7 stay (outlook 2, sendgrid 1,
    // zendesk 3, mailchimp 1), and each chain link costs one more.
    expect(r.flattened.map((f) => f.include)).toEqual(["big.example.net", "_spf.google.com"]);
    expect(r.lookups).toBe(7 + chain.length);
    await expectSameResults(zone, r, "example.com", [...SAMPLES, "198.18.0.1", "198.18.237.255", "198.18.238.0", "198.18.239.255", "2001:db8:aaaa::5"]);
  });

  it("flattens a record of 20 provider includes too long for the length limit even before it is over the lookup limit of its own terms", async () => {
    const names = Array.from({ length: 20 }, (_, i) => `_spf.provider-number-${i}.example.net`);
    const zone: Zone = { "example.com": { TXT: [`v=spf1 ${names.map((n) => `include:${n}`).join(" ")} ~all`] } };
    names.forEach((n, i) => {
      zone[n] = { TXT: [`v=spf1 ip4:198.18.${i}.0/24 ip6:2001:db8:${i.toString(16)}::/48 -all`] };
    });
    expect(octets((zone["example.com"] as { TXT: string[] }).TXT[0] ?? "")).toBeGreaterThan(512);
    const r = okOf(await flatten(zone, "example.com", { maxLookups: 7, maxRecordOctets: 450 }));
    expectWithinLimits(r, 450);
    expect(r.lookups).toBeLessThanOrEqual(7);
    const published = publish(zone, r.records);
    for (const [ip, want] of [
      ["198.18.0.1", "pass"],
      ["2001:db8:13::1", "pass"],
      ["192.0.2.1", "softfail"],
    ] as const) {
      expect((await evaluateSpf(ip, "example.com", "a@example.com", new FakeResolver(published))).result, `${ip}`).toBe(want);
    }
  });

  it("drops duplicated and nested includes and stops there when that is enough", async () => {
    const zone = bigZone(
      "v=spf1 include:_spf.google.com include:sendgrid.net include:_netblocks.google.com include:spf.protection.outlook.com include:sendgrid.net include:mail.zendesk.com ~all",
    );
    const r = okOf(await flatten(zone));
    expect(r.flattened).toEqual([]);
    expect(r.records).toHaveLength(1);
    expect(r.records[0]?.value).toBe("v=spf1 include:_spf.google.com include:sendgrid.net include:spf.protection.outlook.com include:mail.zendesk.com ~all");
    expect(r.steps).toEqual([
      "dropped include:_netblocks.google.com (also inside include:_spf.google.com)",
      "dropped include:sendgrid.net (a duplicate: include:sendgrid.net comes earlier)",
    ]);
    expect(r.lookups).toBe(10);
    await expectSameResults(zone, r);
  });

  it("drops an include that a later include contains when only pass terms lie between", async () => {
    const zone = bigZone("v=spf1 include:_netblocks3.google.com ip4:192.0.2.1 include:_spf.google.com -all");
    const r = okOf(await flatten(zone));
    expect(r.records[0]?.value).toBe("v=spf1 ip4:192.0.2.1 include:_spf.google.com -all");
    // Not across a non-pass term: -ip4 would now catch senders the first include passed.
    const kept = okOf(await flatten(bigZone("v=spf1 include:_netblocks3.google.com -ip4:172.217.0.0/24 include:_spf.google.com -all")));
    expect(kept.records[0]?.value).toBe("v=spf1 include:_netblocks3.google.com -ip4:172.217.0.0/24 include:_spf.google.com -all");
  });

  it("changes nothing in a record within the limits", async () => {
    const r = okOf(await flatten(bigZone("v=spf1 mx include:sendgrid.net -all")));
    expect(r.records).toEqual([{ host: "example.com", value: "v=spf1 mx include:sendgrid.net -all", strings: ["v=spf1 mx include:sendgrid.net -all"] }]);
    expect(r.steps[0]).toMatch(/^nothing to change/);
  });

  it("keeps macro includes, exists and ptr as written and counts them", async () => {
    const zone: Zone = {
      ...bigZone(
        "v=spf1 include:%{i}._ip.%{h}._ehlo.%{d}._spf.vali.email exists:%{i}._spf.mta.example.net include:_spf.google.com include:mail.zendesk.com include:spf.protection.outlook.com include:sendgrid.net ~all",
      ),
    };
    const r = okOf(await flatten(zone));
    expectWithinLimits(r);
    expect(r.kept).toContain("exists:%{i}._spf.mta.example.net");
    expect(r.kept).toContain("include:%{i}._ip.%{h}._ehlo.%{d}._spf.vali.email");
    expect(r.records[0]?.value).toMatch(/^v=spf1 include:%\{i\}\._ip\.%\{h\}\._ehlo\.%\{d\}\._spf\.vali\.email exists:%\{i\}\._spf\.mta\.example\.net ip4:/);
  });

  it("hoists a message-macro term out of a flattened include when nothing non-pass precedes it", async () => {
    const zone: Zone = {
      ...bigZone("v=spf1 include:esp.example.net include:_spf.google.com include:mail.zendesk.com include:spf.protection.outlook.com -all"),
      "esp.example.net": { TXT: ["v=spf1 ip4:198.51.100.0/24 exists:%{i}.wl.esp.example.net include:_spf.google.com include:mail.zendesk.com -all"] },
    };
    const r = okOf(await flatten(zone));
    expectWithinLimits(r);
    expect(r.kept).toContain("exists:%{i}.wl.esp.example.net");
    expect(r.flattened.map((f) => f.include)).toContain("esp.example.net");
  });

  it("keeps an include whose record puts a non-pass term before a term known only per message, and says why", async () => {
    const zone: Zone = {
      ...bigZone(
        `v=spf1 include:esp.example.net ${"include:sendgrid.net ".repeat(1)}include:_spf.google.com include:mail.zendesk.com include:spf.protection.outlook.com -all`,
      ),
      "esp.example.net": { TXT: ["v=spf1 -ip4:198.51.100.7 exists:%{i}.wl.esp.example.net include:servers.mcsv.net include:sendgrid.net -all"] },
    };
    const r = okOf(await flatten(zone));
    expectWithinLimits(r);
    expect(r.flattened.map((f) => f.include)).not.toContain("esp.example.net");
    expect(r.steps.find((s) => s.startsWith("kept include:esp.example.net"))).toMatch(/known only per message/);
  });

  it("subtracts an included record's -ip4 and ~ip4 terms from the networks it passes", async () => {
    const zone: Zone = {
      ...bigZone("v=spf1 include:esp.example.net include:_spf.google.com include:mail.zendesk.com include:spf.protection.outlook.com -all"),
      "esp.example.net": {
        TXT: [
          "v=spf1 -ip4:198.51.100.7 ~ip4:198.51.100.128/25 ip4:198.51.100.0/24 ip6:::ffff:203.0.113.9 include:_spf.google.com include:mail.zendesk.com -all",
        ],
      },
    };
    const r = okOf(await flatten(zone));
    expect(r.flattened.find((f) => f.include === "esp.example.net")?.cidrs.filter((c) => c.startsWith("198.51.100."))).toEqual([
      "198.51.100.0/30",
      "198.51.100.4/31",
      "198.51.100.6/32",
      "198.51.100.8/29",
      "198.51.100.16/28",
      "198.51.100.32/27",
      "198.51.100.64/26",
    ]);
    // An IPv4-mapped ip6: network is the IPv4 address, as check_host() reads it.
    expect(r.flattened.find((f) => f.include === "esp.example.net")?.cidrs).toContain("203.0.113.9/32");
    await expectSameResults(zone, r, "example.com", [
      ...SAMPLES,
      "198.51.100.6",
      "198.51.100.7",
      "198.51.100.8",
      "198.51.100.127",
      "198.51.100.128",
      "203.0.113.9",
      "203.0.113.10",
    ]);
  });

  it("follows a redirect= inside an include and keeps the include's own qualifier on the networks", async () => {
    const zone: Zone = {
      ...bigZone(
        "v=spf1 ~include:esp.example.net include:_spf.google.com include:mail.zendesk.com include:spf.protection.outlook.com include:sendgrid.net -all",
      ),
      "esp.example.net": { TXT: ["v=spf1 ip4:198.51.100.0/28 redirect=_spf.esp.example.net"] },
      "_spf.esp.example.net": { TXT: ["v=spf1 -ip4:198.51.100.0/24 ip4:203.0.113.0/24 include:servers.mcsv.net include:sendgrid.net -all"] },
    };
    const r = okOf(await flatten(zone));
    expectWithinLimits(r);
    expect(r.records[0]?.value).toContain("~ip4:198.51.100.0/28");
    expect(r.records[0]?.value).toContain("~ip4:203.0.113.0/24");
    await expectSameResults(zone, r, "example.com", [...SAMPLES, "198.51.100.1", "198.51.100.17", "203.0.113.200"]);
  });

  it("flattens the domain's own a/mx only when the includes are not enough", async () => {
    const hosts = Array.from({ length: 9 }, (_, i) => `h${i}.example.com`);
    const zone: Zone = {
      ...bigZone(`v=spf1 a mx ${hosts.map((h) => `a:${h}`).join(" ")} include:_spf.google.com -all`),
      ...Object.fromEntries(hosts.map((h, i) => [h, { A: [`192.0.2.${40 + i}`], AAAA: [`2001:db8::${40 + i}`] }])),
    };
    const r = okOf(await flatten(zone));
    expectWithinLimits(r);
    // 11 own + 4 for google: flattening google leaves 11, so the first own term goes too.
    expect(r.flattened.map((f) => f.include)).toEqual(["_spf.google.com"]);
    expect(r.kept).toEqual(["mx", ...hosts.map((h) => `a:${h}`)]);
    expect(r.steps).toContain("replaced a with the addresses it has now: 2 networks (1 DNS lookup fewer)");
    await expectSameResults(zone, r);
    const voids: Zone = {
      ...zone,
      "example.com": { ...(zone["example.com"] as object), TXT: ["v=spf1 a:v1.example.com a:v2.example.com a:v3.example.com mx -all"] },
    };
    const v = okOf(await flatten(voids));
    expect(v.voidLookups).toEqual({ ipv4: 2, ipv6: 2 });
    expect(v.steps.some((s) => s.startsWith("replaced a:v1.example.com with the addresses it has now: 0 networks"))).toBe(true);
  });

  it("refuses a loop, naming the term, and an include without a record", async () => {
    const loop = await flatten({ ...bigZone("v=spf1 include:a.example.net -all"), "a.example.net": { TXT: ["v=spf1 include:example.com -all"] } });
    expect(loop).toEqual({
      ok: false,
      reason: expect.stringMatching(/^include:example\.com in a\.example\.net, reached through include:a\.example\.net in example\.com loops back/),
    });
    const missing = await flatten(bigZone("v=spf1 include:gone.example.net include:_spf.google.com -all"));
    expect(missing).toEqual({
      ok: false,
      reason: expect.stringMatching(/^include:gone\.example\.net in example\.com names gone\.example\.net, which has no SPF record: remove the term/),
    });
    const syntax = await flatten(bigZone("v=spf1 include:_spf.google.com ip4:300.1.1.1 -all"));
    expect(syntax.ok ? "" : syntax.reason).toMatch(/^syntax error in the SPF record of example\.com at character/);
    const two = await flatten({ ...PLATFORMS, "example.com": { TXT: ["v=spf1 -all", "v=spf1 mx -all"] } });
    expect(two.ok ? "" : two.reason).toMatch(/publishes 2 SPF records/);
  });

  it("says why when even full flattening stays over the limit", async () => {
    const dyn = Array.from({ length: 11 }, (_, i) => `exists:%{i}.l${i}.example.net`).join(" ");
    const r = await flatten(bigZone(`v=spf1 ${dyn} include:_spf.google.com -all`));
    // 11 exists terms, and one chain link: google's networks no longer fit beside them in 512 octets.
    expect(r.ok ? "" : r.reason).toMatch(/still needs 12 DNS-querying terms \(limit 10\).*what stays: exists:%\{i\}\.l0\.example\.net \(1 lookup\)/);
  });
});

describe("splitTxtStrings", () => {
  it("cuts at 255 octets, after a space where it can, and joins back to the value", () => {
    const value = `v=spf1 ${Array.from({ length: 40 }, (_, i) => `ip4:198.51.${i}.0/24`).join(" ")} -all`;
    const parts = splitTxtStrings(value);
    expect(parts.length).toBeGreaterThan(1);
    expect(parts.join("")).toBe(value);
    for (const p of parts) expect(octets(p)).toBeLessThanOrEqual(255);
    expect(parts[1]).toMatch(/^ip4:/);
    expect(splitTxtStrings("v=spf1 -all")).toEqual(["v=spf1 -all"]);
    expect(splitTxtStrings("x".repeat(600)).map((s) => s.length)).toEqual([255, 255, 90]);
  });
});

describe("flattenedChanged", () => {
  it("reports networks a flattened include added or retired since", async () => {
    const zone = bigZone("v=spf1 include:sendgrid.net -all");
    const r = okOf(flattenSpf(await analyzeSpf("example.com", new FakeResolver(zone)), {}));
    expect(r.flattened).toEqual([]);
    const previous = [{ include: "sendgrid.net", cidrs: ["167.89.0.0/17", "208.117.48.0/20", "50.31.32.0/19", "198.37.144.0/20"] }];
    expect(flattenedChanged(previous, await analyzeSpf("sendgrid.net", new FakeResolver(zone)))).toEqual([]);
    const moved: Zone = { ...zone, "sendgrid.net": { TXT: ["v=spf1 ip4:167.89.0.0/16 ip4:208.117.48.0/20 ip4:50.31.32.0/19 ~all"] } };
    expect(flattenedChanged(previous, await analyzeSpf("example.com", new FakeResolver(moved)))).toEqual([
      { include: "sendgrid.net", added: ["167.89.128.0/17"], removed: ["198.37.144.0/20"] },
    ]);
    expect(flattenedChanged([{ include: "other.example.org", cidrs: [] }], await analyzeSpf("example.com", new FakeResolver(moved)))).toEqual([]);
  });
});
