// Tests for check_host(): RFC 7208 Appendix A examples, limits (§4.6.4), include/redirect and errors. No real I/O.
import { describe, expect, it } from "vitest";
import { FakeResolver, type Zone } from "../../../test/support/fake-resolver";
import { installDohStub, type StubZone } from "../../../test/support/doh-stub";
import { DohResolver, globalFetch } from "../dns/doh-resolver";
import { evaluateSpf } from "./evaluate";

/** The RFC 7208 Appendix A zone. */
const appendixA = (spf: string): Zone => ({
  "example.com": {
    TXT: [spf],
    MX: [
      { preference: 10, exchange: "mail-a.example.com" },
      { preference: 20, exchange: "mail-b.example.com" },
    ],
    A: ["192.0.2.10", "192.0.2.11"],
  },
  "amy.example.com": { A: ["192.0.2.65"] },
  "bob.example.com": { A: ["192.0.2.66"] },
  "mail-a.example.com": { A: ["192.0.2.129"] },
  "mail-b.example.com": { A: ["192.0.2.130"] },
  "www.example.com": { CNAME: ["example.com"] },
  "example.org": { MX: [{ preference: 10, exchange: "mail-c.example.org" }] },
  "mail-c.example.org": { A: ["192.0.2.140"] },
  "10.2.0.192.in-addr.arpa": { PTR: ["example.com"] },
  "11.2.0.192.in-addr.arpa": { PTR: ["example.com"] },
  "65.2.0.192.in-addr.arpa": { PTR: ["amy.example.com"] },
  "66.2.0.192.in-addr.arpa": { PTR: ["bob.example.com"] },
  "129.2.0.192.in-addr.arpa": { PTR: ["mail-a.example.com"] },
  "130.2.0.192.in-addr.arpa": { PTR: ["mail-b.example.com"] },
  "140.2.0.192.in-addr.arpa": { PTR: ["mail-c.example.org"] },
  "4.0.0.10.in-addr.arpa": { PTR: ["bob.example.com"] },
});

async function results(spf: string, ips: string[]): Promise<string[]> {
  const out: string[] = [];
  for (const ip of ips) out.push((await evaluateSpf(ip, "example.com", "user@example.com", new FakeResolver(appendixA(spf)))).result);
  return out;
}

describe("RFC 7208 Appendix A.1 simple examples", () => {
  const ips = ["192.0.2.10", "192.0.2.65", "192.0.2.129", "192.0.2.140", "10.0.0.4"];
  it("v=spf1 +all passes everything", async () => {
    expect(await results("v=spf1 +all", ips)).toEqual(["pass", "pass", "pass", "pass", "pass"]);
  });
  it("v=spf1 a -all passes 192.0.2.10 and .11", async () => {
    expect(await results("v=spf1 a -all", ["192.0.2.10", "192.0.2.11", "192.0.2.65"])).toEqual(["pass", "pass", "fail"]);
  });
  it("v=spf1 a:example.org -all passes nothing (no A records)", async () => {
    expect(await results("v=spf1 a:example.org -all", ips)).toEqual(["fail", "fail", "fail", "fail", "fail"]);
  });
  it("v=spf1 mx -all passes 192.0.2.129 and .130", async () => {
    expect(await results("v=spf1 mx -all", ["192.0.2.129", "192.0.2.130", "192.0.2.10"])).toEqual(["pass", "pass", "fail"]);
  });
  it("v=spf1 mx:example.org -all passes 192.0.2.140", async () => {
    expect(await results("v=spf1 mx:example.org -all", ["192.0.2.140", "192.0.2.129"])).toEqual(["pass", "fail"]);
  });
  it("v=spf1 mx mx:example.org -all passes .129, .130 and .140", async () => {
    expect(await results("v=spf1 mx mx:example.org -all", ["192.0.2.129", "192.0.2.130", "192.0.2.140", "192.0.2.65"])).toEqual([
      "pass",
      "pass",
      "pass",
      "fail",
    ]);
  });
  it("v=spf1 mx/30 mx:example.org/30 -all passes 192.0.2.128/30 and 192.0.2.140/30", async () => {
    expect(await results("v=spf1 mx/30 mx:example.org/30 -all", ["192.0.2.131", "192.0.2.128", "192.0.2.143", "192.0.2.132"])).toEqual([
      "pass",
      "pass",
      "pass",
      "fail",
    ]);
  });
  it("v=spf1 ptr -all: validated names in example.com pass; mail-c.example.org and 10.0.0.4 fail", async () => {
    expect(await results("v=spf1 ptr -all", ["192.0.2.65", "192.0.2.140", "10.0.0.4"])).toEqual(["pass", "fail", "fail"]);
  });
  it("v=spf1 ip4:192.0.2.128/28 -all passes .129 but not .65", async () => {
    expect(await results("v=spf1 ip4:192.0.2.128/28 -all", ["192.0.2.65", "192.0.2.129"])).toEqual(["fail", "pass"]);
  });
});

describe("check_host() details", () => {
  const run = (zone: Zone, ip = "192.0.2.3", domain = "example.com") => evaluateSpf(ip, domain, `user@${domain}`, new FakeResolver(zone));

  it("maps qualifiers to results and defaults to neutral (RFC 7208 §4.7)", async () => {
    expect((await run({ "example.com": { TXT: ["v=spf1 ~all"] } })).result).toBe("softfail");
    expect((await run({ "example.com": { TXT: ["v=spf1 ?all"] } })).result).toBe("neutral");
    expect((await run({ "example.com": { TXT: ["v=spf1 ip4:198.51.100.1"] } })).result).toBe("neutral");
  });

  it("returns none without a record and permerror with two (RFC 7208 §4.5)", async () => {
    expect((await run({ "example.com": { TXT: ["google-site-verification=x"] } })).result).toBe("none");
    expect((await run({})).result).toBe("none");
    expect((await run({ "example.com": { TXT: ["v=spf1 -all", "v=spf1 +all"] } })).result).toBe("permerror");
  });

  it("matches IPv6 with ip6 and AAAA, and never ip4 for an IPv6 client", async () => {
    const zone: Zone = {
      "example.com": { TXT: ["v=spf1 ip4:0.0.0.0/0 ip6:2001:db8::/32 a:h.example.com//64 -all"] },
      "h.example.com": { AAAA: ["2001:db9::1"] },
    };
    expect((await run(zone, "2001:db8::1")).result).toBe("pass");
    expect((await run(zone, "2001:db9::ffff")).result).toBe("pass");
    expect((await run(zone, "2001:dba::1")).result).toBe("fail");
  });

  it("evaluates exists with macros (RFC 7208 §5.7, §7.4)", async () => {
    const zone: Zone = { "example.com": { TXT: ["v=spf1 exists:%{ir}.%{v}._spf.%{d} -all"] }, "3.2.0.192.in-addr._spf.example.com": { A: ["127.0.0.2"] } };
    expect((await run(zone)).result).toBe("pass");
    expect((await run(zone, "192.0.2.4")).result).toBe("fail");
  });

  it("maps include results per RFC 7208 §5.2", async () => {
    const base = (inc: string): Zone => ({ "example.com": { TXT: ["v=spf1 include:inc.example.net -all"] }, "inc.example.net": { TXT: [inc] } });
    expect((await run(base("v=spf1 ip4:192.0.2.3 -all"))).result).toBe("pass");
    expect((await run(base("v=spf1 +all"))).mechanism).toBe("include:inc.example.net");
    expect((await run(base("v=spf1 ~all"))).result).toBe("fail"); // softfail inside an include is "no match"
    expect((await run(base("v=spf1 ip4:bad -all"))).result).toBe("permerror");
    expect((await run({ "example.com": { TXT: ["v=spf1 include:nospf.example.net -all"] }, "nospf.example.net": { A: ["192.0.2.1"] } })).result).toBe(
      "permerror",
    );
  });

  it("returns temperror, not permerror, when an include's TXT lookup fails", async () => {
    const r = await run({ "example.com": { TXT: ["v=spf1 include:inc.example.net -all"] }, "inc.example.net": "temperror" });
    expect(r.result).toBe("temperror");
    expect(r.reason).toMatch(/inc\.example\.net/);
    expect((await run({ "example.com": "temperror" })).result).toBe("temperror");
  });

  it("follows redirect only without all, and a redirect target without SPF is permerror (RFC 7208 §6.1)", async () => {
    expect((await run({ "example.com": { TXT: ["v=spf1 redirect=r.example.net"] }, "r.example.net": { TXT: ["v=spf1 ip4:192.0.2.3 -all"] } })).result).toBe(
      "pass",
    );
    expect((await run({ "example.com": { TXT: ["v=spf1 ?all redirect=r.example.net"] }, "r.example.net": { TXT: ["v=spf1 +all"] } })).result).toBe("neutral");
    expect((await run({ "example.com": { TXT: ["v=spf1 redirect=r.example.net"] } })).result).toBe("permerror");
  });

  it("adds the exp= explanation to a fail (RFC 7208 §6.2)", async () => {
    const r = await run({
      "example.com": { TXT: ["v=spf1 -all exp=explain.example.com"] },
      "explain.example.com": { TXT: ["%{i} is not one of %{d}'s designated mail servers."] },
    });
    expect(r.result).toBe("fail");
    expect(r.explanation).toBe("192.0.2.3 is not one of example.com's designated mail servers.");
  });
});

describe("limits (RFC 7208 §4.6.4)", () => {
  /** root: include + redirect (2), include target: 3 a terms, redirect target: n a terms. */
  const chain = (n: number): Zone => {
    const zone: Zone = {
      "example.com": { TXT: ["v=spf1 include:inc.example.com redirect=red.example.com"] },
      "inc.example.com": { TXT: ["v=spf1 a:h1.example.com a:h2.example.com a:h3.example.com -all"] },
      "red.example.com": { TXT: [`v=spf1 ${Array.from({ length: n }, (_, i) => `a:h${i + 4}.example.com`).join(" ")} -all`] },
    };
    for (let i = 1; i <= n + 3; i++) zone[`h${i}.example.com`] = { A: ["198.51.100.1"] };
    return zone;
  };
  it("exactly 10 DNS-querying terms through include and redirect is fine; 11 is permerror", async () => {
    const ten = await evaluateSpf("192.0.2.3", "example.com", "u@example.com", new FakeResolver(chain(5)));
    expect([ten.result, ten.lookups]).toEqual(["fail", 10]);
    const eleven = await evaluateSpf("192.0.2.3", "example.com", "u@example.com", new FakeResolver(chain(6)));
    expect(eleven.result).toBe("permerror");
  });

  it("two void lookups are fine; the third is permerror", async () => {
    const zone = (n: number): Zone => ({ "example.com": { TXT: [`v=spf1 ${Array.from({ length: n }, (_, i) => `a:v${i}.example.com`).join(" ")} -all`] } });
    const two = await evaluateSpf("192.0.2.3", "example.com", "u@example.com", new FakeResolver(zone(2)));
    expect([two.result, two.voidLookups]).toEqual(["fail", 2]);
    expect((await evaluateSpf("192.0.2.3", "example.com", "u@example.com", new FakeResolver(zone(3)))).result).toBe("permerror");
  });

  it("more than 10 MX hosts is permerror for mx", async () => {
    const mx = Array.from({ length: 11 }, (_, i) => ({ preference: i, exchange: `mx${i}.example.com` }));
    const r = await evaluateSpf("192.0.2.3", "example.com", "u@example.com", new FakeResolver({ "example.com": { TXT: ["v=spf1 mx -all"], MX: mx } }));
    expect(r.result).toBe("permerror");
  });

  it("an include loop ends in permerror", async () => {
    const r = await evaluateSpf(
      "192.0.2.3",
      "a.example",
      "u@a.example",
      new FakeResolver({ "a.example": { TXT: ["v=spf1 include:b.example -all"] }, "b.example": { TXT: ["v=spf1 include:a.example -all"] } }),
    );
    expect(r.result).toBe("permerror");
  });

  it("a bad IP or malformed domain never throws", async () => {
    expect((await evaluateSpf("nonsense", "example.com", "u@example.com", new FakeResolver({}))).result).toBe("permerror");
    expect((await evaluateSpf("192.0.2.1", "localhost", "u@localhost", new FakeResolver({}))).result).toBe("none");
  });
});

describe("target names that cannot be queried (RFC 7208 §4.8, §2.6.6), through the real DoH resolver", () => {
  const doh = (zone: StubZone): DohResolver => {
    installDohStub(zone);
    return new DohResolver({ endpoints: ["https://doh.test/dns-query"], fetch: globalFetch, timeoutMs: 100 });
  };
  const check = (spf: string, sender = "user@example.com", extra: StubZone = {}) =>
    evaluateSpf("192.0.2.3", "example.com", sender, doh({ "example.com": { TXT: [spf] }, ...extra }));

  it("an empty label is no match, not temperror", async () => {
    for (const mech of ["a:foo..example.com", "mx:foo..example.com", "exists:foo..example.com"]) {
      const r = await check(`v=spf1 ${mech} -all`);
      expect([mech, r.result, r.voidLookups]).toEqual([mech, "fail", 0]);
    }
  });

  it("a label over 63 octets produced by a macro is no match, not temperror", async () => {
    const r = await check("v=spf1 a:%{l}.example.com ?all", `${"x".repeat(64)}@example.com`);
    expect([r.result, r.mechanism]).toEqual(["neutral", "?all"]);
  });

  it("include of a name that cannot be queried is permerror (the target has no record, §5.2)", async () => {
    expect((await check("v=spf1 include:%{l}.example.com -all", `${"x".repeat(64)}@example.com`)).result).toBe("permerror");
  });

  it("a name with a space (%_, RFC 7208 §7.1) is queried and matches", async () => {
    const r = await check("v=spf1 a:macro%_space.example.com -all", "user@example.com", { "macro\\032space.example.com": { A: ["192.0.2.3"] } });
    expect([r.result, r.mechanism]).toEqual(["pass", "a:macro%_space.example.com"]);
  });
});

describe("%{p}, the validated name (RFC 7208 §7.3)", () => {
  const zone = (ptrs: string[]): Zone => {
    const z: Zone = {
      "example.com": { TXT: ["v=spf1 -all exp=why.example.com"] },
      "why.example.com": { TXT: ["connect from %{p}"] },
      "3.2.0.192.in-addr.arpa": { PTR: ptrs },
    };
    for (const n of ptrs) {
      const existing = z[n];
      z[n] = { ...(typeof existing === "object" ? existing : {}), A: ["192.0.2.3"] };
    }
    return z;
  };
  const explanation = async (ptrs: string[]) => (await evaluateSpf("192.0.2.3", "example.com", "u@example.com", new FakeResolver(zone(ptrs)))).explanation;

  it("expands in an explanation to a validated name, not unknown", async () => {
    expect(await explanation(["mail.example.net"])).toBe("connect from mail.example.net");
  });

  it("prefers the target domain, then a subdomain of it, over other names", async () => {
    expect(await explanation(["mail.example.net", "mx.example.com", "example.com"])).toBe("connect from example.com");
    expect(await explanation(["mail.example.net", "mx.example.com"])).toBe("connect from mx.example.com");
  });

  it("is unknown when no PTR name validates", async () => {
    const z = zone(["mail.example.net"]);
    z["mail.example.net"] = { A: ["198.51.100.1"] };
    expect((await evaluateSpf("192.0.2.3", "example.com", "u@example.com", new FakeResolver(z))).explanation).toBe("connect from unknown");
  });

  it("picks per current domain inside an include", async () => {
    const z = zone(["mx.example.com", "mx.example.net"]);
    z["example.com"] = { TXT: ["v=spf1 include:example.net -all"] };
    z["example.net"] = { TXT: ["v=spf1 exists:%{p}.ok.example.net -all"] };
    z["mx.example.net.ok.example.net"] = { A: ["127.0.0.2"] };
    expect((await evaluateSpf("192.0.2.3", "example.com", "u@example.com", new FakeResolver(z))).result).toBe("pass");
  });
});

describe("the lookup path through include and redirect", () => {
  const zone: Zone = {
    "example.com": { TXT: ["v=spf1 include:a.example.com include:b.example.com redirect=r.example.com"] },
    "a.example.com": { TXT: ["v=spf1 ip4:198.51.100.0/24 -all"] },
    "b.example.com": { TXT: ["v=spf1 ip4:203.0.113.0/24 ?all"] },
    "r.example.com": { TXT: ["v=spf1 ip4:192.0.2.0/24 ~all"] },
  };
  const steps = async (ip: string, z: Zone = zone) =>
    (await evaluateSpf(ip, "example.com", "u@example.com", new FakeResolver(z))).path.map((p) => [p.domain, p.via, p.term, p.result]);

  it("records every record evaluated, the term that led there and the term that decided it", async () => {
    const r = await evaluateSpf("203.0.113.9", "example.com", "u@example.com", new FakeResolver(zone));
    expect([r.result, r.mechanism, r.domain]).toEqual(["pass", "include:b.example.com", "example.com"]);
    expect(r.path[0]?.record).toBe("v=spf1 include:a.example.com include:b.example.com redirect=r.example.com");
    expect(await steps("203.0.113.9")).toEqual([
      ["example.com", null, "include:b.example.com", "pass"],
      ["a.example.com", "include:a.example.com", "-all", "fail"],
      ["b.example.com", "include:b.example.com", "ip4:203.0.113.0/24", "pass"],
    ]);
  });

  it("follows redirect= when nothing matched; the redirect target decides", async () => {
    expect(await steps("192.0.2.1")).toEqual([
      ["example.com", null, "redirect=r.example.com", "pass"],
      ["a.example.com", "include:a.example.com", "-all", "fail"],
      ["b.example.com", "include:b.example.com", "?all", "neutral"],
      ["r.example.com", "redirect=r.example.com", "ip4:192.0.2.0/24", "pass"],
    ]);
  });

  it("an error marks every unfinished step and names the term it stopped at", async () => {
    const broken: Zone = { ...zone, "b.example.com": { TXT: ["v=spf1 a:gone.example.com -all"] }, "gone.example.com": "temperror" };
    expect(await steps("192.0.2.1", broken)).toEqual([
      ["example.com", null, "include:b.example.com", "temperror"],
      ["a.example.com", "include:a.example.com", "-all", "fail"],
      ["b.example.com", "include:b.example.com", "a:gone.example.com", "temperror"],
    ]);
    const missing: Zone = { ...zone, "b.example.com": "nxdomain" };
    const r = await evaluateSpf("192.0.2.1", "example.com", "u@example.com", new FakeResolver(missing));
    expect(r.result).toBe("permerror");
    expect(r.path.map((p) => [p.domain, p.record, p.result])).toEqual([
      ["example.com", "v=spf1 include:a.example.com include:b.example.com redirect=r.example.com", "permerror"],
      ["a.example.com", "v=spf1 ip4:198.51.100.0/24 -all", "fail"],
      ["b.example.com", null, "none"],
    ]);
  });
});
