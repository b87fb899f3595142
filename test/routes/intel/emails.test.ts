import { afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { call, json, makeTeam, type TestTeam } from "../../support/api";
import { type DohStub, installDohStub, type StubZone } from "../../support/doh-stub";
import { allDown } from "../../support/intel-zone";

type Check = Record<string, any>;
type Body = { data: Check; code?: string; errors?: Record<string, string[]> };

const zone: StubZone = {
  "gmail.com": {
    MX: [
      { preference: 5, exchange: "gmail-smtp-in.l.google.com" },
      { preference: 10, exchange: "alt1.gmail-smtp-in.l.google.com" },
    ],
    TXT: ["v=spf1 redirect=_spf.google.com"],
  },
  "_spf.google.com": { TXT: ["v=spf1 include:_netblocks.google.com ~all"] },
  "gmail-smtp-in.l.google.com": { A: ["192.0.2.5"] },
  "alt1.gmail-smtp-in.l.google.com": { A: ["192.0.2.6"] },
  "_dmarc.gmail.com": { TXT: ["v=DMARC1; p=none; sp=quarantine; rua=mailto:mailauth-reports@google.com"] },
  "corp.example": { MX: [{ preference: 0, exchange: "corp-example.mail.protection.outlook.com" }], TXT: ["v=spf1 include:spf.protection.outlook.com -all"] },
  "corp-example.mail.protection.outlook.com": { A: ["192.0.2.40"] },
  "_dmarc.corp.example": { TXT: ["v=DMARC1; p=reject"] },
  "parked.example": { MX: [{ preference: 0, exchange: "." }], TXT: ["v=spf1 -all"] },
  "_dmarc.parked.example": { TXT: ["v=DMARC1; p=reject"] },
  "mailinator.com": { MX: [{ preference: 10, exchange: "mail.mailinator.com" }] },
  "mail.mailinator.com": { A: ["192.0.2.77"] },
  "sub.mailinator.com": { MX: [{ preference: 10, exchange: "mail.mailinator.com" }] },
  "bare.example": { A: ["192.0.2.90"] },
};

let team: TestTeam;
let stub: DohStub | null = null;
beforeAll(async () => {
  team = await makeTeam();
});
afterEach(() => vi.restoreAllMocks());

const one = async (email: string, token = team.full) => call(`/api/v1/intel/email?email=${encodeURIComponent(email)}`, { token });
const batch = async (emails: unknown, token = team.full) => call("/api/v1/intel/emails", { method: "POST", token, body: { emails } });

describe("GET /api/v1/intel/email", () => {
  it("checks a business address: MX, provider, policy strength, no flags", async () => {
    stub = installDohStub(zone);
    const res = await one("Jane.Doe@Corp.Example");
    expect(res.status).toBe(200);
    const { data } = await json<Body>(res);
    expect(data).toMatchObject({
      email: "Jane.Doe@corp.example",
      valid_syntax: true,
      syntax_error: null,
      domain: "corp.example",
      mx: { status: "present", hosts: [{ host: "corp-example.mail.protection.outlook.com", preference: 0, status: "ok" }] },
      provider: { name: "Microsoft 365", kind: "mailbox" },
      free: false,
      disposable: false,
      role: false,
      policy: { strength: "strong", spf: "-all", dmarc: "reject" },
      score: 100,
      reasons: [],
    });
  });

  it("flags a free address, names the consumer service and follows SPF redirect= for the all qualifier", async () => {
    stub = installDohStub(zone);
    const { data } = await json<Body>(await one("someone@gmail.com"));
    expect(data.free).toBe(true);
    expect(data.provider.name).toBe("Gmail");
    expect(data.policy).toEqual({ strength: "moderate", spf: "~all", dmarc: "none" });
    expect(data.reasons.map((r: any) => r.code)).toEqual(["free_provider", "policy_moderate"]);
    expect(data.score).toBe(85);
  });

  it("flags role addresses", async () => {
    stub = installDohStub(zone);
    const { data } = await json<Body>(await one("No-Reply@corp.example"));
    expect(data.role).toBe(true);
    expect(data.reasons).toEqual([{ code: "role_account", points: 20, message: expect.any(String) }]);
    expect(data.score).toBe(80);
  });

  it("flags disposable domains and their subdomains", async () => {
    stub = installDohStub(zone);
    const a = (await json<Body>(await one("x@mailinator.com"))).data;
    const b = (await json<Body>(await one("x@sub.mailinator.com"))).data;
    for (const d of [a, b]) {
      expect(d.disposable).toBe(true);
      expect(d.reasons.map((r: any) => r.code)).toContain("disposable");
      expect(d.score).toBeLessThanOrEqual(30);
    }
  });

  it("reports a null MX (RFC 7505): the domain accepts no mail", async () => {
    stub = installDohStub(zone);
    const { data } = await json<Body>(await one("jane@parked.example"));
    expect(data.mx).toEqual({ status: "null_mx", hosts: [] });
    expect(data.reasons.map((r: any) => r.code)).toEqual(["null_mx"]);
    expect(data.score).toBe(10);
  });

  it("reports no MX and a non-existent domain", async () => {
    stub = installDohStub(zone);
    const bare = (await json<Body>(await one("jane@bare.example"))).data;
    expect(bare.mx.status).toBe("none");
    expect(bare.policy).toEqual({ strength: "none", spf: "none", dmarc: "missing" });
    expect(bare.reasons.map((r: any) => r.code)).toEqual(["no_mx", "policy_none"]);
    const gone = (await json<Body>(await one("jane@nowhere.example"))).data;
    expect(gone.reasons.map((r: any) => r.code)).toContain("domain_not_found");
    expect(gone.score).toBe(0);
  });

  it("an MX temperror is unknown: never none, never penalised as missing", async () => {
    stub = installDohStub(zone);
    stub.setFault("corp.example", "MX", "servfail");
    const { data } = await json<Body>(await one("jane@corp.example"));
    expect(data.mx).toEqual({ status: "temperror", hosts: [] });
    expect(data.reasons).toEqual([{ code: "mx_unknown", points: 0, message: expect.any(String) }]);
    expect(data.policy.strength).toBe("strong");
  });

  it("answers 422 with errors.email for an address that is not an addr-spec", async () => {
    stub = installDohStub(zone);
    for (const bad of ["not-an-address", "a..b@corp.example", `${"x".repeat(65)}@corp.example`, "a@[192.0.2.1]"]) {
      const res = await one(bad);
      expect(res.status, bad).toBe(422);
      expect((await json<Body>(res)).errors?.email?.[0]).toBeTruthy();
    }
    expect((await call("/api/v1/intel/email", { token: team.full })).status).toBe(422);
    expect(stub.queries).toEqual([]);
  });

  it("answers 503 when no resolver answers", async () => {
    vi.spyOn(globalThis, "fetch").mockImplementation(allDown);
    const res = await one("jane@corp.example");
    expect(res.status).toBe(503);
    expect((await json<Body>(res)).code).toBe("dependency_unavailable");
  });

  it("security: no token is 401; read-only may call it", async () => {
    stub = installDohStub(zone);
    expect((await call("/api/v1/intel/email?email=jane@corp.example")).status).toBe(401);
    expect((await one("jane@corp.example", team.readOnly)).status).toBe(200);
  });
});

describe("POST /api/v1/intel/emails", () => {
  it("answers per address in input order, duplicates and invalid addresses included", async () => {
    stub = installDohStub(zone);
    const emails = ["b@gmail.com", "not an address", "jane@corp.example", "b@gmail.com", "x@mailinator.com"];
    const res = await batch(emails);
    expect(res.status).toBe(200);
    const { data } = await json<Body>(res);
    expect(data.count).toBe(5);
    expect(data.domains).toBe(3);
    expect(data.results.map((r: Check) => [r.email, r.valid_syntax])).toEqual([
      ["b@gmail.com", true],
      ["not an address", false],
      ["jane@corp.example", true],
      ["b@gmail.com", true],
      ["x@mailinator.com", true],
    ]);
    expect(data.results[1]).toMatchObject({ syntax_error: expect.stringContaining("no @"), score: 0, mx: { status: "not_checked" } });
    expect(data.results[0]).toEqual(data.results[3]);
  });

  it("resolves each distinct name once: 100 addresses over 10 domains", async () => {
    const big: StubZone = {};
    for (let i = 0; i < 10; i++) {
      big[`d${i}.example`] = {
        MX: [
          { preference: 10, exchange: `mx.d${i}.example` },
          { preference: 20, exchange: "mx.shared.example" },
        ],
        TXT: ["v=spf1 include:_spf.shared.example -all"],
      };
      big[`mx.d${i}.example`] = { A: [`192.0.2.${i + 1}`] };
      if (i % 2 === 0) big[`_dmarc.d${i}.example`] = { TXT: ["v=DMARC1; p=quarantine"] }; // odd ones walk up to _dmarc.example
    }
    big["mx.shared.example"] = { A: ["192.0.2.200"] };
    big["_spf.shared.example"] = { TXT: ["v=spf1 ip4:192.0.2.0/24 -all"] };
    stub = installDohStub(big, { delayMs: 5 });
    const emails = Array.from({ length: 100 }, (_, n) => `user${n}@d${n % 10}.example`);
    const res = await batch(emails);
    expect(res.status).toBe(200);
    const { data } = await json<Body>(res);
    expect(data.results).toHaveLength(100);
    expect(data.results.map((r: Check) => r.email)).toEqual(emails);
    const counts = new Map<string, number>();
    for (const q of stub.queries) counts.set(`${q.name} ${q.type}`, (counts.get(`${q.name} ${q.type}`) ?? 0) + 1);
    expect([...counts.entries()].filter(([, n]) => n > 1)).toEqual([]);
    expect(counts.get("_dmarc.example TXT")).toBe(1); // the shared tree-walk step
    expect(counts.get("mx.shared.example A")).toBe(1);
    expect(data.results[0].policy).toEqual({ strength: "strong", spf: "-all", dmarc: "quarantine" });
    expect(data.results[1].policy).toEqual({ strength: "weak", spf: "-all", dmarc: "missing" });
  });

  it("rejects more than 100 addresses, an empty list and a missing field with 422", async () => {
    const over = await batch(Array.from({ length: 101 }, (_, i) => `u${i}@corp.example`));
    expect(over.status).toBe(422);
    expect((await json<Body>(over)).errors).toHaveProperty("emails");
    expect((await batch([])).status).toBe(422);
    expect((await call("/api/v1/intel/emails", { method: "POST", token: team.full, body: {} })).status).toBe(422);
    expect((await batch([42])).status).toBe(422);
  });

  it("rejects a non-JSON body with 415 and malformed JSON with 400", async () => {
    const text = await call("/api/v1/intel/emails", {
      method: "POST",
      token: team.full,
      rawBody: "emails=a@b.example",
      headers: { "content-type": "text/plain" },
    });
    expect(text.status).toBe(415);
    const broken = await call("/api/v1/intel/emails", { method: "POST", token: team.full, rawBody: "{", headers: { "content-type": "application/json" } });
    expect(broken.status).toBe(400);
  });

  it("answers 503 when no domain could be resolved at all, but reports a partial outage per address", async () => {
    vi.spyOn(globalThis, "fetch").mockImplementation(allDown);
    expect((await batch(["a@corp.example", "b@gmail.com"])).status).toBe(503);
    vi.restoreAllMocks();
    stub = installDohStub(zone);
    for (const t of ["MX", "TXT"]) stub.setFault("corp.example", t, "servfail");
    stub.setFault("_dmarc.corp.example", "TXT", "servfail");
    const res = await batch(["a@corp.example", "b@gmail.com"]);
    expect(res.status).toBe(200);
    const { data } = await json<Body>(res);
    expect(data.results[0]).toMatchObject({ mx: { status: "temperror" }, policy: { strength: "unknown", spf: "temperror", dmarc: "temperror" } });
    expect(data.results[1].mx.status).toBe("present");
  });

  it("security: no token is 401; a read-only token may call it", async () => {
    stub = installDohStub(zone);
    expect((await call("/api/v1/intel/emails", { method: "POST", body: { emails: ["a@corp.example"] } })).status).toBe(401);
    expect((await batch(["a@corp.example"], team.readOnly)).status).toBe(200);
  });
});
