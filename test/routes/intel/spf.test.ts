// GET /api/v1/intel/spf: check_host() for a sending IP through the Worker, against the DoH stub.
import { afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { call, json, makeTeam, type TestTeam } from "../../support/api";
import { type DohStub, installDohStub, type StubZone } from "../../support/doh-stub";
import { allDown } from "../../support/intel-zone";

type Step = { domain: string; record: string | null; via: string | null; term: string | null; result: string };
type Body = { data: Record<string, any> & { path: Step[] }; code?: string; errors?: Record<string, string[]> };

const zone: StubZone = {
  "acme.example": { TXT: ["v=spf1 include:_spf.acme.example ip4:198.51.100.7 -all exp=why._spf.acme.example"] },
  "_spf.acme.example": { TXT: ["v=spf1 include:_netblocks.acme.example ~all"] },
  "_netblocks.acme.example": { TXT: ["v=spf1 ip4:192.0.2.0/24 ip6:2001:db8::/32 -all"] },
  "why._spf.acme.example": { TXT: ["%{i} may not send for %{d} (sender %{s})"] },
  "moved.example": { TXT: ["v=spf1 redirect=acme.example"] },
  "soft.example": { TXT: ["v=spf1 ip4:203.0.113.0/24 ~all"] },
  // 11 DNS-querying terms: RFC 7208 §4.6.4 allows 10.
  "greedy.example": { TXT: [`v=spf1 ${Array.from({ length: 11 }, (_, i) => `a:h${i}.greedy.example`).join(" ")} -all`] },
  "flaky.example": { TXT: ["v=spf1 include:broken.example -all"] },
  "broken.example": { TXT: ["v=spf1 +all"] },
  "nospf.example": { TXT: ["google-site-verification=abc"] },
};
for (let i = 0; i < 11; i++) zone[`h${i}.greedy.example`] = { A: ["203.0.113.1"] };

let team: TestTeam;
let stub: DohStub | null = null;
beforeAll(async () => {
  team = await makeTeam();
});
afterEach(() => vi.restoreAllMocks());

const spf = (query: Record<string, string>, token: string | null = team.full) => call(`/api/v1/intel/spf?${new URLSearchParams(query)}`, { token });

describe("GET /api/v1/intel/spf", () => {
  it("pass through an include chain: the matching include, the path with each record, the lookup count", async () => {
    stub = installDohStub(zone);
    const res = await spf({ domain: "ACME.example.", ip: "192.0.2.44" });
    expect(res.status).toBe(200);
    const { data } = await json<Body>(res);
    expect(data).toMatchObject({
      result: "pass",
      domain: "acme.example",
      ip: "192.0.2.44",
      sender: "postmaster@acme.example",
      helo: null,
      mechanism: "include:_spf.acme.example",
      decided_by: "acme.example",
      explanation: null,
      lookups: 2,
      void_lookups: 0,
    });
    expect(data.path).toEqual([
      {
        domain: "acme.example",
        record: "v=spf1 include:_spf.acme.example ip4:198.51.100.7 -all exp=why._spf.acme.example",
        via: null,
        term: "include:_spf.acme.example",
        result: "pass",
      },
      {
        domain: "_spf.acme.example",
        record: "v=spf1 include:_netblocks.acme.example ~all",
        via: "include:_spf.acme.example",
        term: "include:_netblocks.acme.example",
        result: "pass",
      },
      {
        domain: "_netblocks.acme.example",
        record: "v=spf1 ip4:192.0.2.0/24 ip6:2001:db8::/32 -all",
        via: "include:_netblocks.acme.example",
        term: "ip4:192.0.2.0/24",
        result: "pass",
      },
    ]);
  });

  it("fail with the exp= explanation expanded for this sender and IP; IPv6 is answered in RFC 5952 form", async () => {
    stub = installDohStub(zone);
    const { data } = await json<Body>(await spf({ domain: "acme.example", ip: "203.0.113.9", sender: "bounce@acme.example", helo: "mx.sender.example" }));
    expect(data).toMatchObject({ result: "fail", mechanism: "-all", sender: "bounce@acme.example", helo: "mx.sender.example" });
    expect(data.explanation).toBe("203.0.113.9 may not send for acme.example (sender bounce@acme.example)");
    // The includes were evaluated and did not match: they stay on the path with their own results.
    expect(data.path.map((p) => [p.domain, p.result])).toEqual([
      ["acme.example", "fail"],
      ["_spf.acme.example", "softfail"],
      ["_netblocks.acme.example", "fail"],
    ]);
    const v6 = await json<Body>(await spf({ domain: "acme.example", ip: "2001:DB8:0:0::1" }));
    expect([v6.data.ip, v6.data.result]).toEqual(["2001:db8::1", "pass"]);
    // IPv4-mapped IPv6 is the IPv4 address (RFC 7208 §5.6 matches like with like).
    expect((await json<Body>(await spf({ domain: "acme.example", ip: "::ffff:198.51.100.7" }))).data).toMatchObject({
      ip: "198.51.100.7",
      result: "pass",
      mechanism: "ip4:198.51.100.7",
    });
  });

  it("redirect=: the target's record decides and the path shows the hop", async () => {
    stub = installDohStub(zone);
    const { data } = await json<Body>(await spf({ domain: "moved.example", ip: "198.51.100.7" }));
    expect(data).toMatchObject({ result: "pass", mechanism: "ip4:198.51.100.7", decided_by: "acme.example", lookups: 3 });
    expect(data.path.map((p) => [p.domain, p.via, p.term])).toEqual([
      ["moved.example", null, "redirect=acme.example"],
      ["acme.example", "redirect=acme.example", "ip4:198.51.100.7"],
      ["_spf.acme.example", "include:_spf.acme.example", "~all"],
      ["_netblocks.acme.example", "include:_netblocks.acme.example", "-all"],
    ]);
  });

  it("softfail, none without a record, and permerror past 10 DNS-querying terms naming the term", async () => {
    stub = installDohStub(zone);
    expect((await json<Body>(await spf({ domain: "soft.example", ip: "192.0.2.1" }))).data).toMatchObject({ result: "softfail", mechanism: "~all" });
    const none = await json<Body>(await spf({ domain: "nospf.example", ip: "192.0.2.1" }));
    expect(none.data).toMatchObject({ result: "none", mechanism: null, path: [{ domain: "nospf.example", record: null, result: "none" }] });
    const greedy = await json<Body>(await spf({ domain: "greedy.example", ip: "192.0.2.1" }));
    expect(greedy.data).toMatchObject({ result: "permerror", mechanism: null, lookups: 11 });
    expect(greedy.data.reason).toContain("RFC 7208 §4.6.4");
    expect(greedy.data.path).toEqual([{ domain: "greedy.example", record: expect.any(String), via: null, term: "a:h10.greedy.example", result: "permerror" }]);
  });

  it("a DNS failure inside the evaluation is the result temperror (200), not an HTTP error", async () => {
    stub = installDohStub(zone);
    stub.setFault("broken.example", "TXT", "servfail");
    const res = await spf({ domain: "flaky.example", ip: "192.0.2.1" });
    expect(res.status).toBe(200);
    const { data } = await json<Body>(res);
    expect(data).toMatchObject({ result: "temperror", mechanism: null });
    expect(data.path.map((p) => [p.domain, p.term, p.result])).toEqual([
      ["flaky.example", "include:broken.example", "temperror"],
      ["broken.example", null, "temperror"],
    ]);
  });

  it("503 dependency_unavailable when no resolver answers at all", async () => {
    vi.spyOn(globalThis, "fetch").mockImplementation(allDown);
    const res = await spf({ domain: "acme.example", ip: "192.0.2.1" });
    expect(res.status).toBe(503);
    expect((await json<Body>(res)).code).toBe("dependency_unavailable");
  });

  it("422 with field errors for a bad ip, domain, sender or helo, and for missing parameters", async () => {
    stub = installDohStub(zone);
    const bad = await spf({ domain: "not a domain", ip: "999.1.2.3", sender: "no-at-sign", helo: "-bad-.example" });
    expect(bad.status).toBe(422);
    const body = await json<Body>(bad);
    expect(body.code).toBe("validation_failed");
    expect(Object.keys(body.errors ?? {}).sort()).toEqual(["domain", "helo", "ip", "sender"]);
    const incomplete: Record<string, string>[] = [
      { domain: "acme.example" },
      { ip: "192.0.2.1" },
      { domain: "acme.example", ip: "192.0.2.1%eth0" },
      { domain: "192.0.2.1", ip: "192.0.2.1" },
    ];
    for (const q of incomplete) {
      const res = await spf(q);
      expect([JSON.stringify(q), res.status]).toEqual([JSON.stringify(q), 422]);
    }
    expect(stub.queries).toEqual([]);
  });

  it("security: no token and a bad token are 401; a read-only token may call it", async () => {
    stub = installDohStub(zone);
    expect((await spf({ domain: "acme.example", ip: "192.0.2.1" }, null)).status).toBe(401);
    expect((await spf({ domain: "acme.example", ip: "192.0.2.1" }, "eam_not_a_real_token")).status).toBe(401);
    const ro = await spf({ domain: "acme.example", ip: "192.0.2.1" }, team.readOnly);
    expect(ro.status).toBe(200);
    expect((await json<Body>(ro)).data.result).toBe("pass");
  });
});
