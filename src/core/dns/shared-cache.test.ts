// The shared answer cache's rules against RFC 2308 (negative caching), RFC 2181 §9 (TC) and RFC 1035
// §7.4 (TTLs count down while cached): key, lifetime with floor and ceiling, ageing. No I/O.
import { describe, expect, it } from "vitest";
import { MAX_NEGATIVE_TTL } from "./answer";
import { classify, type Exchange } from "./doh-client";
import { ageMessage, cacheableTtl, ownZoneBypass, SHARED_TTL_CEILING, SHARED_TTL_FLOOR, sharedCacheKey, storedBytes } from "./shared-cache";
import { CLASS_IN, type DnsMessage, decodeResponse, encodeResponse, RCODE, type ResourceRecord, TYPE } from "./wire";

const Q = { name: "_spf.provider.example", type: TYPE.TXT, class: CLASS_IN };
const txt = (ttl: number, text = "v=spf1 ip4:192.0.2.0/24 -all"): ResourceRecord => ({
  name: Q.name,
  type: TYPE.TXT,
  class: CLASS_IN,
  ttl,
  data: { kind: "TXT", strings: [text] },
});
/** RFC 2308 §3: the SOA of the zone in the authority section of a negative answer. */
const soa = (ttl: number, minimum: number): ResourceRecord => ({
  name: "provider.example",
  type: TYPE.SOA,
  class: CLASS_IN,
  ttl,
  data: { kind: "SOA", mname: "ns1.provider.example", rname: "hostmaster.provider.example", serial: 7, refresh: 7200, retry: 900, expire: 1209600, minimum },
});

function exchange(o: { rcode?: number; answer?: ResourceRecord[]; authority?: ResourceRecord[]; tc?: boolean; ad?: boolean }): Exchange {
  const bytes = encodeResponse({
    header: { id: 0, rcode: o.rcode ?? RCODE.NOERROR, flags: { tc: o.tc ?? false, ad: o.ad ?? false } },
    question: [Q],
    answer: o.answer ?? [],
    authority: o.authority ?? [],
  });
  if (!bytes.ok) throw new Error(bytes.error);
  return classify(bytes.value, Q.name, Q.type, "test");
}

function message(ex: Exchange): DnsMessage {
  if (ex.kind === "temperror") throw new Error(ex.reason);
  return ex.message;
}

function kept(ex: Exchange): Uint8Array {
  const bytes = storedBytes(message(ex));
  if (!bytes) throw new Error("not encodable");
  return bytes;
}

describe("sharedCacheKey", () => {
  it("is one key per (name, type, DNSSEC bits asked), under a reserved host", () => {
    const via = ["https://doh.example/dns-query"];
    const key = sharedCacheKey("_spf.provider.example", "TXT", { ad: true }, via);
    expect(key).toBe("https://dns-cache.invalid/v1/TXT/_spf.provider.example?ad=1&via=https%3A%2F%2Fdoh.example%2Fdns-query");
    expect(new URL(key).hostname.endsWith(".invalid"), "RFC 6761 §6.4: never a real host").toBe(true);
    expect(sharedCacheKey("_spf.provider.example", "A", { ad: true }, via)).not.toBe(key);
    expect(sharedCacheKey("_spf.provider.example", "TXT", { ad: false }, via)).not.toBe(key);
  });

  it("names the DoH endpoints that answered, so deployments with other upstreams never share an entry", () => {
    // caches.default is one per zone: a staging Worker on the same zone, pointed at a test or filtering
    // resolver (DOH_RESOLVERS), must not serve its answers to production's checks, nor the reverse.
    const prod = ["https://cloudflare-dns.com/dns-query", "https://dns.google/dns-query"];
    const key = sharedCacheKey("_spf.provider.example", "TXT", { ad: true }, prod);
    expect(key).not.toBe(sharedCacheKey("_spf.provider.example", "TXT", { ad: true }, ["https://doh.staging.test/dns-query"]));
    expect(key).not.toBe(sharedCacheKey("_spf.provider.example", "TXT", { ad: true }, prod.slice(0, 1)));
    expect(key, "the order they are tried in does not change the answers").toBe(
      sharedCacheKey("_spf.provider.example", "TXT", { ad: true }, [...prod].reverse()),
    );
    expect(new URL(key).hostname).toBe("dns-cache.invalid");
    expect(new URL(key).searchParams.get("ad")).toBe("1");
  });

  it("escapes octets a presentation name may hold, so two names never share a key", () => {
    const via = ["https://doh.example/dns-query"];
    expect(sharedCacheKey("a\\032b.example", "TXT", { ad: true }, via)).not.toBe(sharedCacheKey("a.b.example", "TXT", { ad: true }, via));
    expect(sharedCacheKey("x/y?.example", "TXT", { ad: true }, via)).toMatch(/^https:\/\/dns-cache\.invalid\/v1\/TXT\/x%2Fy%3F\.example\?ad=1&/);
  });
});

describe("cacheableTtl", () => {
  it("keeps a positive answer for its smallest record TTL", () => {
    expect(cacheableTtl(exchange({ answer: [txt(300), txt(120, "other")] }))).toBe(120);
  });

  it("keeps nothing below the floor rather than longer than the record's TTL", () => {
    expect(cacheableTtl(exchange({ answer: [txt(SHARED_TTL_FLOOR - 1)] }))).toBe(0);
    expect(cacheableTtl(exchange({ answer: [txt(SHARED_TTL_FLOOR)] }))).toBe(SHARED_TTL_FLOOR);
    expect(cacheableTtl(exchange({ answer: [txt(0)] }))).toBe(0);
  });

  it("caps a long TTL at the ceiling", () => {
    expect(cacheableTtl(exchange({ answer: [txt(86400)] }))).toBe(SHARED_TTL_CEILING);
  });

  it("keeps NXDOMAIN and NODATA for min(SOA TTL, SOA MINIMUM), capped (RFC 2308 §5)", () => {
    expect(cacheableTtl(exchange({ rcode: RCODE.NXDOMAIN, authority: [soa(3600, 45)] })), "MINIMUM smaller").toBe(45);
    expect(cacheableTtl(exchange({ authority: [soa(40, 600)] })), "NODATA, SOA TTL smaller").toBe(40);
    expect(cacheableTtl(exchange({ rcode: RCODE.NXDOMAIN, authority: [soa(3600, 3600)] })), "service cap").toBe(MAX_NEGATIVE_TTL);
  });

  it("keeps a NODATA or NXDOMAIN reached through a CNAME no longer than its negative TTL nor the alias's TTL (RFC 2308 §5)", () => {
    // What a recursive resolver answers when the alias exists but its target has no TXT (NODATA) or
    // does not exist (NXDOMAIN, RFC 6604 §2): the CNAME in the answer, the target zone's SOA in the authority.
    const alias = (ttl: number): ResourceRecord => ({
      name: Q.name,
      type: TYPE.CNAME,
      class: CLASS_IN,
      ttl,
      data: { kind: "CNAME", target: "spf.host.example" },
    });
    const nodata = exchange({ answer: [alias(3600)], authority: [soa(3600, 45)] });
    expect(nodata.kind, "an answer section that holds only the alias").toBe("records");
    expect(cacheableTtl(nodata), "NODATA at the target: the negative TTL, not the alias's hour").toBe(45);
    expect(cacheableTtl(exchange({ answer: [alias(3600)], authority: [soa(3600, 3600)] })), "service cap").toBe(MAX_NEGATIVE_TTL);
    expect(cacheableTtl(exchange({ rcode: RCODE.NXDOMAIN, answer: [alias(40)], authority: [soa(3600, 3600)] })), "NXDOMAIN: the alias's shorter TTL").toBe(40);
    // Without an SOA the server did not chase the alias: the answer is the alias alone, true for its own
    // TTL (the resolver asks for the target itself).
    expect(cacheableTtl(exchange({ answer: [alias(600)] }))).toBe(600);
    // The type asked for is there: a positive answer, whatever else the authority section holds.
    expect(cacheableTtl(exchange({ answer: [alias(600), { ...txt(300), name: "spf.host.example" }], authority: [soa(3600, 45)] }))).toBe(300);
  });

  it("never keeps a negative answer without an SOA (RFC 2308 §5)", () => {
    expect(cacheableTtl(exchange({ rcode: RCODE.NXDOMAIN }))).toBe(0);
    expect(cacheableTtl(exchange({}))).toBe(0);
  });

  it("never keeps SERVFAIL, a timeout or a truncated answer", () => {
    const servfail = exchange({ rcode: RCODE.SERVFAIL, authority: [soa(3600, 300)] });
    expect(servfail.kind).toBe("temperror");
    expect(cacheableTtl(servfail)).toBe(0);
    expect(cacheableTtl({ kind: "temperror", reason: "timeout after 2500 ms", cause: "network" })).toBe(0);
    // RFC 2181 §9: a TC answer may lack records; classify already refuses it, and so does the cache
    // even for a message that reached it some other way.
    const truncated = exchange({ answer: [txt(300)], tc: true });
    expect(truncated.kind).toBe("temperror");
    const tcMessage = message(exchange({ answer: [txt(300)] }));
    expect(cacheableTtl({ kind: "records", message: { ...tcMessage, header: { ...tcMessage.header, flags: { ...tcMessage.header.flags, tc: true } } } })).toBe(
      0,
    );
  });
});

describe("ageMessage", () => {
  const t0 = Date.UTC(2026, 10, 28, 12, 0, 0);

  it("lowers every answer TTL by the age, as a resolver serving from its cache does", () => {
    const bytes = kept(exchange({ answer: [txt(300), txt(200, "other")], ad: true }));
    const aged = ageMessage(bytes, t0, t0 + 50_500);
    expect(aged?.answer.map((r) => r.ttl)).toEqual([150, 150]);
    expect(aged?.header.flags.ad, "the AD bit is kept").toBe(true);
    expect(aged?.answer[0]?.data).toEqual({ kind: "TXT", strings: ["v=spf1 ip4:192.0.2.0/24 -all"] });
  });

  it("is a miss once the answer's TTL has passed, and for a stamp in the future", () => {
    const bytes = kept(exchange({ answer: [txt(120)] }));
    expect(ageMessage(bytes, t0, t0 + 119_999)).not.toBeNull();
    expect(ageMessage(bytes, t0, t0 + 120_000)).toBeNull();
    expect(ageMessage(bytes, t0, t0 - 1_000), "a clock that went back").toBeNull();
  });

  it("caps TTLs at what is left of a ceiling-capped entry", () => {
    const bytes = kept(exchange({ answer: [txt(86400)] }));
    expect(ageMessage(bytes, t0, t0 + 600_000)?.answer[0]?.ttl).toBe(SHARED_TTL_CEILING - 600);
    expect(ageMessage(bytes, t0, t0 + SHARED_TTL_CEILING * 1000)).toBeNull();
  });

  it("ages a negative answer's SOA so that its remaining negative TTL is what is left (RFC 2308 §5)", () => {
    const bytes = kept(exchange({ rcode: RCODE.NXDOMAIN, authority: [soa(3600, 50)] }));
    const aged = ageMessage(bytes, t0, t0 + 20_000);
    expect(aged?.header.rcode).toBe(RCODE.NXDOMAIN);
    expect(aged?.authority[0]?.ttl).toBe(30);
    expect(ageMessage(bytes, t0, t0 + 50_000)).toBeNull();
  });

  it("keeps no additional section and id 0, and is a miss for bytes that are not a message", () => {
    const decoded = decodeResponse(kept(exchange({ answer: [txt(300)] })));
    expect(decoded.ok && decoded.value.additional).toEqual([]);
    expect(decoded.ok && decoded.value.header.id).toBe(0);
    expect(ageMessage(new Uint8Array([1, 2, 3]), t0, t0)).toBeNull();
  });
});

describe("ownZoneBypass", () => {
  it("covers the zone and every name under it, and nothing else", () => {
    const bypass = ownZoneBypass("Acme.Example.");
    expect(bypass("acme.example")).toBe(true);
    expect(bypass("_dmarc.acme.example")).toBe(true);
    expect(bypass("selector1._domainkey.acme.example")).toBe(true);
    expect(bypass("notacme.example")).toBe(false);
    expect(bypass("_spf.provider.example")).toBe(false);
  });

  it("covers the policy records a subdomain's check reads above it: DMARC's tree walk and BIMI's fallback", () => {
    // RFC 9989 §4.10: a subdomain without its own record takes the policy at _dmarc.<ancestor>, and BIMI
    // falls back to <selector>._bimi.<organizational domain>; the check reports and compares those.
    const bypass = ownZoneBypass("mail.eu.acme.example");
    expect(bypass("_dmarc.eu.acme.example")).toBe(true);
    expect(bypass("_dmarc.acme.example")).toBe(true);
    expect(bypass("default._bimi.acme.example")).toBe(true);
    expect(bypass("brand._bimi.eu.acme.example")).toBe(true);
    // A top-level domain's record (a public suffix's, RFC 9989 psd=y) is the registry's, shared by every
    // domain under it, and no edit of the owner's.
    expect(bypass("_dmarc.example")).toBe(false);
    // Only the walk's own names: not other names of the ancestors, nor a sibling's records.
    expect(bypass("acme.example")).toBe(false);
    expect(bypass("_spf.acme.example")).toBe(false);
    expect(bypass("_dmarc.other.acme.example")).toBe(false);
    expect(bypass("x.default._bimi.acme.example")).toBe(false);
  });
});
