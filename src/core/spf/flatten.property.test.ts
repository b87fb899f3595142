// Property tests for SPF flattening: over random include trees (shared and duplicated includes, a/mx, -ip4,
// qualifiers, redirect=, every "all"), the new records give every address the result the original meant
// (check_host() without the limits), checked with the project's own evaluateSpf, within every limit.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { FakeResolver, type Zone } from "../../../test/support/fake-resolver";
import { publish, referenceCheck } from "../../../test/support/spf-zone";
import { analyzeSpf } from "./analyze";
import { evaluateSpf } from "./evaluate";
import { flattenSpf } from "./flatten";
import { formatIp, parseIp } from "./ip";

const PROVIDERS = 6;
const HOSTS = 5;
const provider = (i: number) => `p${i}.example.net`;
const host = (i: number) => `h${i}.example.org`;
const mxName = (i: number) => `m${i}.example.org`;

// Addresses from small ranges so networks overlap, nest and touch often.
const v4 = fc.tuple(fc.nat(1), fc.nat(15), fc.nat(255)).map(([a, b, c]) => `10.${a}.${b}.${c}`);
const v6 = fc.tuple(fc.nat(3), fc.nat(0xffff)).map(([a, b]) => `2001:db8::${a}:${b.toString(16)}`);
const v4net = fc.tuple(v4, fc.option(fc.integer({ min: 20, max: 32 }), { nil: undefined })).map(([a, p]) => (p === undefined ? a : `${a}/${p}`));
const v6net = fc.tuple(v6, fc.option(fc.integer({ min: 108, max: 128 }), { nil: undefined })).map(([a, p]) => (p === undefined ? a : `${a}/${p}`));
const qualifier = fc.constantFrom("", "", "", "+", "-", "~", "?");
const dualCidr = fc.constantFrom("", "", "/30", "//126", "/31//127");

/** A term of a record; `first` is the lowest provider it may include (providers only include later ones: no loops). */
const term = (first: number): fc.Arbitrary<string> => {
  const options: fc.Arbitrary<string>[] = [
    fc.tuple(qualifier, v4net).map(([q, n]) => `${q}ip4:${n}`),
    fc.tuple(qualifier, v4net).map(([q, n]) => `${q}ip4:${n}`),
    fc.tuple(qualifier, v6net).map(([q, n]) => `${q}ip6:${n}`),
    fc.tuple(qualifier, fc.nat(HOSTS - 1), dualCidr).map(([q, h, c]) => `${q}a:${host(h)}${c}`),
    fc.tuple(qualifier, fc.nat(2), dualCidr).map(([q, m, c]) => `${q}mx:${mxName(m)}${c}`),
    fc.tuple(qualifier, dualCidr).map(([q, c]) => `${q}a${c}`),
  ];
  if (first < PROVIDERS) {
    const inc = fc.tuple(qualifier, fc.integer({ min: first, max: PROVIDERS - 1 })).map(([q, j]) => `${q}include:${provider(j)}`);
    options.push(inc, inc);
  }
  return fc.oneof(...options);
};

const ending = (first: number): fc.Arbitrary<string[]> =>
  fc.oneof(
    fc.constantFrom("-all", "~all", "?all", "", "+all").map((e): string[] => (e === "" ? [] : [e])),
    first < PROVIDERS ? fc.integer({ min: first, max: PROVIDERS - 1 }).map((j) => [`redirect=${provider(j)}`]) : fc.constant<string[]>(["-all"]),
  );

const record = (first: number, max: number) =>
  fc.tuple(fc.array(term(first), { maxLength: max }), ending(first)).map(([t, e]) => ["v=spf1", ...t, ...e].join(" "));

const addresses = fc.record({ A: fc.array(v4, { maxLength: 2 }), AAAA: fc.array(v6, { maxLength: 2 }) });
const without = (r: { A: string[]; AAAA: string[] }) => ({ ...(r.A.length > 0 ? { A: r.A } : {}), ...(r.AAAA.length > 0 ? { AAAA: r.AAAA } : {}) });

const zoneArb: fc.Arbitrary<Zone> = fc
  .record({
    root: fc
      .tuple(fc.array(term(0), { minLength: 1, maxLength: 9 }), fc.constantFrom("-all", "~all", "?all", ""))
      .map(([t, e]) => ["v=spf1", ...t, e].join(" ").trim()),
    providers: fc.tuple(...Array.from({ length: PROVIDERS }, (_, i) => record(i + 1, 8))),
    hosts: fc.array(addresses, { minLength: HOSTS, maxLength: HOSTS }),
    own: addresses,
    mx: fc.array(fc.option(fc.uniqueArray(fc.nat(HOSTS - 1), { minLength: 1, maxLength: 2 }), { nil: null }), { minLength: 3, maxLength: 3 }),
  })
  .map(({ root, providers, hosts, own, mx }) => {
    const zone: Zone = { "example.com": { TXT: [root], ...without(own), MX: [{ preference: 10, exchange: host(0) }] } };
    providers.forEach((r, i) => {
      zone[provider(i)] = { TXT: [r], ...without(hosts[i % HOSTS] ?? { A: [], AAAA: [] }) };
    });
    hosts.forEach((h, i) => {
      if (h.A.length + h.AAAA.length > 0) zone[host(i)] = without(h);
    });
    mx.forEach((m, i) => {
      if (m) zone[mxName(i)] = { MX: m.map((h, k) => ({ preference: k, exchange: host(h) })) };
    });
    return zone;
  });

const toBig = (text: string): { n: bigint; version: 4 | 6 } | null => {
  const ip = parseIp(text);
  return ip ? { n: ip.bytes.reduce((n, b) => (n << 8n) | BigInt(b), 0n), version: ip.version } : null;
};
const fromBig = (n: bigint, version: 4 | 6): string => {
  const bytes = new Uint8Array(version === 4 ? 4 : 16);
  let v = n;
  for (let i = bytes.length - 1; i >= 0; i--, v >>= 8n) bytes[i] = Number(v & 255n);
  return formatIp({ version, bytes });
};

/** First and last address of every network in the zone's records and A/AAAA answers (with every prefix
 *  length a record applies to them), and the addresses just outside each. */
function boundaries(zone: Zone): string[] {
  const nets = new Set<string>();
  const prefixes = { 4: new Set([32, 30, 31]), 6: new Set([128, 126, 127]) };
  for (const entry of Object.values(zone)) {
    if (typeof entry === "string") continue;
    for (const txt of entry.TXT ?? []) for (const m of txt.matchAll(/ip[46]:([^ ]+)/g)) nets.add(m[1] ?? "");
    for (const a of [...(entry.A ?? []), ...(entry.AAAA ?? [])]) for (const p of prefixes[a.includes(":") ? 6 : 4]) nets.add(`${a}/${p}`);
  }
  const out = new Set<string>();
  for (const net of nets) {
    const [addr = "", len] = net.split("/");
    const ip = toBig(addr);
    if (!ip) continue;
    const bits = ip.version === 4 ? 32 : 128;
    const hostBits = BigInt(bits - (len === undefined ? bits : Number(len)));
    const lo = (ip.n >> hostBits) << hostBits;
    const hi = lo + (1n << hostBits) - 1n;
    for (const n of [lo - 1n, lo, hi, hi + 1n]) if (n >= 0n && n < 1n << BigInt(bits)) out.add(fromBig(n, ip.version));
  }
  return [...out];
}

describe("flattenSpf properties", () => {
  it("the new records give every address the original's result, for IPv4 and IPv6, within every limit", async () => {
    let flattenedSome = 0;
    let chainedSome = 0;
    await fc.assert(
      fc.asyncProperty(zoneArb, fc.array(fc.oneof(v4, v6), { maxLength: 20 }), async (zone, randomIps) => {
        const analysis = await analyzeSpf("example.com", new FakeResolver(zone));
        const r = flattenSpf(analysis);
        if (!r.ok) {
          // Only the limits themselves, or a tree too deep to read, may defeat it: these trees have no other error.
          expect(r.reason).toMatch(/still needs|stopped following|do not fit/);
          return;
        }
        if (r.flattened.length > 0) flattenedSome++;
        if (r.records.length > 1) chainedSome++;
        expect(r.lookups).toBeLessThanOrEqual(10);
        expect(Math.max(r.voidLookups.ipv4, r.voidLookups.ipv6)).toBeLessThanOrEqual(2);
        for (const rec of r.records) {
          expect(new TextEncoder().encode(rec.value).length).toBeLessThanOrEqual(512);
          expect(rec.strings.join("")).toBe(rec.value);
          for (const s of rec.strings) expect(new TextEncoder().encode(s).length).toBeLessThanOrEqual(255);
        }
        const after = publish(zone, r.records);
        // The counts it reports are what the analysis of the published records finds.
        const check = await analyzeSpf("example.com", new FakeResolver(after));
        expect([check.status, check.lookups.total, check.voidLookupsByFamily]).toEqual(["pass-able", r.lookups, r.voidLookups]);
        const original = new FakeResolver(zone);
        const published = new FakeResolver(after);
        for (const ip of [...boundaries(zone), ...randomIps]) {
          const meant = referenceCheck(ip, "example.com", zone);
          const now = await evaluateSpf(ip, "example.com", "user@example.com", published);
          expect([ip, now.result]).toEqual([ip, meant]);
          // The reference agrees with check_host() wherever the original stays within the limits.
          const was = await evaluateSpf(ip, "example.com", "user@example.com", original);
          if (was.result !== "permerror") expect([ip, was.result]).toEqual([ip, meant]);
        }
      }),
      { numRuns: 150 },
    );
    // The trees are big enough that flattening, not only dropping duplicates, is exercised.
    expect(flattenedSome).toBeGreaterThan(10);
    expect(chainedSome).toBeGreaterThan(0);
  });
});
