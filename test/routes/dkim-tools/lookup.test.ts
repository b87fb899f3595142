import { afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { candidateSelectors } from "../../../src/core/dkim";
import { RFC8463_KEYS } from "../../fixtures/dkim/rfc8463";
import { call, json, makeTeam, type TestTeam } from "../../support/api";
import { installDohStub, type DohStub, type StubZone } from "../../support/doh-stub";

let team: TestTeam;
let stub: DohStub | null = null;
beforeAll(async () => {
  team = await makeTeam();
});
afterEach(() => vi.restoreAllMocks());

const RSA = RFC8463_KEYS["test._domainkey.football.example.com"];
const ED = RFC8463_KEYS["brisbane._domainkey.football.example.com"];

interface Entry {
  host: string;
  status: string;
  delegated_to: string | null;
  provider: string | null;
  key: { type: string; bits: number | null; fingerprint: string | null } | null;
  record: string | null;
  issues: Array<{ rule: string }>;
}
interface Lookup {
  domain: string;
  status: string;
  score: number;
  summary: string;
  scanned: number;
  wildcard: boolean;
  selectors: Record<string, Entry>;
  missing: Record<string, string>;
  issues: Array<{ rule: string }>;
}

async function lookup(query: string, token = team.full): Promise<Lookup> {
  const res = await call(`/api/v1/dkim/lookup?${query}`, { token });
  expect(res.status, await res.clone().text()).toBe(200);
  return (await json<{ data: Lookup }>(res)).data;
}

const dkQueries = (s: DohStub, domain: string) =>
  s.queries.filter((q) => q.type === "TXT" && q.name.endsWith(`._domainkey.${domain}`)).map((q) => q.name.slice(0, -`._domainkey.${domain}`.length));

describe("GET /api/v1/dkim/lookup", () => {
  it("reports a CNAME-delegated selector with provider attribution, a TXT selector, and missing ones", async () => {
    stub = installDohStub({
      "s1._domainkey.example.com": { CNAME: "s1.domainkey.u123.wl.sendgrid.net" },
      "s1.domainkey.u123.wl.sendgrid.net": { TXT: [RSA] },
      "google._domainkey.example.com": { TXT: [ED] },
    });
    const l = await lookup("domain=Example.com&selectors=s1,google,gone");
    expect(l).toMatchObject({ domain: "example.com", status: "found", scanned: 3, wildcard: false });
    expect(l.selectors.s1).toMatchObject({
      host: "s1._domainkey.example.com",
      status: "active",
      delegated_to: "s1.domainkey.u123.wl.sendgrid.net",
      provider: "Twilio SendGrid",
      key: { type: "rsa", bits: 1024 },
      record: RSA,
    });
    // Attribution comes from the CNAME only, never from the selector name "google".
    expect(l.selectors.google).toMatchObject({ status: "active", delegated_to: null, provider: null, key: { type: "ed25519", bits: 256 } });
    expect(l.missing).toEqual({ gone: expect.any(String) });
    expect(Object.keys(l.selectors).sort()).toEqual(["google", "s1"]);
    expect(l.issues.map((i) => i.rule)).toContain("dkim.key.weak");
    expect(l.score).toBeGreaterThan(0);
  });

  it("attributes by label boundary: a look-alike suffix is no provider", async () => {
    stub = installDohStub({
      "s1._domainkey.example.com": { CNAME: "s1.mysendgrid.net" },
      "s1.mysendgrid.net": { TXT: [RSA] },
    });
    expect((await lookup("domain=example.com&selector=s1")).selectors.s1?.provider).toBeNull();
  });

  it("merges selector and selectors, de-duplicated", async () => {
    stub = installDohStub({});
    const l = await lookup("domain=example.com&selector=S1&selectors=s1,s2");
    expect(l.scanned).toBe(2);
    expect(Object.keys(l.missing).sort()).toEqual(["s1", "s2"]);
    expect(l.status).toBe("not_found");
    expect(l.summary).toBe("DKIM key not found among 2 selectors checked");
    expect(l.score).toBe(0);
  });

  it("detects a wildcard under _domainkey", async () => {
    const base: StubZone = { "s1._domainkey.wild.example": { TXT: [RSA] } };
    stub = installDohStub(
      new Proxy(base, {
        // Every name under _domainkey.wild.example that was asked for exists, like *._domainkey would.
        ownKeys: (t) => [
          ...new Set([...Reflect.ownKeys(t), ...(stub?.queries ?? []).map((q) => q.name).filter((n) => n.endsWith("._domainkey.wild.example"))]),
        ],
        getOwnPropertyDescriptor: (t, k) =>
          Reflect.getOwnPropertyDescriptor(t, k) ?? { value: { TXT: [RSA] }, enumerable: true, configurable: true, writable: true },
        get: (t, k) => Reflect.get(t, k) ?? (typeof k === "string" && k.endsWith("._domainkey.wild.example") ? { TXT: [RSA] } : undefined),
      }),
    );
    const l = await lookup("domain=wild.example&selectors=s1,s2");
    expect(l.wildcard).toBe(true);
    expect(l.issues.map((i) => i.rule)).toContain("dkim.selector.wildcard");
    expect(l.selectors.s2?.status).toBe("active");
    const plain = await lookup("domain=example.com&selectors=s1");
    expect(plain.wildcard).toBe(false);
  });

  it("scans the curated table when no selector is given, the MX/SPF-inferred provider first", async () => {
    stub = installDohStub({
      "fm.example": {
        MX: [{ preference: 10, exchange: "in1-smtp.messagingengine.com" }],
        TXT: ["v=spf1 include:spf.messagingengine.com ?all"],
      },
      "fm2._domainkey.fm.example": { CNAME: "fm2.fm.example.dkim.fmhosted.com" },
      "fm2.fm.example.dkim.fmhosted.com": { TXT: [RSA] },
    });
    const l = await lookup("domain=fm.example");
    const n = candidateSelectors().length;
    expect(l.scanned).toBe(n);
    expect(Object.keys(l.missing)).toHaveLength(n - 1);
    expect(l.selectors.fm2).toMatchObject({ status: "active", provider: "Fastmail" });
    expect(
      stub.queries
        .slice(0, 2)
        .map((q) => q.type)
        .sort(),
    ).toEqual(["MX", "TXT"]);
    // Six lookups in flight (SCAN_CONCURRENCY): the probe and the inferred provider's four selectors come first.
    const first = dkQueries(stub, "fm.example").slice(0, 6);
    expect(first).toEqual(expect.arrayContaining(["fm1", "fm2", "fm3", "mesmtp"]));
    expect(first).not.toContain("selector1");
  });

  it("says 'not found among N selectors checked', never 'no DKIM'", async () => {
    stub = installDohStub({});
    const l = await lookup("domain=nothing.example");
    expect(l.status).toBe("not_found");
    expect(l.summary).toBe(`DKIM key not found among ${candidateSelectors().length} selectors checked`);
    expect(l.summary.toLowerCase()).not.toContain("no dkim");
  });

  it("keeps a partial DNS failure as temperror, not missing", async () => {
    stub = installDohStub({ "s1._domainkey.example.com": { TXT: [ED] } });
    stub.setFault("s2._domainkey.example.com", "TXT", "servfail");
    const l = await lookup("domain=example.com&selectors=s1,s2,s3");
    expect(l.selectors.s2?.status).toBe("temperror");
    expect(l.missing).not.toHaveProperty("s2");
    expect(l.missing).toHaveProperty("s3");
  });

  it("answers 503 when every lookup fails", async () => {
    stub = installDohStub({});
    stub.setFault("s1._domainkey.example.com", "TXT", "servfail");
    stub.setFault("s2._domainkey.example.com", "TXT", "refused");
    const res = await call("/api/v1/dkim/lookup?domain=example.com&selectors=s1,s2", { token: team.full });
    expect(res.status).toBe(503);
    expect(await json(res)).toMatchObject({ code: "dependency_unavailable" });
  });

  it("answers 503 for a scan when no resolver can be reached", async () => {
    vi.spyOn(globalThis, "fetch").mockImplementation(async () => new Response("down", { status: 502 }));
    const res = await call("/api/v1/dkim/lookup?domain=example.com", { token: team.full });
    expect(res.status).toBe(503);
  });

  it.each([
    [`domain=example.com&selectors=${Array.from({ length: 21 }, (_, i) => `s${i}`).join(",")}`, "selectors"],
    [`domain=example.com&selector=s20&selectors=${Array.from({ length: 20 }, (_, i) => `s${i}`).join(",")}`, "selectors"],
    ["domain=example.com&selectors=s1,bad name", "selectors"],
    ["domain=example.com&selector=_x", "selector"],
    ["domain=example.com&selectors=,,", "selectors"],
    ["domain=not_a_domain", "domain"],
    ["domain=192.0.2.1&selector=s1", "domain"],
    ["selector=s1", "domain"],
  ])("refuses %s with 422 on %s", async (query, field) => {
    stub = installDohStub({});
    const res = await call(`/api/v1/dkim/lookup?${query}`, { token: team.full });
    expect(res.status).toBe(422);
    expect((await json<{ errors: Record<string, string[]> }>(res)).errors).toHaveProperty(field);
    expect(stub.queries, "no DNS for invalid input").toEqual([]);
  });

  it("accepts exactly 20 selectors", async () => {
    stub = installDohStub({});
    const l = await lookup(`domain=example.com&selectors=${Array.from({ length: 20 }, (_, i) => `s${i}`).join(",")}`);
    expect(l.scanned).toBe(20);
  });

  it("needs a token; a read-only token may look up", async () => {
    stub = installDohStub({ "s1._domainkey.example.com": { TXT: [ED] } });
    expect((await call("/api/v1/dkim/lookup?domain=example.com&selector=s1")).status).toBe(401);
    expect((await lookup("domain=example.com&selector=s1", team.readOnly)).selectors.s1?.status).toBe("active");
  });
});
