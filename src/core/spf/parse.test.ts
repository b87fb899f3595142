// Tests for the SPF parser and macro expansion against RFC 7208 §4.5, §5, §6, §7.4 and §12. No I/O.
import { describe, expect, it } from "vitest";
import { expandMacros } from "./macro";
import { isSpfRecord, parseSpf } from "./parse";

describe("isSpfRecord (RFC 7208 §4.5)", () => {
  it("needs exactly v=spf1 followed by a space or the end", () => {
    expect(isSpfRecord("v=spf1 -all")).toBe(true);
    expect(isSpfRecord("v=spf1")).toBe(true);
    expect(isSpfRecord("V=SPF1 -all")).toBe(true);
    expect(isSpfRecord("v=spf10 -all")).toBe(false);
    expect(isSpfRecord(" v=spf1 -all")).toBe(false);
    expect(isSpfRecord("spf2.0/mfrom -all")).toBe(false);
  });
});

describe("parseSpf", () => {
  it("parses qualifiers, mechanisms and positions", () => {
    const p = parseSpf("v=spf1 a mx:mail.example.com/24 ~ip4:192.0.2.0/24 ?include:_spf.example.net -all");
    expect(p.errors).toEqual([]);
    expect(p.mechanisms.map((m) => [m.qualifier, m.name, m.position])).toEqual([
      ["+", "a", 7],
      ["+", "mx", 9],
      ["~", "ip4", 32],
      ["?", "include", 50],
      ["-", "all", 76],
    ]);
    expect(p.mechanisms[1]).toMatchObject({ domainSpec: "mail.example.com", cidr4: 24, cidr6: null });
    expect(p.mechanisms[2]).toMatchObject({ network: "192.0.2.0", cidr4: 24 });
  });

  it("parses dual-cidr-length (RFC 7208 §5.6)", () => {
    const p = parseSpf("v=spf1 a:example.com/24//64 mx//48 ip6:2001:db8::/32 -all");
    expect(p.errors).toEqual([]);
    expect(p.mechanisms[0]).toMatchObject({ domainSpec: "example.com", cidr4: 24, cidr6: 64 });
    expect(p.mechanisms[1]).toMatchObject({ domainSpec: null, cidr4: null, cidr6: 48 });
    expect(p.mechanisms[2]).toMatchObject({ network: "2001:db8::", cidr6: 32 });
  });

  it("reports a glued all (ip4:1.2.3.4~all) at the character where the space is missing", () => {
    const p = parseSpf("v=spf1 ip4:1.2.3.4~all");
    expect(p.errors).toHaveLength(1);
    expect(p.errors[0]?.position).toBe(18);
    expect(p.errors[0]?.message).toMatch(/glued/);
    expect(parseSpf("v=spf1 ip4:192.0.2.0/24-all").errors[0]?.message).toMatch(/glued/);
  });

  it("rejects unknown mechanisms, bad addresses and bad CIDR lengths with positions", () => {
    expect(parseSpf("v=spf1 foo -all").errors[0]).toMatchObject({ position: 7, term: "foo" });
    expect(parseSpf("v=spf1 ip4:192.0.2.300 -all").errors[0]?.position).toBe(11);
    expect(parseSpf("v=spf1 ip4:192.0.2.0/33 -all").errors).toHaveLength(1);
    expect(parseSpf("v=spf1 ip6:2001:db8::/129 -all").errors).toHaveLength(1);
    expect(parseSpf("v=spf1 a/33 -all").errors).toHaveLength(1);
    expect(parseSpf("v=spf1 all:x").errors).toHaveLength(1);
  });

  it("allows macros only in domain-specs (RFC 7208 §5.6, §7)", () => {
    expect(parseSpf("v=spf1 ip4:%{i} -all").errors[0]?.message).toMatch(/macros are not allowed/);
    expect(parseSpf("v=spf1 exists:%{ir}.%{v}._spf.%{d2} -all").errors).toEqual([]);
    expect(parseSpf("v=spf1 include:%{x}.example.com -all").errors[0]?.message).toMatch(/unknown macro letter/);
    expect(parseSpf("v=spf1 include:%{c}.example.com -all").errors[0]?.message).toMatch(/only in exp/);
    expect(parseSpf("v=spf1 exists:%{d0}.example.com -all").errors[0]?.message).toMatch(/nonzero/);
    expect(parseSpf("v=spf1 exists:%{i.example.com -all").errors).toHaveLength(1);
  });

  it("requires a fully qualified domain-spec ending in a valid top label (RFC 7208 §7.1)", () => {
    expect(parseSpf("v=spf1 a:192.0.2.1 -all").errors).toHaveLength(1);
    expect(parseSpf("v=spf1 include:localhost -all").errors).toHaveLength(1);
    expect(parseSpf("v=spf1 include:example.com. -all").errors).toEqual([]);
  });

  it("rejects duplicate redirect/exp (RFC 7208 §6) and keeps unknown modifiers", () => {
    expect(parseSpf("v=spf1 redirect=a.example.com redirect=b.example.com").errors[0]?.message).toMatch(/more than once/);
    const p = parseSpf("v=spf1 -all moo=bar");
    expect(p.errors).toEqual([]);
    expect(p.unknownModifiers.map((m) => m.name)).toEqual(["moo"]);
  });

  it("lists terms after all, except exp (RFC 7208 §5.1)", () => {
    const p = parseSpf("v=spf1 -all include:x.example.com exp=explain.example.com");
    expect(p.ignoredAfterAll.map((t) => t.raw)).toEqual(["include:x.example.com"]);
    expect(p.exp?.value).toBe("explain.example.com");
  });

  it("rejects a record that is not SPF without throwing", () => {
    expect(parseSpf("v=spf10 -all").errors[0]?.position).toBe(0);
    expect(parseSpf("").errors).toHaveLength(1);
  });
});

describe("macro expansion: RFC 7208 §7.4 examples", () => {
  const v4 = { sender: "strong-bad@email.example.com", ip: "192.0.2.3", helo: "mx.example.org", domain: "email.example.com" };
  const cases: [string, string][] = [
    ["%{s}", "strong-bad@email.example.com"],
    ["%{o}", "email.example.com"],
    ["%{d}", "email.example.com"],
    ["%{d4}", "email.example.com"],
    ["%{d3}", "email.example.com"],
    ["%{d2}", "example.com"],
    ["%{d1}", "com"],
    ["%{dr}", "com.example.email"],
    ["%{d2r}", "example.email"],
    ["%{l}", "strong-bad"],
    ["%{l-}", "strong.bad"],
    ["%{lr}", "strong-bad"],
    ["%{lr-}", "bad.strong"],
    ["%{l1r-}", "strong"],
    ["%{ir}.%{v}._spf.%{d2}", "3.2.0.192.in-addr._spf.example.com"],
    ["%{lr-}.lp._spf.%{d2}", "bad.strong.lp._spf.example.com"],
    ["%{lr-}.lp.%{ir}.%{v}._spf.%{d2}", "bad.strong.lp.3.2.0.192.in-addr._spf.example.com"],
    ["%{ir}.%{v}.%{l1r-}.lp._spf.%{d2}", "3.2.0.192.in-addr.strong.lp._spf.example.com"],
    ["%{d2}.trusted-domains.example.net", "example.com.trusted-domains.example.net"],
  ];
  it.each(cases)("%s → %s", (macro, expected) => {
    expect(expandMacros(macro, v4)).toEqual({ ok: true, value: expected });
  });

  it("expands IPv6 %{ir}.%{v} to nibbles (RFC 7208 §7.4)", () => {
    const r = expandMacros("%{ir}.%{v}._spf.%{d2}", { ...v4, ip: "2001:db8::cb01" });
    expect(r).toEqual({ ok: true, value: "1.0.b.c.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.8.b.d.0.1.0.0.2.ip6._spf.example.com" });
  });

  it("handles %%, %_, %- and URL-escapes uppercase letters (RFC 7208 §7.3)", () => {
    expect(expandMacros("a%%b%_c%-d", v4, true)).toEqual({ ok: true, value: "a%b c%20d" });
    expect(expandMacros("%{S}", { ...v4, sender: "a b@example.com" })).toEqual({ ok: true, value: "a%20b%40example.com" });
  });
});
