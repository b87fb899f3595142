// Parsers of untrusted record text run in linear time: doubling a 64 KB hostile input at most triples
// the time (quadratic backtracking would quadruple it). Runs in Node, where the clock advances during
// synchronous work (workerd's does not).
import { describe, expect, it } from "vitest";
import { inspectSvg } from "../../src/core/bimi/svg";
import { parseSpf } from "../../src/core/spf/parse";
import { parseTlsRptRecord } from "../../src/core/tls-rpt/check";

/** Median of several runs, in ms. */
function timed(f: () => unknown): number {
  const runs: number[] = [];
  for (let i = 0; i < 7; i++) {
    const a = performance.now();
    f();
    runs.push(performance.now() - a);
  }
  return runs.sort((x, y) => x - y)[3] ?? 0;
}

function expectLinear(name: string, make: (n: number) => string, parse: (s: string) => unknown) {
  const n = 32 * 1024;
  const small = make(n);
  const large = make(2 * n);
  parse(small); // warm up
  const t1 = Math.max(
    timed(() => parse(small)),
    0.05,
  );
  const t2 = timed(() => parse(large));
  expect(t2, `${name}: ${t1.toFixed(2)} ms at ${n}, ${t2.toFixed(2)} ms at ${2 * n}`).toBeLessThan(3 * t1 + 1);
}

describe("linear-time parsing of hostile records", () => {
  it("SPF top label (RFC 7208 §7.1)", () => {
    expectLinear("toplabel", (n) => `v=spf1 a:x.${"a".repeat(n / 2)}-${"0".repeat(n / 2)}- -all`, parseSpf);
    expectLinear("toplabel digits", (n) => `v=spf1 a:x.${"0".repeat(n)}! -all`, parseSpf);
  });

  it("SPF mechanisms, modifiers, CIDR suffixes and macros", () => {
    expectLinear("mechanism", (n) => `v=spf1 ${"a".repeat(n)}:`, parseSpf);
    expectLinear("cidr", (n) => `v=spf1 ip4:1.2.3.4${"/1".repeat(n / 2)}`, parseSpf);
    expectLinear("macro", (n) => `v=spf1 exists:${"%{i}".repeat(n / 4)}.example.com`, parseSpf);
    expectLinear("many terms", (n) => `v=spf1 ${"a ".repeat(n / 2)}-all`, parseSpf);
  });

  it("TLS-RPT mailto: URIs (RFC 8460 §3)", () => {
    expectLinear("mailto dots", (n) => `v=TLSRPTv1; rua=mailto:a@${"a.".repeat(n / 2)}`, parseTlsRptRecord);
    expectLinear("mailto no dot", (n) => `v=TLSRPTv1; rua=mailto:a@${"a".repeat(n)}!`, parseTlsRptRecord);
    expectLinear("mailto locals", (n) => `v=TLSRPTv1; rua=mailto:${"a".repeat(n)}`, parseTlsRptRecord);
  });

  it("still accepts and refuses what the grammar says", () => {
    expect(parseTlsRptRecord("v=TLSRPTv1; rua=mailto:tls@example.com").ok).toBe(true);
    expect(parseTlsRptRecord("v=TLSRPTv1; rua=mailto:tls@examplecom").ok).toBe(false);
    expect(parseTlsRptRecord("v=TLSRPTv1; rua=mailto:a@b@example.com").ok).toBe(false);
    expect(parseTlsRptRecord("v=TLSRPTv1; rua=mailto:@example.com").ok).toBe(false);
  });

  it("SVG Tiny PS checks (a logo from any domain, or the SVG inflated from any certificate's logotype)", () => {
    const svg = (s: string) => inspectSvg(s, s.length);
    const fill = (unit: string) => (n: number) => unit.repeat(Math.ceil(n / unit.length));
    for (const unit of ["<a ", "<x:", "<!--", "<![CDATA[", "<?", "<!DOCTYPE ", "<!DOCTYPE [", "<title", "<title>", " href='", "url(", "&#1"]) {
      expectLinear(unit, fill(unit), svg);
      expectLinear(`svg root, then ${unit}`, (n) => `<svg xmlns="http://www.w3.org/2000/svg" version="1.2" baseProfile="tiny-ps">${fill(unit)(n)}`, svg);
    }
  });
});
