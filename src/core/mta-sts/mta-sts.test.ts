import { describe, expect, it } from "vitest";
import { FakeResolver } from "../../../test/support/fake-resolver";
import type { HttpFetch } from "../types";
import { checkMtaSts } from "./check";
import { mxMatches, parseStsPolicy, parseStsRecord, validMxPattern } from "./policy";

// RFC 8461 §3.2 example policy, CRLF-separated as the RFC specifies.
const RFC_POLICY = "version: STSv1\r\nmode: enforce\r\nmx: mail.example.com\r\nmx: *.example.net\r\nmx: backupmx.example.com\r\nmax_age: 604800\r\n";
const rules = (fs: { rule: string }[]) => fs.map((x) => x.rule);

function serve(body: string, init: ResponseInit = { status: 200, headers: { "content-type": "text/plain" } }) {
  const calls: { url: string; init: RequestInit | undefined }[] = [];
  const fetch: HttpFetch = async (input, init) => {
    calls.push({ url: String(input), init });
    return new Response(body, responseInit);
  };
  const responseInit = init;
  return { fetch, calls };
}

/** The policy host resolves to a public address: the policy is fetched only then (RFC 8461 §3.3). */
const POLICY_HOST = { "mta-sts.example.com": { A: ["93.184.216.34"] } };
const zone = (txt: string[] = ["v=STSv1; id=20160831085700Z;"]) => new FakeResolver({ "_mta-sts.example.com": { TXT: txt }, ...POLICY_HOST });

describe("parseStsRecord (RFC 8461 §3.1)", () => {
  it("accepts the RFC example", () => expect(parseStsRecord("v=STSv1; id=20160831085700Z;")).toEqual({ ok: true, value: { id: "20160831085700Z" } }));
  it("rejects a missing, long or non-alphanumeric id", () => {
    expect(parseStsRecord("v=STSv1;").ok).toBe(false);
    expect(parseStsRecord(`v=STSv1; id=${"a".repeat(33)}`).ok).toBe(false);
    expect(parseStsRecord("v=STSv1; id=2016-08-31").ok).toBe(false);
  });
});

describe("parseStsPolicy (RFC 8461 §3.2)", () => {
  it("parses the RFC example with CRLF or LF", () => {
    const expected = { mode: "enforce", maxAge: 604800, mx: ["mail.example.com", "*.example.net", "backupmx.example.com"] };
    expect(parseStsPolicy(RFC_POLICY)).toEqual({ ok: true, value: expected });
    expect(parseStsPolicy(RFC_POLICY.replace(/\r\n/g, "\n"))).toEqual({ ok: true, value: expected });
  });
  it("mode none needs no mx; other modes do", () => {
    expect(parseStsPolicy("version: STSv1\nmode: none\nmax_age: 86400\n").ok).toBe(true);
    expect(parseStsPolicy("version: STSv1\nmode: testing\nmax_age: 86400\n").ok).toBe(false);
  });
  it("rejects bad version, mode, max_age, duplicates and mid-label wildcards", () => {
    const bad = parseStsPolicy("version: STSv2\nmode: strict\nmax_age: 31557601\nmax_age: 1\nmx: mail.*.example.com\n");
    expect(bad.ok).toBe(false);
    // duplicate, bad mx, version, mode, max_age, and "mx required" since no valid mx remains
    expect(!bad.ok && bad.error.length).toBe(6);
  });
  it("ignores unknown keys", () => expect(parseStsPolicy(`${RFC_POLICY}foo: bar\r\n`).ok).toBe(true));
});

describe("mx pattern matching (RFC 8461 §4.1)", () => {
  it.each([
    ["*.example.net", "mx1.example.net", true],
    ["*.example.net", "example.net", false],
    ["*.example.net", "a.b.example.net", false],
    ["*.example.net", "mx1.example.net.evil", false],
    ["mail.example.com", "MAIL.example.com.", true],
    ["mail.example.com", "mail2.example.com", false],
  ])("%s vs %s -> %s", (p, h, want) => expect(mxMatches(p, h)).toBe(want));
  it("wildcard only as whole leftmost label", () => {
    expect(validMxPattern("*.example.net")).toBe(true);
    expect(validMxPattern("*mx.example.net")).toBe(false);
    expect(validMxPattern("mx.*.net")).toBe(false);
    expect(validMxPattern("*")).toBe(false);
  });
});

describe("checkMtaSts", () => {
  it("valid enforce policy covering every MX, fetched without following redirects", async () => {
    const s = serve(RFC_POLICY);
    const r = await checkMtaSts("example.com", zone(), { fetch: s.fetch, mxHosts: ["mail.example.com", "mx2.example.net"] });
    expect(r.status).toBe("present");
    expect(r.findings).toEqual([]);
    expect(s.calls[0]?.url).toBe("https://mta-sts.example.com/.well-known/mta-sts.txt");
    expect(s.calls[0]?.init?.redirect).toBe("manual");
    expect(s.calls[0]?.init?.signal).toBeInstanceOf(AbortSignal);
  });
  it("uncovered MX in enforce is High, in testing Low", async () => {
    const enforce = await checkMtaSts("example.com", zone(), { fetch: serve(RFC_POLICY).fetch, mxHosts: ["mx.other.example"] });
    expect(enforce.findings).toMatchObject([{ rule: "mta_sts.mx-not-covered", severity: "High" }]);
    const testing = await checkMtaSts("example.com", zone(), { fetch: serve(RFC_POLICY.replace("enforce", "testing")).fetch, mxHosts: ["a.b.example.net"] });
    expect(rules(testing.findings)).toEqual(["mta_sts.testing-mode", "mta_sts.mx-not-covered"]);
    expect(testing.findings[1]?.severity).toBe("Low");
  });
  it("looks up MX itself when not given", async () => {
    const res = new FakeResolver({
      "_mta-sts.example.com": { TXT: ["v=STSv1; id=1"] },
      ...POLICY_HOST,
      "example.com": { MX: [{ preference: 10, exchange: "mx.elsewhere.example" }] },
    });
    const r = await checkMtaSts("example.com", res, { fetch: serve(RFC_POLICY).fetch });
    expect(r.coverage).toEqual([{ host: "mx.elsewhere.example", covered: false }]);
  });
  it("a fetch failure is temperror, not missing", async () => {
    const r = await checkMtaSts("example.com", zone(), {
      fetch: async () => {
        throw new TypeError("TLS handshake failed");
      },
      mxHosts: [],
    });
    expect(r.status).toBe("temperror");
    expect(r.policy.status).toBe("temperror");
  });
  it("a redirect is invalid and not followed", async () => {
    const r = await checkMtaSts("example.com", zone(), { fetch: serve("", { status: 301, headers: { location: "https://x/" } }).fetch, mxHosts: [] });
    expect(r.status).toBe("invalid");
    expect(rules(r.findings)).toEqual(["mta_sts.policy-redirect"]);
  });
  it("wrong content type is flagged; short max_age is flagged", async () => {
    const r = await checkMtaSts("example.com", zone(), {
      fetch: serve(RFC_POLICY.replace("604800", "3600"), { status: 200, headers: { "content-type": "text/html" } }).fetch,
      mxHosts: [],
    });
    expect(rules(r.findings)).toEqual(["mta_sts.policy-content-type", "mta_sts.short-max-age"]);
  });
  it("multiple records, missing record, DNS temperror", async () => {
    const s = serve(RFC_POLICY);
    expect((await checkMtaSts("example.com", zone(["v=STSv1; id=1", "v=STSv1; id=2"]), { fetch: s.fetch, mxHosts: [] })).status).toBe("invalid");
    expect((await checkMtaSts("example.com", new FakeResolver({}), { fetch: s.fetch, mxHosts: [] })).status).toBe("missing");
    const t = zone();
    t.faults.set("_mta-sts.example.com TXT", "temperror");
    expect((await checkMtaSts("example.com", t, { fetch: s.fetch, mxHosts: [] })).status).toBe("temperror");
    expect(s.calls).toHaveLength(0);
  });
  it("an oversize policy is invalid", async () => {
    const r = await checkMtaSts("example.com", zone(), { fetch: serve(RFC_POLICY + "x: y\n".repeat(20_000)).fetch, mxHosts: [] });
    expect(rules(r.findings)).toEqual(["mta_sts.policy-too-large"]);
  });
});

describe("policy host states (RFC 8461 §3.3)", () => {
  const record = { "_mta-sts.example.com": { TXT: ["v=STSv1; id=7"] } };
  const check = (
    zoneExtra: Record<string, { A?: string[]; AAAA?: string[] } | "nxdomain" | "temperror">,
    body = RFC_POLICY,
    init?: ResponseInit,
    allowPrivate = false,
  ) => {
    const s = serve(body, init);
    return checkMtaSts("example.com", new FakeResolver({ ...record, ...zoneExtra }), { fetch: s.fetch, mxHosts: [], allowPrivate }).then((r) => ({
      r,
      calls: s.calls,
    }));
  };

  it("tells no policy host, private address, unreachable, HTTP error, invalid policy and valid apart", async () => {
    const none = await check({});
    expect([none.r.status, none.r.policy.failure, none.calls.length]).toEqual(["invalid", "no_policy_host", 0]);
    expect(rules(none.r.findings)).toContain("mta_sts.no-policy-host");

    const priv = await check({ "mta-sts.example.com": { A: ["10.0.0.8"] } });
    expect([priv.r.status, priv.r.policy.failure, priv.calls.length], "a private address is never fetched").toEqual(["invalid", "private_address", 0]);

    const dnsDown = await check({ "mta-sts.example.com": "temperror" });
    expect([dnsDown.r.status, dnsDown.r.policy.failure, dnsDown.calls.length], "a DNS failure is unknown").toEqual(["temperror", null, 0]);

    const unreachable = await checkMtaSts("example.com", new FakeResolver({ ...record, ...POLICY_HOST }), {
      fetch: async () => {
        throw new TypeError("connection refused");
      },
      mxHosts: [],
    });
    expect([unreachable.status, unreachable.policy.failure]).toEqual(["temperror", "unreachable"]);

    const notFound = await check(POLICY_HOST, "nope", { status: 404 });
    expect([notFound.r.status, notFound.r.policy.failure]).toEqual(["invalid", "http_error"]);

    const invalid = await check(POLICY_HOST, "version: STSv1\r\nmode: sometimes\r\n");
    expect([invalid.r.status, invalid.r.policy.failure]).toEqual(["invalid", "invalid_policy"]);

    const valid = await check(POLICY_HOST);
    expect([valid.r.status, valid.r.policy.status, valid.r.policy.failure]).toEqual(["present", "valid", null]);

    const local = await check({ "mta-sts.example.com": { A: ["127.0.0.1"] } }, RFC_POLICY, undefined, true);
    expect(local.r.status, "local development may serve the policy from loopback").toBe("present");
  });
});
