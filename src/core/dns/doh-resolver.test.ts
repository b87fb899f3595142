// Tests of DohResolver against the RFC 8484 stub: fallback, verdicts, de-duplication, cache, CNAMEs.
import { describe, expect, it, vi } from "vitest";
import { type DohStub, type DohStubOptions, installDohStub, type StubFault, type StubZone } from "../../../test/support/doh-stub";
import { DohResolver, globalFetch, parseResolverList } from "./doh-resolver";
import { CAPTURED_CNAME_A, DKIM_KEY } from "../../../test/fixtures/dns";

const A = "https://a.test/dns-query";
const B = "https://b.test/dns-query";
const zone: StubZone = {
  "example.com": {
    A: ["192.0.2.1"],
    MX: [{ preference: 10, exchange: "MX1.Example.com." }],
    TXT: ["v=spf1 -all", ["google-site-", "verification=abc"]],
  },
  "s1._domainkey.example.com": { TXT: [DKIM_KEY] },
  "www.example.com": { CNAME: "cdn.example.net", ttl: 30 },
  "cdn.example.net": { A: ["198.51.100.7"], TXT: ["cdn"], ttl: 120 },
  "dangling.example.com": { CNAME: "gone.example.net" },
  "gone.example.com": "nxdomain",
  "loop1.example.com": { CNAME: "loop2.example.com" },
  "loop2.example.com": { CNAME: "loop1.example.com" },
};
for (let i = 0; i < 10; i++) zone[`hop${i}.example.com`] = { CNAME: `hop${i + 1}.example.com` };
zone["hop10.example.com"] = { TXT: ["end"] };

let stub: DohStub | undefined;
const setup = (opts: DohStubOptions = {}, r: Partial<ConstructorParameters<typeof DohResolver>[0]> = {}) => {
  stub = installDohStub(zone, opts);
  return { stub, resolver: new DohResolver({ endpoints: [A, B], fetch: globalFetch, timeoutMs: 50, ...r }) };
};

describe("answers", () => {
  it("returns records with the RRset TTL; MX names normalized; TXT strings joined per record", async () => {
    const { resolver } = setup();
    expect(await resolver.query("Example.COM.", "A")).toEqual({ kind: "records", records: ["192.0.2.1"], ttl: 300, chain: [] });
    const mx = await resolver.query("example.com", "MX");
    expect(mx.kind === "records" && mx.records).toEqual([{ preference: 10, exchange: "mx1.example.com" }]);
    const txt = await resolver.query("example.com", "TXT");
    expect(txt.kind === "records" && txt.records, "two records stay two; strings joined without a space").toEqual([
      "v=spf1 -all",
      "google-site-verification=abc",
    ]);
    const dkim = await resolver.query("s1._domainkey.example.com", "TXT");
    expect(dkim.kind === "records" && dkim.records).toEqual([DKIM_KEY]);
  });

  it("keeps NXDOMAIN and NODATA apart", async () => {
    const { resolver } = setup();
    expect(await resolver.query("missing.example.com", "TXT")).toEqual({ kind: "nxdomain", chain: [] });
    expect(await resolver.query("gone.example.com", "A")).toEqual({ kind: "nxdomain", chain: [] });
    expect(await resolver.query("example.com", "AAAA")).toEqual({ kind: "nodata", chain: [] });
  });

  it("takes a definitive answer from the first endpoint without asking the second", async () => {
    const { resolver, stub } = setup();
    await resolver.query("missing.example.com", "A");
    expect(stub.queries.map((q) => q.endpoint)).toEqual([A]);
    expect(resolver.queriesSent).toBe(1);
  });
});

describe("names compared in wire form (RFC 4343 §3)", () => {
  // The SPF %_ macro expands to a space (RFC 7208 §7.1); the decoder presents that octet as \032.
  const spaced: StubZone = {
    "macro\\032space.example.com": { A: ["192.0.2.9"], TXT: ["v=spf1 -all"] },
    "alias\\032name.example.com": { CNAME: "target\\032name.example.com" },
    "target\\032name.example.com": { A: ["192.0.2.10"] },
  };
  const resolverFor = () => {
    const stub = installDohStub(spaced);
    return { stub, resolver: new DohResolver({ endpoints: [A], fetch: globalFetch, timeoutMs: 50 }) };
  };

  it("accepts the echoed question of a name with a space, which comes back as \\032", async () => {
    const { resolver } = resolverFor();
    expect(await resolver.query("macro space.example.com", "A")).toEqual({ kind: "records", records: ["192.0.2.9"], ttl: 300, chain: [] });
    expect(await resolver.query("MACRO SPACE.Example.COM.", "TXT")).toMatchObject({ kind: "records", records: ["v=spf1 -all"] });
  });

  it("treats the escaped and unescaped spelling as one name (one query, one cache entry)", async () => {
    const { resolver, stub } = resolverFor();
    await resolver.query("macro space.example.com", "A");
    await resolver.query("macro\\032space.example.com", "A");
    expect(stub.queries).toHaveLength(1);
  });

  it("follows a CNAME chain through names with spaces", async () => {
    const { resolver } = resolverFor();
    const r = await resolver.query("alias name.example.com", "A");
    expect(r).toMatchObject({ kind: "records", records: ["192.0.2.10"], chain: ["target\\032name.example.com"] });
  });
});

describe("failures", () => {
  const faults: StubFault[] = ["servfail", "refused", "timeout", "http-500", "garbage", "wrong-id", "truncated"];
  for (const fault of faults) {
    it(`falls back to the second endpoint on ${fault}`, async () => {
      const { resolver, stub } = setup();
      stub.setFault("example.com", "TXT", fault, { endpoint: "a.test" });
      const r = await resolver.query("example.com", "TXT");
      expect(r.kind, `answer after ${fault} on the first endpoint`).toBe("records");
      expect(stub.queries.map((q) => q.endpoint)).toEqual([A, B]);
      expect(resolver.queriesSent, "failed attempts count as sent").toBe(2);
    });

    it(`reports ${fault} on every endpoint as temperror, never as absent`, async () => {
      const { resolver, stub } = setup();
      // On a name that does not exist, too: a failure must not leak out as nxdomain.
      for (const name of ["example.com", "missing.example.com"]) stub.setFault(name, "TXT", fault);
      for (const name of ["example.com", "missing.example.com"]) {
        const r = await resolver.query(name, "TXT");
        expect(r.kind, `${fault} on ${name}`).toBe("temperror");
      }
    });
  }

  it("does not cache a temperror", async () => {
    const { resolver, stub } = setup();
    stub.setFault("example.com", "A", "servfail", { times: 2 });
    expect((await resolver.query("example.com", "A")).kind).toBe("temperror");
    expect((await resolver.query("example.com", "A")).kind).toBe("records");
    expect(resolver.queriesSent).toBe(3);
  });

  it("after a timeout asks the slow endpoint last for the rest of the instance", async () => {
    const { resolver, stub } = setup();
    stub.setFault("example.com", "A", "timeout", { endpoint: "a.test" });
    await resolver.query("example.com", "A");
    await resolver.query("example.com", "MX");
    expect(stub.queries.map((q) => `${q.type}@${new URL(q.endpoint).host}`)).toEqual(["A@a.test", "A@b.test", "MX@b.test"]);
  });

  it("an invalid name is a temperror and sends nothing", async () => {
    const { resolver } = setup();
    expect((await resolver.query(`${"x".repeat(70)}.example.com`, "A")).kind).toBe("temperror");
    expect(resolver.queriesSent).toBe(0);
  });

  it("a shared cache that never answers is a miss after the request timeout, not a lookup that never ends", async () => {
    const warn = vi.spyOn(console, "warn").mockImplementation(() => undefined);
    const never = () => new Promise<never>(() => undefined);
    const { resolver, stub } = setup({}, { shared: { cache: { get: never, put: never } } });
    const within = <T>(p: Promise<T>) => Promise.race([p, new Promise<"hung">((resolve) => setTimeout(() => resolve("hung"), 1000))]);
    expect(await within(resolver.query("example.com", "A"))).toMatchObject({ kind: "records", records: ["192.0.2.1"] });
    expect(await within(resolver.settled()), "the write that never ends is given up too").toBeUndefined();
    expect(stub.queries).toHaveLength(1);
    expect(warn).toHaveBeenCalledTimes(1);
    warn.mockRestore();
  });

  it("a failure while chasing a CNAME is a temperror, not nodata", async () => {
    const { resolver, stub } = setup({ followCnames: false });
    stub.setFault("cdn.example.net", "TXT", "servfail");
    expect((await resolver.query("www.example.com", "TXT")).kind).toBe("temperror");
  });
});

describe("de-duplication and cache", () => {
  it("sends one request for two concurrent identical queries", async () => {
    const { resolver, stub } = setup({ delayMs: 20 });
    const [x, y] = await Promise.all([resolver.query("example.com", "A"), resolver.query("EXAMPLE.com.", "A")]);
    expect(x).toEqual(y);
    expect(resolver.queriesSent, "in-flight query shared").toBe(1);
    expect(stub.queries).toHaveLength(1);
  });

  it("answers from the cache within the TTL and asks again after it", async () => {
    let now = 1_000_000;
    const { resolver } = setup({}, { now: () => now });
    await resolver.query("example.com", "A");
    now += 299_000;
    await resolver.query("example.com", "A");
    expect(resolver.queriesSent, "within 300 s TTL").toBe(1);
    now += 2_000;
    await resolver.query("example.com", "A");
    expect(resolver.queriesSent, "after TTL").toBe(2);
  });

  it("caches negative answers for at most 60 s and zero-TTL answers not at all", async () => {
    let now = 0;
    const { resolver } = setup({ ttl: 0 }, { now: () => now });
    await resolver.query("missing.example.com", "A");
    now += 59_000;
    await resolver.query("missing.example.com", "A");
    expect(resolver.queriesSent).toBe(1);
    now += 2_000;
    await resolver.query("missing.example.com", "A");
    expect(resolver.queriesSent).toBe(2);
    await resolver.query("example.com", "A");
    await resolver.query("example.com", "A");
    expect(resolver.queriesSent, "TTL 0 is not cached").toBe(4);
  });
});

describe("CNAME chasing", () => {
  it("follows a chain inside one answer and reports it, TTL bounded by the chain", async () => {
    const { resolver } = setup();
    expect(await resolver.query("www.example.com", "A")).toEqual({ kind: "records", records: ["198.51.100.7"], ttl: 30, chain: ["cdn.example.net"] });
    expect(resolver.queriesSent).toBe(1);
  });

  it("queries the target when an answer stops at a CNAME", async () => {
    const { resolver, stub } = setup({ followCnames: false });
    const r = await resolver.query("hop7.example.com", "TXT");
    expect(r).toEqual({ kind: "records", records: ["end"], ttl: 300, chain: ["hop8.example.com", "hop9.example.com", "hop10.example.com"] });
    expect(stub.queries.map((q) => q.name)).toEqual(["hop7.example.com", "hop8.example.com", "hop9.example.com", "hop10.example.com"]);
  });

  it("reports nxdomain and nodata at the end of a chain, with the chain", async () => {
    const { resolver } = setup();
    expect(await resolver.query("dangling.example.com", "A")).toEqual({ kind: "nxdomain", chain: ["gone.example.net"] });
    expect(await resolver.query("www.example.com", "AAAA")).toEqual({ kind: "nodata", chain: ["cdn.example.net"] });
    expect(resolver.queriesSent, "the SOA in the chased answer proves NODATA: no second query").toBe(2);
  });

  it("asks for the target when a non-chasing server returns only the CNAME", async () => {
    const { resolver, stub } = setup({ followCnames: false });
    expect(await resolver.query("www.example.com", "AAAA")).toEqual({ kind: "nodata", chain: ["cdn.example.net"] });
    expect(await resolver.query("dangling.example.com", "A")).toEqual({ kind: "nxdomain", chain: ["gone.example.net"] });
    expect(stub.queries.map((q) => q.name)).toEqual(["www.example.com", "cdn.example.net", "dangling.example.com", "gone.example.net"]);
  });

  it("does not follow a CNAME when the CNAME itself is asked for", async () => {
    const { resolver } = setup();
    expect(await resolver.query("www.example.com", "CNAME")).toEqual({ kind: "records", records: ["cdn.example.net"], ttl: 30, chain: [] });
  });

  it("caps the chain at 8 hops", async () => {
    for (const followCnames of [true, false]) {
      const { resolver } = setup({ followCnames });
      const eight = await resolver.query("hop2.example.com", "TXT");
      expect(eight.kind === "records" && eight.chain.length, `8 hops, followCnames=${followCnames}`).toBe(8);
      const nine = await resolver.query("hop1.example.com", "TXT");
      expect(nine, `9 hops, followCnames=${followCnames}`).toEqual({ kind: "temperror", reason: "CNAME chain longer than 8 hops" });
      stub?.restore();
    }
  });

  it("detects a loop inside one answer and across answers", async () => {
    for (const followCnames of [true, false]) {
      const { resolver } = setup({ followCnames });
      expect(await resolver.query("loop1.example.com", "A"), `followCnames=${followCnames}`).toEqual({
        kind: "temperror",
        reason: "CNAME loop at loop1.example.com",
      });
      stub?.restore();
    }
  });
});

describe("captured answer", () => {
  it("follows a compressed in-answer CNAME chain from real wire bytes", async () => {
    const resolver = new DohResolver({
      endpoints: [A],
      fetch: async () => new Response(CAPTURED_CNAME_A, { headers: { "content-type": "application/dns-message" } }),
    });
    expect(await resolver.query("www.example.com", "A")).toEqual({ kind: "records", records: ["93.184.216.34"], ttl: 60, chain: ["cdn.example.com"] });
  });
});

describe("parseResolverList", () => {
  it("keeps trimmed http(s) URLs and falls back to the defaults", () => {
    expect(parseResolverList(" https://a.test/dns-query , ftp://x, nonsense,http://b.test/q ")).toEqual(["https://a.test/dns-query", "http://b.test/q"]);
    const defaults = ["https://cloudflare-dns.com/dns-query", "https://dns.google/dns-query"];
    expect(parseResolverList(undefined)).toEqual(defaults);
    expect(parseResolverList(" , ")).toEqual(defaults);
  });
});
