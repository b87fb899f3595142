// Tests for the static SPF analysis: lookup counting, tree, networks, status and findings (RFC 7208, checkdmarc behaviour). No real I/O.
import { describe, expect, it } from "vitest";
import { FakeResolver, type Zone } from "../../../test/support/fake-resolver";
import { analyzeSpf } from "./analyze";

const analyze = (zone: Zone, domain = "example.com") => analyzeSpf(domain, new FakeResolver(zone));
const rules = (a: { findings: { rule: string }[] }) => a.findings.map((f) => f.rule);

describe("analyzeSpf", () => {
  it("counts lookups per term through includes and flattens networks", async () => {
    const a = await analyze({
      "example.com": {
        TXT: ["v=spf1 ip4:192.0.2.0/24 a mx include:_spf.example.net -all"],
        A: ["198.51.100.7"],
        MX: [{ preference: 10, exchange: "mx.example.com" }],
      },
      "mx.example.com": { A: ["198.51.100.25"], AAAA: ["2001:db8::25"] },
      "_spf.example.net": { TXT: ["v=spf1 ip6:2001:db8:1::/48 include:more.example.net ~all"] },
      "more.example.net": { TXT: ["v=spf1 ip4:203.0.113.0/25 -all"] },
    });
    expect(a.status).toBe("pass-able");
    expect(a.lookups.total).toBe(4);
    expect(a.lookups.byTerm.map((t) => [t.term, t.lookups])).toEqual([
      ["ip4:192.0.2.0/24", 0],
      ["a", 1],
      ["mx", 1],
      ["include:_spf.example.net", 2],
      ["-all", 0],
    ]);
    expect(a.lookups.byTerm[3]?.child?.record).toBe("v=spf1 ip6:2001:db8:1::/48 include:more.example.net ~all");
    expect(a.networks.map((n) => n.cidr)).toEqual([
      "192.0.2.0/24",
      "198.51.100.7/32",
      "198.51.100.25/32",
      "2001:db8::25/128",
      "2001:db8:1::/48",
      "203.0.113.0/25",
    ]);
    expect(rules(a)).toEqual([]);
  });

  it("exactly 10 lookups via include and redirect is pass-able but nearly spent; 11 is permerror", async () => {
    const zone = (n: number): Zone => {
      const z: Zone = {
        "example.com": { TXT: ["v=spf1 include:inc.example.com redirect=red.example.com"] },
        "inc.example.com": { TXT: ["v=spf1 a:h1.example.com a:h2.example.com a:h3.example.com -all"] },
        "red.example.com": { TXT: [`v=spf1 ${Array.from({ length: n }, (_, i) => `a:h${i + 4}.example.com`).join(" ")} -all`] },
      };
      // AAAA too, so no IPv6 sender meets a void lookup and only the lookup count is under test.
      for (let i = 1; i <= n + 3; i++) z[`h${i}.example.com`] = { A: [`198.51.100.${i}`], AAAA: [`2001:db8::${i}`] };
      return z;
    };
    const ten = await analyze(zone(5));
    expect([ten.status, ten.lookups.total]).toEqual(["pass-able", 10]);
    expect(rules(ten)).toContain("spf.lookup-nearly-spent");
    const eleven = await analyze(zone(6));
    expect([eleven.status, eleven.lookups.total]).toEqual(["permerror", 11]);
    expect(rules(eleven)).toContain("spf.lookup-limit");
  });

  it("two void lookups warn; three are permerror", async () => {
    const zone = (n: number): Zone => ({ "example.com": { TXT: [`v=spf1 ${Array.from({ length: n }, (_, i) => `a:v${i}.example.com`).join(" ")} -all`] } });
    const two = await analyze(zone(2));
    expect([two.status, two.voidLookups, rules(two)]).toEqual(["pass-able", 2, ["spf.void-lookup"]]);
    const three = await analyze(zone(3));
    expect([three.status, rules(three)]).toEqual(["permerror", ["spf.void-lookup-limit"]]);
  });

  it("counts void lookups per address family: an a term on a name with only A records is void for IPv6 senders (RFC 7208 §4.6.4)", async () => {
    const zone = (n: number): Zone => {
      const z: Zone = { "example.com": { TXT: [`v=spf1 ${Array.from({ length: n }, (_, i) => `a:h${i}.example.com`).join(" ")} -all`] } };
      for (let i = 0; i < n; i++) z[`h${i}.example.com`] = { A: ["192.0.2.1"] };
      return z;
    };
    const three = await analyze(zone(3));
    expect([three.status, three.voidLookupsByFamily, three.voidLookups]).toEqual(["permerror", { ipv4: 0, ipv6: 3 }, 3]);
    const limit = three.findings.find((f) => f.rule === "spf.void-lookup-limit");
    expect(limit?.description).toMatch(/every IPv6 sender/);
    const two = await analyze(zone(2));
    expect([two.status, rules(two)]).toEqual(["pass-able", ["spf.void-lookup"]]);
    expect(two.findings[0]?.description).toMatch(/0 lookup\(s\) for IPv4 senders and 2 for IPv6 senders/);
    // A name with both families, or an exists term (always an A query), counts the same for both.
    const both = await analyze({
      "example.com": { TXT: ["v=spf1 a:dual.example.com exists:gone.example.com -all"] },
      "dual.example.com": { A: ["192.0.2.1"], AAAA: ["2001:db8::1"] },
    });
    expect(both.voidLookupsByFamily).toEqual({ ipv4: 1, ipv6: 1 });
  });

  it("a temperror in an include gives status temperror naming the include, never permerror", async () => {
    const a = await analyze({ "example.com": { TXT: ["v=spf1 include:a.example.net include:gone.example.net -all"] }, "a.example.net": "temperror" });
    expect(a.status).toBe("temperror");
    expect(a.temperror?.at).toMatch(/a\.example\.net/);
    expect(rules(a)).toContain("spf.temperror");
  });

  it("include of a domain without SPF is permerror (RFC 7208 §5.2), counted as void", async () => {
    const a = await analyze({ "example.com": { TXT: ["v=spf1 include:nospf.example.net -all"] } });
    expect(a.status).toBe("permerror");
    expect(a.voidLookups).toBe(1);
    expect(rules(a)).toContain("spf.include-no-record");
  });

  it("multiple records, none, SPF RR type and Sender ID leftovers", async () => {
    expect((await analyze({ "example.com": { TXT: ["v=spf1 -all", "v=spf1 mx -all"] } })).status).toBe("permerror");
    const none = await analyze({ "example.com": { A: ["192.0.2.1"] } });
    expect([none.status, rules(none)]).toEqual(["none", ["spf.none"]]);
    const legacy = await analyze({ "example.com": { TXT: ["v=spf1 -all", "spf2.0/mfrom,pra -all"], SPF: ["v=spf1 -all"] } });
    expect(rules(legacy)).toEqual(["spf.rr-type-99", "spf.sender-id"]);
  });

  it("flags +all, ?all and missing all with mechanical fixes", async () => {
    const plus = await analyze({ "example.com": { TXT: ["v=spf1 ip4:192.0.2.1 +all"] } });
    expect(plus.findings.find((f) => f.rule === "spf.all-pass")).toMatchObject({ severity: "Critical", fix: "v=spf1 ip4:192.0.2.1 ~all" });
    const q = await analyze({ "example.com": { TXT: ["v=spf1 ip4:192.0.2.1 ?all"] } });
    expect(q.findings.find((f) => f.rule === "spf.all-neutral")?.fix).toBe("v=spf1 ip4:192.0.2.1 ~all");
    const missing = await analyze({ "example.com": { TXT: ["v=spf1 ip4:192.0.2.1"] } });
    expect(missing.fix).toBe("v=spf1 ip4:192.0.2.1 ~all");
    const soft = await analyze({ "example.com": { TXT: ["v=spf1 ip4:192.0.2.1 ~all"] } });
    expect(soft.findings.find((f) => f.rule === "spf.all-softfail")?.fix).toBe("v=spf1 ip4:192.0.2.1 -all");
  });

  it("uses the all of a redirect target", async () => {
    const a = await analyze({ "example.com": { TXT: ["v=spf1 redirect=_spf.example.net"] }, "_spf.example.net": { TXT: ["v=spf1 +all"] } });
    expect(rules(a)).toEqual(["spf.all-pass"]);
  });

  it("reports a glued all with a fix that inserts the space", async () => {
    const a = await analyze({ "example.com": { TXT: ["v=spf1 ip4:1.2.3.4~all"] } });
    expect(a.status).toBe("permerror");
    expect(a.findings.find((f) => f.rule === "spf.syntax.glued-term")).toMatchObject({ fix: "v=spf1 ip4:1.2.3.4 ~all" });
    expect(a.fix).toBe("v=spf1 ip4:1.2.3.4 ~all");
  });

  it("counts a %{i} macro as one dynamic lookup without expanding it", async () => {
    const a = await analyze({ "example.com": { TXT: ["v=spf1 include:%{i}._ip.%{h}._ehlo.%{d}._spf.vali.email -all"] } });
    expect(a.lookups.total).toBe(1);
    expect(a.dynamic).toHaveLength(1);
    expect(a.lookups.byTerm[0]?.dynamic).toBe(true);
    expect(a.status).toBe("pass-able");
  });

  it("ptr, redirect with all, terms after all, duplicate includes, loops", async () => {
    const z: Zone = {
      "example.com": { TXT: ["v=spf1 ptr include:x.example.net include:x.example.net -all a redirect=y.example.net"] },
      "x.example.net": { TXT: ["v=spf1 ip4:192.0.2.1 -all"] },
    };
    const a = await analyze(z);
    expect(rules(a)).toEqual(expect.arrayContaining(["spf.ptr", "spf.redirect-ignored", "spf.terms-after-all", "spf.duplicate-include"]));
    expect(a.fix).toBe("v=spf1 ptr include:x.example.net -all");
    const loop = await analyze({
      "example.com": { TXT: ["v=spf1 include:b.example.com -all"] },
      "b.example.com": { TXT: ["v=spf1 include:example.com -all"] },
    });
    expect([loop.status, rules(loop)]).toEqual(["permerror", ["spf.loop"]]);
  });

  it("more than 10 MX hosts is permerror; their A lookups are not counted toward 10", async () => {
    const mx = (n: number) => Array.from({ length: n }, (_, i) => ({ preference: i, exchange: `mx${i}.example.com` }));
    const zone = (n: number): Zone => {
      const z: Zone = { "example.com": { TXT: ["v=spf1 mx -all"], MX: mx(n) } };
      for (let i = 0; i < n; i++) z[`mx${i}.example.com`] = { A: [`192.0.2.${i + 1}`] };
      return z;
    };
    const ten = await analyze(zone(10));
    expect([ten.status, ten.lookups.total, ten.networks.length]).toEqual(["pass-able", 1, 10]);
    expect((await analyze(zone(11))).status).toBe("permerror");
  });

  it("warns on records over 450 bytes (RFC 7208 §3.4)", async () => {
    const long = `v=spf1 ${Array.from({ length: 30 }, (_, i) => `ip4:198.51.100.${i}`).join(" ")} -all`;
    expect(rules(await analyze({ "example.com": { TXT: [long] } }))).toContain("spf.record-length");
  });
});
