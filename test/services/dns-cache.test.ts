// The DNS answer cache shared across checks (docs/decisions.md D194-D197) on the real Cache API of the
// pool, with the DoH stub counting the questions that reach the network: answers shared between
// resolvers and between the checks of one scheduled round, the domain's own names always fresh, an
// answer never kept past its TTL, failures and the cache's own errors never read as answers.
import { env } from "cloudflare:workers";
import { describe, expect, it, vi } from "vitest";
import type { DohResolver } from "../../src/core/dns/doh-resolver";
import type { SharedAnswerCache } from "../../src/core/dns/shared-cache";
import { consumeChecks } from "../../src/queues/checks";
import { runCheck } from "../../src/services/checks/run-check";
import { edgeDnsCache } from "../../src/services/dns-cache";
import { createServices, type Services } from "../../src/services";
import { makeTeam, unique } from "../support/api";
import { type DohStub, installDohStub, type StubZone } from "../support/doh-stub";
import { addDomain, diffsOf, fakeBatch, markVerified, newDomainName, zoneFor } from "../support/monitoring";

/** Services with the shared cache on (the test config turns it off for every other file) and the
 *  given clock, which stamps and ages the shared answers. */
function cachedServices(now: () => Date = () => new Date(), cache: SharedAnswerCache = edgeDnsCache()): Services {
  return createServices(env, { clock: { now }, dnsCache: cache });
}

const asked = (stub: DohStub, name: string, type = "TXT") => stub.queries.filter((q) => q.name === name && q.type === type).length;
const provider = () => `_spf.${unique("prov")}.example`;
const resolverOf = (svc: Services, opts: Parameters<Services["createResolver"]>[0]) => svc.createResolver(opts) as DohResolver;
/** One lookup by a fresh resolver, once its shared-cache writes have landed (as a check waits for them). */
async function lookup(svc: Services, opts: Parameters<Services["createResolver"]>[0], name: string, type: "TXT" | "A") {
  const r = resolverOf(svc, opts);
  const out = await r.query(name, type);
  await r.settled();
  return out;
}

describe("shared DNS answer cache", () => {
  it("two resolvers share an answer: the second asks nothing and gets the same records, TTL aged", async () => {
    const include = provider();
    const stub = installDohStub({ [include]: { TXT: ["v=spf1 ip4:192.0.2.0/24 -all"], ttl: 300 } });
    vi.useFakeTimers({ toFake: ["Date"] });
    const t0 = Date.now();
    const svc = cachedServices();
    const first = resolverOf(svc, { shared: true });
    expect(await first.query(include, "TXT")).toMatchObject({ kind: "records", records: ["v=spf1 ip4:192.0.2.0/24 -all"], ttl: 300 });
    await first.settled();
    vi.setSystemTime(t0 + 100_000);
    const second = resolverOf(svc, { shared: true });
    expect(await second.query(include, "TXT"), "RFC 1035 §7.4: the TTL counts down while cached").toMatchObject({
      kind: "records",
      records: ["v=spf1 ip4:192.0.2.0/24 -all"],
      ttl: 200,
    });
    expect(asked(stub, include)).toBe(1);
    expect([first.queriesSent, second.queriesSent, second.sharedHits]).toEqual([1, 0, 1]);
  });

  it("a resolver without the shared option neither reads nor fills it", async () => {
    const include = provider();
    const stub = installDohStub({ [include]: { TXT: ["v=spf1 -all"] } });
    const svc = cachedServices();
    await lookup(svc, {}, include, "TXT");
    await lookup(svc, { shared: true }, include, "TXT");
    await lookup(svc, {}, include, "TXT");
    expect(asked(stub, include)).toBe(3);
  });

  it("the domain's own names bypass it: always asked, never stored", async () => {
    const own = `${unique("own")}.example`;
    const include = provider();
    const stub = installDohStub({ [own]: { TXT: ["v=spf1 -all"] }, [`_dmarc.${own}`]: { TXT: ["v=DMARC1; p=none"] }, [include]: { TXT: ["v=spf1 -all"] } });
    const svc = cachedServices();
    for (let i = 0; i < 2; i++) {
      const r = resolverOf(svc, { shared: true, ownZone: own });
      await Promise.all([r.query(own, "TXT"), r.query(`_dmarc.${own}`, "TXT"), r.query(include, "TXT")]);
      await r.settled();
    }
    // Another resolver with no own zone would find them if they had been stored.
    await lookup(svc, { shared: true }, own, "TXT");
    expect([asked(stub, own), asked(stub, `_dmarc.${own}`), asked(stub, include)]).toEqual([3, 2, 1]);
  });

  it("a changed record is seen once its TTL has passed, never later", async () => {
    const include = provider();
    const zone: StubZone = { [include]: { TXT: ["v=spf1 ip4:192.0.2.0/24 -all"], ttl: 120 } };
    const stub = installDohStub(zone);
    vi.useFakeTimers({ toFake: ["Date"] });
    const t0 = Date.now();
    const svc = cachedServices();
    await lookup(svc, { shared: true }, include, "TXT");
    zone[include] = { TXT: ["v=spf1 ip4:198.51.100.0/24 -all"], ttl: 120 };
    vi.setSystemTime(t0 + 119_000);
    expect(await lookup(svc, { shared: true }, include, "TXT"), "inside the TTL: the kept answer").toMatchObject({
      records: ["v=spf1 ip4:192.0.2.0/24 -all"],
      ttl: 1,
    });
    vi.setSystemTime(t0 + 120_000);
    expect(await lookup(svc, { shared: true }, include, "TXT"), "at the TTL: expired, asked again").toMatchObject({
      records: ["v=spf1 ip4:198.51.100.0/24 -all"],
    });
    expect(asked(stub, include)).toBe(2);
  });

  it("an NXDOMAIN is kept for min(SOA TTL, MINIMUM) at most: a new record shows up within 60 s (RFC 2308 §5)", async () => {
    const include = provider();
    const zone: StubZone = {};
    const stub = installDohStub(zone); // negative answers carry an SOA with TTL 3600, MINIMUM 60
    vi.useFakeTimers({ toFake: ["Date"] });
    const t0 = Date.now();
    const svc = cachedServices();
    expect(await lookup(svc, { shared: true }, include, "TXT")).toMatchObject({ kind: "nxdomain" });
    zone[include] = { TXT: ["v=spf1 -all"] };
    vi.setSystemTime(t0 + 59_000);
    expect(await lookup(svc, { shared: true }, include, "TXT")).toMatchObject({ kind: "nxdomain" });
    vi.setSystemTime(t0 + 60_000);
    expect(await lookup(svc, { shared: true }, include, "TXT")).toMatchObject({ kind: "records", records: ["v=spf1 -all"] });
    expect(asked(stub, include)).toBe(2);
  });

  it("a NODATA behind a provider's alias is kept for its negative TTL, not the alias's: a new record shows up within 60 s", async () => {
    const alias = provider();
    const target = `${unique("host")}.example`;
    const zone: StubZone = { [alias]: { CNAME: target, ttl: 3600 }, [target]: { A: ["192.0.2.1"], ttl: 3600 } };
    const stub = installDohStub(zone); // the NODATA for the target carries an SOA with TTL 3600, MINIMUM 60
    vi.useFakeTimers({ toFake: ["Date"] });
    const t0 = Date.now();
    const svc = cachedServices();
    expect(await lookup(svc, { shared: true }, alias, "TXT")).toMatchObject({ kind: "nodata", chain: [target] });
    zone[target] = { A: ["192.0.2.1"], TXT: ["v=spf1 ip4:192.0.2.1 -all"], ttl: 3600 };
    vi.setSystemTime(t0 + 60_000);
    expect(await lookup(svc, { shared: true }, alias, "TXT"), "RFC 2308 §5: no longer than min(SOA TTL, MINIMUM)").toMatchObject({
      kind: "records",
      records: ["v=spf1 ip4:192.0.2.1 -all"],
    });
    expect(asked(stub, alias)).toBe(2);
  });

  it("a subdomain's check reads the policy it inherits fresh: the DMARC record of the domain above it bypasses the cache", async () => {
    const org = `${unique("org")}.example`;
    const sub = `mail.${org}`;
    const zone: StubZone = { [`_dmarc.${org}`]: { TXT: ["v=DMARC1; p=none"] } };
    const stub = installDohStub(zone);
    const svc = cachedServices();
    expect(await lookup(svc, { shared: true, ownZone: sub }, `_dmarc.${org}`, "TXT")).toMatchObject({ records: ["v=DMARC1; p=none"] });
    zone[`_dmarc.${org}`] = { TXT: ["v=DMARC1; p=reject"] };
    expect(await lookup(svc, { shared: true, ownZone: sub }, `_dmarc.${org}`, "TXT"), "the owner's edit, seen at once").toMatchObject({
      records: ["v=DMARC1; p=reject"],
    });
    expect(asked(stub, `_dmarc.${org}`)).toBe(2);
  });

  it("an alias chain that starts at the domain's own name is the domain's record: its targets bypass the cache too", async () => {
    // A DMARC record hosted by a provider behind a CNAME, through an upstream that does not chase aliases
    // (the resolver asks for the target itself): the owner edits it at the provider and checks again.
    const own = `${unique("own")}.example`;
    const hosted = `${own}._dmarc.${unique("dmarc-host")}.example`;
    const zone: StubZone = { [`_dmarc.${own}`]: { CNAME: hosted }, [hosted]: { TXT: ["v=DMARC1; p=none"] } };
    const stub = installDohStub(zone, { followCnames: false });
    const svc = cachedServices();
    expect(await lookup(svc, { shared: true, ownZone: own }, `_dmarc.${own}`, "TXT")).toMatchObject({ records: ["v=DMARC1; p=none"], chain: [hosted] });
    zone[hosted] = { TXT: ["v=DMARC1; p=reject"] };
    expect(await lookup(svc, { shared: true, ownZone: own }, `_dmarc.${own}`, "TXT"), "the edit at the provider, seen at once").toMatchObject({
      records: ["v=DMARC1; p=reject"],
    });
    expect(asked(stub, hosted)).toBe(2);
  });

  it("deployments with other DoH endpoints on the same cache share nothing", async () => {
    const include = provider();
    const stub = installDohStub({ [include]: { TXT: ["v=spf1 -all"] } });
    const cache = edgeDnsCache();
    const staging = createServices({ ...env, DOH_RESOLVERS: "https://doh.staging.test/dns-query" }, { dnsCache: cache });
    await lookup(staging, { shared: true }, include, "TXT");
    await lookup(cachedServices(undefined, cache), { shared: true }, include, "TXT");
    expect(stub.queries.filter((q) => q.name === include).map((q) => new URL(q.endpoint).host)).toEqual(["doh.staging.test", "doh.test"]);
  });

  it("keys sit on the deployment's own origin (SITE_URL), never on a host the Cache API would look up in DNS", async () => {
    const include = provider();
    const stub = installDohStub({ [include]: { TXT: ["v=spf1 -all"] } });
    const match = vi.spyOn(caches.default, "match");
    const put = vi.spyOn(caches.default, "put");
    const svc = createServices({ ...env, DNS_SHARED_CACHE: "true", SITE_URL: "https://monitor.example.com/" });
    await lookup(svc, { shared: true }, include, "TXT");
    await lookup(svc, { shared: true }, include, "TXT");
    const keys = [...match.mock.calls, ...put.mock.calls].map(([k]) => new URL(k instanceof Request ? k.url : String(k)));
    expect(keys.length).toBeGreaterThanOrEqual(3);
    for (const k of keys) {
      expect(k.origin).toBe("https://monitor.example.com");
      expect(k.pathname.startsWith(`/_dns-cache/v1/TXT/`), k.pathname).toBe(true);
    }
    expect(asked(stub, include), "still one cache").toBe(1);
    match.mockRestore();
    put.mockRestore();
  });

  it("an entry stored by a clock ahead of this one, or expired, is a miss", async () => {
    const include = provider();
    const stub = installDohStub({ [include]: { TXT: ["v=spf1 -all"], ttl: 300 } });
    const cache = edgeDnsCache();
    const t0 = Date.now();
    await lookup(
      cachedServices(() => new Date(t0 + 3_600_000), cache),
      { shared: true },
      include,
      "TXT",
    );
    await lookup(
      cachedServices(() => new Date(t0), cache),
      { shared: true },
      include,
      "TXT",
    );
    await lookup(
      cachedServices(() => new Date(t0 + 3_600_000 + 300_000), cache),
      { shared: true },
      include,
      "TXT",
    );
    expect(asked(stub, include)).toBe(3);
  });

  it("never keeps SERVFAIL, a timeout or a truncated answer: the next resolver asks again", async () => {
    const names = [provider(), provider(), provider()];
    const stub = installDohStub(Object.fromEntries(names.map((n) => [n, { TXT: ["v=spf1 -all"] }])));
    const faults = ["servfail", "timeout", "truncated"] as const;
    for (const [i, f] of faults.entries()) stub.setFault(names[i] ?? "", "TXT", f, { times: 1 });
    const svc = cachedServices();
    const r1 = resolverOf(svc, { shared: true });
    expect((await Promise.all(names.map((n) => r1.query(n, "TXT")))).map((l) => l.kind)).toEqual(["temperror", "temperror", "temperror"]);
    await r1.settled();
    const r2 = svc.createResolver({ shared: true });
    expect((await Promise.all(names.map((n) => r2.query(n, "TXT")))).map((l) => l.kind)).toEqual(["records", "records", "records"]);
    expect(names.map((n) => asked(stub, n))).toEqual([2, 2, 2]);
  });

  it("a cache that fails is a miss, never a failed lookup", async () => {
    const include = provider();
    const stub = installDohStub({ [include]: { TXT: ["v=spf1 -all"] } });
    const warn = vi.spyOn(console, "warn").mockImplementation(() => undefined);
    const broken: SharedAnswerCache = {
      get: () => Promise.reject(new Error("cache unavailable")),
      put: () => Promise.reject(new Error("cache unavailable")),
    };
    const r = resolverOf(cachedServices(undefined, broken), { shared: true });
    expect(await r.query(include, "TXT")).toMatchObject({ kind: "records", records: ["v=spf1 -all"] });
    expect(await r.query(include, "A")).toMatchObject({ kind: "nodata" });
    await r.settled();
    expect(asked(stub, include)).toBe(1);
    expect(warn, "logged once per resolver").toHaveBeenCalledTimes(1);
    warn.mockRestore();
  });

  it("one scheduled round: two domains that share a provider include ask for it once", async () => {
    const include = provider();
    const team = await makeTeam();
    const names = [newDomainName(), newDomainName()];
    const ids: number[] = [];
    const zone: StubZone = {};
    for (const name of names) {
      const added = await addDomain(team, name);
      await markVerified(added.id);
      ids.push(added.id);
      Object.assign(zone, zoneFor(name, { spf: `v=spf1 include:${include} -all` }));
    }
    zone[include] = { TXT: ["v=spf1 ip4:203.0.113.0/24 -all"] };
    const stub = installDohStub(zone);
    const { batch, messages } = fakeBatch(ids.map((id) => ({ domain_id: id, check_id: `chk_${unique("round")}`, trigger: "scheduled" })));
    await consumeChecks(batch, cachedServices());
    expect(messages.map((m) => m.ack.mock.calls.length)).toEqual([1, 1]);
    expect(asked(stub, include), "the second check takes the first one's answer").toBe(1);
    for (const name of names) expect(asked(stub, name), `${name}'s own SPF is asked by its own check`).toBeGreaterThan(0);
    const checks = await env.DB.prepare(`SELECT domain_id, status, queries FROM checks WHERE domain_id IN (${ids.join(",")}) ORDER BY created_at`).all<{
      status: string;
      queries: number;
    }>();
    expect(checks.results.map((c) => c.status)).toEqual(["completed", "completed"]);
  });

  it("a manual check right after the owner edits the domain's own SPF sees the edit", async () => {
    const team = await makeTeam();
    const name = newDomainName();
    const added = await addDomain(team, name);
    await markVerified(added.id);
    const zone = zoneFor(name, { spf: "v=spf1 include:_spf.google.com -all" });
    const stub = installDohStub(zone);
    const t0 = new Date();
    const svc = cachedServices(() => t0);
    await runCheck(svc, { domain_id: added.id, check_id: `chk_${unique("sched")}`, trigger: "scheduled" });
    zone[name] = { ...(zone[name] as object), TXT: ["v=spf1 include:_spf.google.com ~all"] };
    // Same instant, same cache: only the bypass lets the edit through.
    const out = await runCheck(svc, { domain_id: added.id, check_id: `chk_${unique("manual")}`, trigger: "manual" });
    expect(out).toMatchObject({ recorded: true, status: "completed", changes: expect.any(Number) });
    const spf = (await diffsOf(added.id)).filter((d) => d.category === "spf");
    expect(spf.map((d) => d.after).join(" "), "the edited record is what the check compared").toContain("~all");
    expect(asked(stub, name)).toBeGreaterThanOrEqual(2);
  });
});
