// Tests of domain-name normalisation, reverse names and IP text parsing.
import { describe, expect, it } from "vitest";
import { formatIPv6, parseIPv4, parseIPv6 } from "../ip/address";
import { normalizeDomainName } from "./names";
import { reverseName } from "./reverse";

const value = <T>(r: { ok: true; value: T } | { ok: false; error: string }): T | string => (r.ok ? r.value : `error: ${r.error}`);

describe("normalizeDomainName", () => {
  it("lower-cases, trims, strips one trailing dot", () => {
    expect(value(normalizeDomainName("  Example.COM. "))).toBe("example.com");
    expect(normalizeDomainName("example.com..").ok, "two trailing dots leave an empty label").toBe(false);
  });

  it("converts IDNs to punycode", () => {
    expect(value(normalizeDomainName("Bücher.example"))).toBe("xn--bcher-kva.example");
    expect(value(normalizeDomainName("例え.テスト"))).toBe("xn--r8jz45g.xn--zckzah");
  });

  it("allows underscores only when asked, and never in the top-level label", () => {
    expect(normalizeDomainName("_dmarc.example.com").ok).toBe(false);
    expect(value(normalizeDomainName("_dmarc.example.com", { allowUnderscore: true }))).toBe("_dmarc.example.com");
    expect(value(normalizeDomainName("s1._domainkey.example.com", { allowUnderscore: true }))).toBe("s1._domainkey.example.com");
    expect(normalizeDomainName("example._com", { allowUnderscore: true }).ok).toBe(false);
  });

  it("rejects bad labels, lengths and single labels", () => {
    const bad = [
      "",
      ".",
      "com",
      "-a.example",
      "a-.example",
      "a b.example",
      "a..example",
      `${"a".repeat(64)}.example`,
      `${"abcdefghi.".repeat(25)}example`,
      "user@example.com",
      "example.com/path",
      "example.com:443",
      "*.example.com",
    ];
    for (const name of bad) expect(normalizeDomainName(name).ok, JSON.stringify(name)).toBe(false);
    expect(value(normalizeDomainName(`${"a".repeat(63)}.example`)), "63 is the maximum label").toBe(`${"a".repeat(63)}.example`);
  });

  it("rejects IP literals, including forms URL parsers read as IPv4", () => {
    for (const ip of ["192.0.2.1", "2001:db8::1", "[2001:db8::1]", "1.2.3", "0x7f.1", "example.123"]) {
      expect(normalizeDomainName(ip).ok, ip).toBe(false);
    }
  });
});

describe("reverseName", () => {
  it("builds in-addr.arpa and ip6.arpa names (RFC 1035 §3.5, RFC 3596 §2.5)", () => {
    expect(value(reverseName("192.0.2.1"))).toBe("1.2.0.192.in-addr.arpa");
    expect(value(reverseName("2001:db8::567:89ab"))).toBe("b.a.9.8.7.6.5.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.8.b.d.0.1.0.0.2.ip6.arpa");
  });

  it("builds DNSBL query names (RFC 5782 §2.1)", () => {
    expect(value(reverseName("127.0.0.2", "zen.spamhaus.org."))).toBe("2.0.0.127.zen.spamhaus.org");
  });

  it("rejects anything that is not an address", () => {
    for (const s of ["example.com", "1.2.3", "256.1.1.1", "01.2.3.4", "1::2::3", "fe80::1%eth0"]) expect(reverseName(s).ok, s).toBe(false);
  });
});

describe("IP text", () => {
  it("parses IPv6 forms and formats them canonically", () => {
    const cases: Array<[string, string]> = [
      ["::1", "::1"],
      ["1::", "1::"],
      ["1:0:0:2:0:0:0:3", "1:0:0:2::3"],
      ["1:0:0:2:0:0:3:4", "1::2:0:0:3:4"],
      ["::ffff:1.2.3.4", "::ffff:102:304"],
      ["1:2:3:4:5:6:1.2.3.4", "1:2:3:4:5:6:102:304"],
      ["1:2:3:4:5:6:7:0", "1:2:3:4:5:6:7:0"],
    ];
    for (const [input, out] of cases) {
      const b = parseIPv6(input);
      expect(b && formatIPv6(b), input).toBe(out);
    }
    for (const bad of ["", ":", "1:2:3:4:5:6:7", "1:2:3:4:5:6:7:8:9", "12345::", "1:::2", ":1::", "1::2:", "::1.2.3", "g::1", "1:2:3:4:5:6:7::8"]) {
      expect(parseIPv6(bad), bad).toBeNull();
    }
    expect(parseIPv4("10.0.0.255")).toEqual(Uint8Array.from([10, 0, 0, 255]));
  });
});
