import { describe, expect, it } from "vitest";
import {
  compareServed,
  enforceVerdict,
  MIN_MAX_AGE,
  newPolicyId,
  patternsFromMx,
  renderPolicy,
  safeToRemoveAt,
  stsRecord,
  uncoveredMx,
  validatePolicyInput,
  validPolicyId,
} from "./hosting";
import { parseStsPolicy, parseStsRecord } from "./policy";

describe("renderPolicy (RFC 8461 §3.2)", () => {
  it("renders the RFC's example policy byte for byte, every line ended by CRLF", () => {
    // RFC 8461 §3.2, the example policy.
    const text = renderPolicy({ mode: "enforce", mx: ["mail.example.com", "*.example.net", "backupmx.example.com"], maxAge: 604800 });
    expect(text).toBe("version: STSv1\r\nmode: enforce\r\nmx: mail.example.com\r\nmx: *.example.net\r\nmx: backupmx.example.com\r\nmax_age: 604800\r\n");
    expect(parseStsPolicy(text)).toEqual({
      ok: true,
      value: { mode: "enforce", maxAge: 604800, mx: ["mail.example.com", "*.example.net", "backupmx.example.com"] },
    });
  });

  it("keeps the mx lines in a mode none policy (RFC 8461 §8.3), which parses", () => {
    const text = renderPolicy({ mode: "none", mx: ["mx.example.com"], maxAge: 86400 });
    expect(text).toBe("version: STSv1\r\nmode: none\r\nmx: mx.example.com\r\nmax_age: 86400\r\n");
    expect(parseStsPolicy(text).ok).toBe(true);
  });
});

describe("patterns and MX coverage (RFC 8461 §4.1)", () => {
  it("starts from the MX hosts, lower case, without trailing dots or duplicates", () => {
    expect(patternsFromMx(["MX1.Example.com.", "mx1.example.com", "mx2.example.com"])).toEqual(["mx1.example.com", "mx2.example.com"]);
  });

  it("a wildcard matches one extra leftmost label only, never the bare name nor two labels", () => {
    // RFC 8461 §4.1: "*.example.com" matches "mail.example.com" but not "example.com" or "foo.bar.example.com".
    expect(uncoveredMx(["*.example.com"], ["mail.example.com", "example.com", "foo.bar.example.com"])).toEqual(["example.com", "foo.bar.example.com"]);
  });

  it("refuses a policy that leaves an MX host uncovered, with the host named", () => {
    const r = validatePolicyInput({ mx: ["mx1.example.com"], maxAge: 604800 }, ["mx1.example.com", "mx2.example.com"]);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.error.mx?.join(" ")).toContain("mx2.example.com");
  });

  it("refuses malformed patterns: a wildcard inside the name, a single label", () => {
    const r = validatePolicyInput({ mx: ["mx.*.example.com", "localhost", "*.example.com"], maxAge: 604800 }, ["a.example.com"]);
    expect(r.ok).toBe(false);
    if (!r.ok) {
      expect(r.error.mx?.some((m) => m.includes("mx.*.example.com"))).toBe(true);
      expect(r.error.mx?.some((m) => m.includes('"localhost"'))).toBe(true);
    }
  });

  it("accepts a wildcard covering every MX and normalizes the patterns", () => {
    expect(validatePolicyInput({ mx: ["*.Example.NET."], maxAge: 604800 }, ["a.example.net", "b.example.net"])).toEqual({
      ok: true,
      value: { mx: ["*.example.net"], maxAge: 604800 },
    });
  });
});

describe("max_age bounds", () => {
  it("takes one day up to the RFC's 31557600 seconds (RFC 8461 §3.2)", () => {
    const at = (maxAge: number) => validatePolicyInput({ mx: ["mx.example.com"], maxAge }, ["mx.example.com"]).ok;
    expect(at(MIN_MAX_AGE)).toBe(true);
    expect(at(31_557_600)).toBe(true);
    expect(at(31_557_601)).toBe(false);
    expect(at(MIN_MAX_AGE - 1)).toBe(false);
    expect(at(86_400.5)).toBe(false);
  });
});

describe("policy id (RFC 8461 §3.1)", () => {
  const now = new Date("2026-11-28T17:05:09.123Z");
  it("is 1-32 letters or digits, readable time first, and parses in a TXT record", () => {
    const id = newPolicyId(now, new Uint8Array([1, 2, 3, 4, 5, 255]));
    expect(id).toMatch(/^20261128170509[a-z0-9]{6}$/);
    expect(validPolicyId(id)).toBe(true);
    expect(parseStsRecord(stsRecord(id))).toEqual({ ok: true, value: { id } });
  });

  it("never repeats the previous id, even in the same second with the same random bytes", () => {
    const bytes = new Uint8Array([9, 9, 9, 9, 9, 9]);
    const first = newPolicyId(now, bytes);
    const second = newPolicyId(now, bytes, first);
    expect(second).not.toBe(first);
    expect(validPolicyId(second)).toBe(true);
  });
});

describe("enforceVerdict: testing -> enforce from TLS reports (RFC 8460)", () => {
  it("allows enforce with sessions and no failure", () => {
    expect(enforceVerdict({ days: 14, reports: 3, successful: 1200, failed: 0 }).allowed).toBe(true);
  });
  it("refuses with one failure", () => {
    const v = enforceVerdict({ days: 14, reports: 3, successful: 1200, failed: 1 });
    expect(v).toMatchObject({ allowed: false, code: "failures" });
  });
  it("refuses with no report at all (no evidence)", () => {
    expect(enforceVerdict({ days: 7, reports: 0, successful: 0, failed: 0 })).toMatchObject({ allowed: false, code: "no_reports" });
  });
  it("refuses reports that count no session", () => {
    expect(enforceVerdict({ days: 7, reports: 1, successful: 0, failed: 0 })).toMatchObject({ allowed: false, code: "no_sessions" });
  });
});

describe("retiring (RFC 8461 §8.3)", () => {
  it("is safe once the largest max_age served has run out since mode none started", () => {
    const since = new Date("2026-11-01T00:00:00Z");
    expect(safeToRemoveAt(since, 1_209_600).toISOString()).toBe("2026-11-15T00:00:00.000Z");
    // Never sooner than the retiring policy's own max_age.
    expect(safeToRemoveAt(since, 3600).toISOString()).toBe("2026-11-02T00:00:00.000Z");
  });
});

describe("compareServed: what senders see against what we serve", () => {
  const served = { id: "abc123", policy: { mode: "testing" as const, mx: ["mx1.example.com", "mx2.example.com"], maxAge: 604800 } };
  it("same id and the same policy (mx order and LF line ends do not matter)", () => {
    const fetched = "version: STSv1\nmode: testing\nmx: mx2.example.com\nmx: mx1.example.com\nmax_age: 604800\n";
    expect(compareServed(served, "abc123", fetched)).toEqual({ id: "same", policy: "same" });
  });
  it("a stale id and a different policy", () => {
    expect(compareServed(served, "old1", renderPolicy({ ...served.policy, mode: "enforce" }))).toEqual({ id: "stale", policy: "different" });
  });
  it("DNS failure is unknown, never stale; a failed fetch is unreachable", () => {
    expect(compareServed(served, undefined, null)).toEqual({ id: "unknown", policy: "unreachable" });
    expect(compareServed(served, null, undefined)).toEqual({ id: "absent", policy: "unknown" });
  });
});
