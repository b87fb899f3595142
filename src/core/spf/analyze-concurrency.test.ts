import { describe, expect, it } from "vitest";
import { FakeResolver, type Zone } from "../../../test/support/fake-resolver";
import type { Lookup, RecordData, RecordType, Resolver } from "../dns/types";
import { destinationFindings } from "../dmarc/destinations";
import { parseDmarc } from "../dmarc/parse";
import { analyzeSpf } from "./analyze";

/** Wraps FakeResolver: each answer takes `ms`, and the highest number of queries in flight is kept. */
class SlowResolver implements Resolver {
  inFlight = 0;
  maxInFlight = 0;
  constructor(
    private readonly inner: FakeResolver,
    private readonly ms = 5,
  ) {}
  get queriesSent() {
    return this.inner.queriesSent;
  }
  get log() {
    return this.inner.log;
  }
  async query<T extends RecordType>(name: string, type: T): Promise<Lookup<RecordData[T]>> {
    this.inFlight++;
    this.maxInFlight = Math.max(this.maxInFlight, this.inFlight);
    await new Promise((r) => setTimeout(r, this.ms));
    this.inFlight--;
    return this.inner.query(name, type);
  }
}

describe("independent lookups run concurrently, with the same queries and counts", () => {
  it("SPF: sibling include targets are fetched together; lookups counted as in a sequential walk", async () => {
    const zone: Zone = {
      "example.com": { TXT: ["v=spf1 include:a.example include:b.example include:c.example -all"] },
      "a.example": { TXT: ["v=spf1 include:a2.example ~all"] },
      "a2.example": { TXT: ["v=spf1 ip4:192.0.2.0/24 ~all"] },
      "b.example": { TXT: ["v=spf1 ip4:198.51.100.0/24 ~all"] },
      "c.example": { TXT: ["v=spf1 ip4:203.0.113.0/24 ~all"] },
    };
    const slow = new SlowResolver(new FakeResolver(zone));
    const r = await analyzeSpf("example.com", slow);
    expect(r.lookups.total).toBe(4); // RFC 7208 §4.6.4: three includes + one nested
    expect(r.status).toBe("pass-able");
    expect(slow.maxInFlight).toBeGreaterThanOrEqual(3); // a, b and c in flight together
    // Each name once, plus the deprecated SPF RR type check at the root: nothing extra is queried.
    expect([...slow.log].sort()).toEqual(["a.example TXT", "a2.example TXT", "b.example TXT", "c.example TXT", "example.com SPF", "example.com TXT"]);
    const seq = await analyzeSpf("example.com", new FakeResolver(zone));
    expect(r.lookups).toEqual(seq.lookups);
    expect(r.findings).toEqual(seq.findings);
  });

  it("SPF: targets past a loop or with macros are left to the walk (not prefetched)", async () => {
    const zone: Zone = {
      "example.com": { TXT: ["v=spf1 include:loop.example include:%{i}.x.example -all"] },
      "loop.example": { TXT: ["v=spf1 include:example.com -all"] },
    };
    const fake = new FakeResolver(zone);
    const r = await analyzeSpf("example.com", fake);
    expect(r.findings.map((f) => f.rule)).toContain("spf.loop");
    expect([...fake.log].sort()).toEqual(["example.com SPF", "example.com TXT", "loop.example TXT"]);
  });

  it("DMARC: report destinations are checked concurrently, findings in record order", async () => {
    const zone: Zone = {
      "_dmarc.example.com": { TXT: ["v=DMARC1; p=reject"] },
      "_dmarc.one.example": { TXT: ["v=DMARC1; p=none"] },
      "_dmarc.two.example": { TXT: ["v=DMARC1; p=none"] },
      "one.example": { MX: [{ preference: 10, exchange: "mx.one.example" }] },
    };
    const rec = parseDmarc("v=DMARC1; p=reject; rua=mailto:a@one.example,mailto:b@two.example");
    if (!rec.ok) throw new Error(rec.error);
    const slow = new SlowResolver(new FakeResolver(zone));
    const findings = await destinationFindings(rec.value, "example.com", slow);
    expect(findings.map((f) => [f.rule, f.description.match(/(one|two)\.example/)?.[0]])).toEqual([
      ["dmarc.external-auth-missing", "one.example"],
      ["dmarc.external-auth-missing", "two.example"],
      ["dmarc.report-domain-no-mx", "two.example"],
    ]);
    expect(slow.maxInFlight).toBeGreaterThanOrEqual(3);
  });
});
