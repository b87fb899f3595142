// Hosted MTA-STS through the Worker's fetch export (issue 32 §1): turning it on (the Cloudflare API at the
// edge receives the custom hostname and the id record), the policy served on mta-sts.<domain> byte for
// byte (RFC 8461 §3.2, §3.3), the editor's refusals (RFC 8461 §4.1 coverage, max_age), the one-click
// enforce gated by TLS reports (RFC 8460), a new id with every change, scopes and teams, and the audit.
import { createExecutionContext, createScheduledController, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it, vi } from "vitest";
import worker from "../../../src/index";
import { call, json, makeTeam } from "../../support/api";
import { CF_ZONE, installCloudflare, unquote } from "../../support/cloudflare-api";
import type { StubZone } from "../../support/doh-stub";
import { insertDomain } from "../../support/factories";
import { enc, googleShape, intake, microsoftShape, rfcExample } from "../tls/fixtures";

type Status = {
  enabled: boolean;
  records: Array<{ name: string; type: string; value: string; live: { state: string } }>;
  enforce: { allowed: boolean; reason: string };
  hosting: {
    state: string;
    mode: string;
    mx: string[];
    max_age: number;
    policy_id: string;
    policy_text: string;
    id_delivery: string;
    hostname: { name: string; status: string | null; certificate_status: string | null };
    retiring: { safe_to_remove_at: string } | null;
  } | null;
};

const mxZone = (name: string): StubZone => ({
  [name]: {
    MX: [
      { preference: 10, exchange: `mx1.${name}` },
      { preference: 20, exchange: `mx2.${name}` },
    ],
  },
});
const path = (id: number) => `/api/v1/domains/${id}/mta-sts-hosting`;
const put = (id: number, token: string, body: Record<string, unknown> = {}) => call(path(id), { method: "PUT", token, body });
const statusOf = async (res: Response) => (await json<{ data: Status }>(res)).data;

/** A request to the policy host, as a sending MTA makes it (RFC 8461 §3.3). */
const policyFetch = (name: string, init: { method?: string; path?: string } = {}) =>
  worker.fetch(new Request(`https://mta-sts.${name}${init.path ?? "/.well-known/mta-sts.txt"}`, { method: init.method ?? "GET" }), env, {} as ExecutionContext);

async function hostedDomain() {
  const team = await makeTeam();
  const d = await insertDomain(team.id);
  const cf = installCloudflare(mxZone(d.name));
  return { team, d, cf };
}

describe("PUT /domains/{domain}/mta-sts-hosting: turning hosting on", () => {
  it("starts in testing with the live MX hosts, creates the custom hostname and the id record, and lists the two CNAMEs", async () => {
    const { team, d, cf } = await hostedDomain();
    const res = await put(d.id, team.full);
    expect(res.status).toBe(201);
    const s = await statusOf(res);
    expect(s.enabled).toBe(true);
    expect(s.hosting).toMatchObject({ state: "active", mode: "testing", mx: [`mx1.${d.name}`, `mx2.${d.name}`], max_age: 604800, id_delivery: "cname" });
    const id = s.hosting?.policy_id ?? "";
    expect(id).toMatch(/^[a-z0-9]{1,32}$/);
    expect(s.hosting?.policy_text).toBe(`version: STSv1\r\nmode: testing\r\nmx: mx1.${d.name}\r\nmx: mx2.${d.name}\r\nmax_age: 604800\r\n`);
    expect(s.records.map((r) => [r.name, r.type, r.value, r.live.state])).toEqual([
      [`mta-sts.${d.name}`, "CNAME", "hosting.test", "missing"],
      [`_mta-sts.${d.name}`, "CNAME", `${d.name}.sts-id.test`, "missing"],
    ]);
    expect(s.hosting?.hostname).toMatchObject({ name: `mta-sts.${d.name}`, status: "pending", certificate_status: "pending_validation" });

    // The Cloudflare API got a custom hostname with HTTP DCV, then the id record in the operator's zone.
    const create = cf.calls.find((c) => c.method === "POST" && c.path === "/custom_hostnames");
    expect(create?.body).toEqual({ hostname: `mta-sts.${d.name}`, ssl: { method: "http", type: "dv", settings: { min_tls_version: "1.2" } } });
    const txt = cf.calls.find((c) => c.method === "POST" && c.path === "/dns_records");
    expect(txt?.body).toMatchObject({ type: "TXT", name: `${d.name}.sts-id.test`, ttl: 60 });
    expect(unquote(String(txt?.body?.content))).toBe(`v=STSv1; id=${id}`);

    const audit = await env.DB.prepare("SELECT verb, target_id, summary FROM audit_entries WHERE team_id = ? AND verb LIKE 'mta_sts_hosting.%'")
      .bind(team.id)
      .all();
    expect(audit.results).toEqual([{ verb: "mta_sts_hosting.enable", target_id: String(d.id), summary: expect.stringContaining("mode=testing") }]);
  });

  it("shows both records ok once DNS publishes the two CNAMEs, and then asks Cloudflare to validate the certificate", async () => {
    const team = await makeTeam();
    const d = await insertDomain(team.id);
    const zone = mxZone(d.name);
    const cf = installCloudflare(zone);
    const id = (await statusOf(await put(d.id, team.full))).hosting?.policy_id ?? "";
    Object.assign(zone, {
      [`mta-sts.${d.name}`]: { CNAME: "hosting.test" },
      "hosting.test": { A: ["192.0.2.10"] },
      [`_mta-sts.${d.name}`]: { CNAME: `${d.name}.sts-id.test` },
      [`${d.name}.sts-id.test`]: { TXT: [`v=STSv1; id=${id}`] },
    });
    // Cloudflare's HTTP validation passes once the name points here; the service asks again with a PATCH.
    cf.activateAll();
    vi.useFakeTimers({ toFake: ["Date"], now: Date.now() + 6_000 });
    const s = await statusOf(await call(path(d.id), { token: team.readOnly }));
    vi.useRealTimers();
    expect(s.records.map((r) => r.live.state)).toEqual(["ok", "ok"]);
    const patch = cf.calls.find((c) => c.method === "PATCH" && c.path.startsWith("/custom_hostnames/"));
    expect(patch?.body).toEqual({ ssl: { method: "http", type: "dv", settings: { min_tls_version: "1.2" } } });
    expect(s.hosting?.hostname).toMatchObject({ status: "active", certificate_status: "active" });
  });

  it("is refused for an unverified domain (409 domain_not_verified) and for a name another team hosts (409)", async () => {
    const team = await makeTeam();
    const unverified = await insertDomain(team.id, { verified: false });
    installCloudflare(mxZone(unverified.name));
    const r1 = await put(unverified.id, team.full);
    expect(r1.status).toBe(409);
    expect((await json(r1)).code).toBe("domain_not_verified");

    const { team: first, d } = await hostedDomain();
    expect((await put(d.id, first.full)).status).toBe(201);
    const other = await makeTeam();
    const same = await insertDomain(other.id, { name: d.name });
    const r2 = await put(same.id, other.full);
    expect(r2.status).toBe(409);
    expect((await json(r2)).message).toContain("Another team already hosts");
  });

  it("two enables of the same domain at once: one turns hosting on, the other is told another request did (never that another team hosts it)", async () => {
    const team = await makeTeam();
    const d = await insertDomain(team.id);
    // The first MX lookup waits, so the other request reads "not hosted" too and inserts first.
    let mxLookups = 0;
    const cf = installCloudflare(mxZone(d.name), undefined, { delayMs: (q) => (q.type === "MX" && mxLookups++ === 0 ? 300 : 0) });
    const [a, b] = await Promise.all([put(d.id, team.full), put(d.id, team.full)]);
    const [first, second] = a.status === 201 ? [a, b] : [b, a];
    expect(first.status).toBe(201);
    expect(second.status).toBe(409);
    expect((await json<{ message: string }>(second)).message).toContain("another request");
    const rows = await env.DB.prepare("SELECT count(*) AS n FROM hosted_mta_sts WHERE domain_id = ?").bind(d.id).first<{ n: number }>();
    expect(rows?.n).toBe(1);
    expect(cf.calls.filter((c) => c.method === "POST" && c.path === "/custom_hostnames")).toHaveLength(1);
  });

  it("answers 404, not 500, when the domain is deleted while hosting is being turned on", async () => {
    const team = await makeTeam();
    const d = await insertDomain(team.id);
    let mxLookups = 0;
    const cf = installCloudflare(mxZone(d.name), undefined, { delayMs: (q) => (q.type === "MX" && mxLookups++ === 0 ? 300 : 0) });
    const enabling = put(d.id, team.full);
    await new Promise((r) => setTimeout(r, 100));
    expect((await call(`/api/v1/domains/${d.id}`, { method: "DELETE", token: team.full })).status).toBe(204);
    const res = await enabling;
    expect(res.status).toBe(404);
    expect((await json(res)).code).toBe("not_found");
    expect(cf.calls).toEqual([]);
  });

  it("is refused (409) for a domain with a null MX (RFC 7505) or no MX, and 503 when its MX cannot be read (D214)", async () => {
    const team = await makeTeam();
    const nullMx = await insertDomain(team.id);
    const noMx = await insertDomain(team.id);
    const cf = installCloudflare({ [nullMx.name]: { MX: [{ preference: 0, exchange: "" }] }, [noMx.name]: { A: ["192.0.2.1"] } });
    for (const d of [nullMx, noMx]) {
      const res = await put(d.id, team.full);
      expect(res.status, d.name).toBe(409);
      expect((await json(res)).message, d.name).toContain("publishes no MX host");
    }
    cf.stub.setFault(noMx.name, "MX", "servfail", { times: 10 });
    const unknown = await put(noMx.id, team.full);
    expect(unknown.status).toBe(503);
    expect(cf.calls).toEqual([]);
  });

  it("answers 422 for a pattern that leaves an MX host uncovered, a malformed wildcard, or max_age out of bounds", async () => {
    const { team, d } = await hostedDomain();
    const uncovered = await put(d.id, team.full, { mx: [`mx1.${d.name}`] });
    expect(uncovered.status).toBe(422);
    expect(JSON.stringify((await json(uncovered)).errors)).toContain(`mx2.${d.name}`);
    // RFC 8461 §4.1: "*.<domain>" covers one extra label, so mx1.<domain> is covered by "*.<domain>" but not by "*.mx1.<domain>".
    const wildcardInside = await put(d.id, team.full, { mx: [`mx.*.${d.name}`] });
    expect(wildcardInside.status).toBe(422);
    const small = await put(d.id, team.full, { max_age: 3600 });
    expect(small.status).toBe(422);
    expect(Object.keys((await json<{ errors: Record<string, string[]> }>(small)).errors)).toEqual(["max_age"]);
    const big = await put(d.id, team.full, { max_age: 31_557_601 });
    expect(big.status).toBe(422);
    expect((await put(d.id, team.full, { mx: [`*.${d.name}`], max_age: 31_557_600 })).status).toBe(201);
  });

  it("answers odd input with a 4xx and a code, never a 500", async () => {
    const { team, d } = await hostedDomain();
    const bodies: unknown[] = [
      { mx: [] },
      { mx: ["x".repeat(254)] },
      { mx: [" "] },
      { mx: ["mx1.example.com\r\nmode: enforce"] },
      { mx: Array.from({ length: 21 }, (_, i) => `mx${i}.${d.name}`) },
      { max_age: "86400" },
      { max_age: 86400.5 },
      { mode: "none" },
      { id_delivery: "dns" },
      { tls_window_days: 0 },
      { unknown: true },
      [],
      null,
    ];
    for (const body of bodies) {
      const res = await call(path(d.id), { method: "PUT", token: team.full, body });
      expect(res.status, JSON.stringify(body)).toBeGreaterThanOrEqual(400);
      expect(res.status, JSON.stringify(body)).toBeLessThan(500);
      expect(typeof (await json(res)).code, JSON.stringify(body)).toBe("string");
    }
    const notJson = await call(path(d.id), { method: "PUT", token: team.full, rawBody: "{", headers: { "content-type": "application/json" } });
    expect(notJson.status).toBe(400);
    for (const id of ["abc", "0", "-1", "99999999999999999999"]) {
      const res = await call(`/api/v1/domains/${id}/mta-sts-hosting`, { token: team.full });
      expect([404, 422], id).toContain(res.status);
    }
    expect((await call(`${path(d.id)}/enforce?days=400`, { method: "POST", token: team.full })).status).toBe(422);
    const rows = await env.DB.prepare("SELECT count(*) AS n FROM hosted_mta_sts WHERE domain_id = ?").bind(d.id).first<{ n: number }>();
    expect(rows?.n).toBe(0);
  });

  it("401 without a token, 403 for a read-only token, 404 for another team's domain", async () => {
    const { team, d } = await hostedDomain();
    expect((await call(path(d.id))).status).toBe(401);
    expect((await put(d.id, team.readOnly)).status).toBe(403);
    expect((await call(`${path(d.id)}/enforce`, { method: "POST", token: team.readOnly })).status).toBe(403);
    expect((await call(path(d.id), { method: "DELETE", token: team.readOnly })).status).toBe(403);
    const other = await makeTeam();
    expect((await put(d.id, other.full)).status).toBe(404);
    expect((await call(path(d.id), { token: other.full })).status).toBe(404);
    const rows = await env.DB.prepare("SELECT count(*) AS n FROM hosted_mta_sts WHERE domain_id = ?").bind(d.id).first<{ n: number }>();
    expect(rows?.n).toBe(0);
  });
});

describe("the policy host mta-sts.<domain> (RFC 8461 §3.3)", () => {
  it("serves the exact policy as text/plain; charset=utf-8, HEAD without a body, 404 elsewhere, 405 for other methods", async () => {
    const { team, d } = await hostedDomain();
    await put(d.id, team.full, { max_age: 86400 });
    const res = await policyFetch(d.name);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("text/plain; charset=utf-8");
    expect(res.headers.get("cache-control")).toBe("no-store");
    const bytes = new Uint8Array(await res.arrayBuffer());
    const expected = enc(`version: STSv1\r\nmode: testing\r\nmx: mx1.${d.name}\r\nmx: mx2.${d.name}\r\nmax_age: 86400\r\n`);
    expect(bytes).toEqual(expected);

    const head = await policyFetch(d.name, { method: "HEAD" });
    expect(head.status).toBe(200);
    expect(head.headers.get("content-length")).toBe(String(expected.byteLength));
    expect(await head.text()).toBe("");

    expect((await policyFetch(d.name, { path: "/" })).status).toBe(404);
    expect((await policyFetch(d.name, { path: "/api/v1/domains" })).status).toBe(404);
    const post = await policyFetch(d.name, { method: "POST" });
    expect(post.status).toBe(405);
    expect(post.headers.get("allow")).toBe("GET, HEAD");
  });

  it("matches the Host header whatever its case, trailing dot or port, and only the exact policy host", async () => {
    const { team, d } = await hostedDomain();
    await put(d.id, team.full);
    const withHost = (host: string) => worker.fetch(new Request(`https://${host}/.well-known/mta-sts.txt`, { headers: { host } }), env, {} as ExecutionContext);
    for (const host of [`MTA-STS.${d.name.toUpperCase()}`, `mta-sts.${d.name}.`, `mta-sts.${d.name}:443`]) {
      const res = await withHost(host);
      expect(res.status, host).toBe(200);
      expect(await res.text(), host).toMatch(/^version: STSv1\r\nmode: testing\r\n/);
    }
    // Neither a deeper name, nor the domain itself, nor a look-alike serves the policy.
    for (const host of [`mta-sts.mta-sts.${d.name}`, d.name, `www.mta-sts.${d.name}`, `mta-sts-${d.name}`, `mta-sts.${d.name}.evil.example`]) {
      const res = await withHost(host);
      expect(res.headers.get("content-type"), host).toContain("application/json");
    }
  });

  it("leaves a name nobody hosts to the app, and the API host untouched", async () => {
    installCloudflare();
    const res = await policyFetch("not-hosted.example");
    expect(res.status).toBe(404);
    expect(res.headers.get("content-type")).toContain("application/json");
    expect((await call("/api/v1/openapi.json")).status).toBe(200);
  });
});

describe("changing the policy: a new id each time (RFC 8461 §3.1)", () => {
  it("changes the id and the id record on a policy change, and keeps both when nothing changed", async () => {
    const { team, d, cf } = await hostedDomain();
    const first = (await statusOf(await put(d.id, team.full))).hosting?.policy_id;
    const again = await put(d.id, team.full, {});
    expect(again.status).toBe(200);
    expect((await statusOf(again)).hosting?.policy_id).toBe(first);

    const changed = await statusOf(await put(d.id, team.full, { max_age: 1_209_600 }));
    expect(changed.hosting?.policy_id).not.toBe(first);
    const record = [...cf.records.values()].find((r) => r.name === `${d.name}.sts-id.test`);
    expect(unquote(record?.content ?? "")).toBe(`v=STSv1; id=${changed.hosting?.policy_id}`);
    expect(cf.calls.filter((c) => c.method === "PATCH" && c.path.startsWith("/dns_records/")).length).toBe(1);
    expect(cf.calls.filter((c) => c.method === "POST" && c.path === "/custom_hostnames").length).toBe(1);
  });

  it("adopts a custom hostname that already exists (a lost answer, or one made by hand) instead of failing", async () => {
    const { team, d, cf } = await hostedDomain();
    cf.hostnames.set("ch-by-hand", { id: "ch-by-hand", hostname: `mta-sts.${d.name}`, status: "active", ssl: { status: "active" } });
    const s = await statusOf(await put(d.id, team.full));
    expect(s.hosting?.hostname).toMatchObject({ status: "active", certificate_status: "active", api_error: null });
    expect(cf.calls.filter((c) => c.path === "/custom_hostnames").map((c) => [c.method, c.query.hostname ?? null])).toEqual([
      ["POST", null],
      ["GET", `mta-sts.${d.name}`],
    ]);
    const row = await env.DB.prepare("SELECT custom_hostname_id FROM hosted_mta_sts WHERE domain_id = ?").bind(d.id).first();
    expect(row).toEqual({ custom_hostname_id: "ch-by-hand" });
  });

  it("keeps the change when the API fails, says so, and the sweep brings the id record in line", async () => {
    const { team, d, cf } = await hostedDomain();
    cf.failNext(500);
    const s = await statusOf(await put(d.id, team.full));
    expect(s.hosting?.hostname.status).toBeNull();
    const row = await env.DB.prepare("SELECT hostname_details FROM hosted_mta_sts WHERE domain_id = ?").bind(d.id).first<{ hostname_details: string }>();
    expect(JSON.parse(row?.hostname_details ?? "{}").apiError).toContain("injected failure");
    const { sweepMtaStsHosting } = await import("../../../src/services/mta-sts-hosting/sweep");
    const { createServices } = await import("../../../src/services");
    // The next minute's sweep tries again.
    await sweepMtaStsHosting(createServices(env, { clock: { now: () => new Date(Date.now() + 61_000) } }));
    const record = [...cf.records.values()].find((r) => r.name === `${d.name}.sts-id.test`);
    expect(unquote(record?.content ?? "")).toBe(`v=STSv1; id=${s.hosting?.policy_id}`);
    expect([...cf.hostnames.values()].map((h) => h.hostname)).toEqual([`mta-sts.${d.name}`]);
    expect(cf.calls.every((c) => c.path.startsWith("/") && !c.path.includes(CF_ZONE))).toBe(true);
  });
});

describe("POST /domains/{domain}/mta-sts-hosting/enforce: the one click", () => {
  it("is refused without TLS reports and with failures, and allowed once reports show no failure", async () => {
    const { team, d, cf } = await hostedDomain();
    const before = (await statusOf(await put(d.id, team.full))).hosting?.policy_id;
    const none = await call(`${path(d.id)}/enforce`, { method: "POST", token: team.full });
    expect(none.status).toBe(409);
    expect((await json(none)).message).toContain("No TLS report");

    expect((await intake(d.reportToken, enc(JSON.stringify(googleShape(d.name))))).status).toBe(202);
    const status = await statusOf(await call(`${path(d.id)}?days=7`, { token: team.full }));
    expect(status.enforce.allowed).toBe(true);
    const ok = await call(`${path(d.id)}/enforce?days=7`, { method: "POST", token: team.full });
    expect(ok.status).toBe(200);
    const s = await statusOf(ok);
    expect(s.hosting?.mode).toBe("enforce");
    expect(s.hosting?.policy_id).not.toBe(before);
    expect(await (await policyFetch(d.name)).text()).toContain("\r\nmode: enforce\r\n");
    const record = [...cf.records.values()].find((r) => r.name === `${d.name}.sts-id.test`);
    expect(unquote(record?.content ?? "")).toBe(`v=STSv1; id=${s.hosting?.policy_id}`);
    const verbs = await env.DB.prepare("SELECT verb FROM audit_entries WHERE team_id = ? AND verb LIKE 'mta_sts_hosting.%' ORDER BY seq").bind(team.id).all();
    expect(verbs.results.map((r) => r.verb)).toEqual(["mta_sts_hosting.enable", "mta_sts_hosting.enforce"]);
  });

  it("is refused while TLS reports show failed sessions (RFC 8460 §4.4 example)", async () => {
    const { team, d } = await hostedDomain();
    await put(d.id, team.full);
    expect((await intake(d.reportToken, enc(JSON.stringify(rfcExample(d.name))))).status).toBe(202);
    const res = await call(`${path(d.id)}/enforce`, { method: "POST", token: team.full });
    expect(res.status).toBe(409);
    expect((await json(res)).message).toContain("303 failed sessions");
    // PUT mode enforce goes through the same rule.
    expect((await put(d.id, team.full, { mode: "enforce" })).status).toBe(409);
  });

  it("is refused while the only sessions reported were made without the policy (policy-type no-policy-found, RFC 8460 §4.3)", async () => {
    const { team, d } = await hostedDomain();
    await put(d.id, team.full);
    // Opportunistic TLS succeeded, but no sender applied an STS policy: its certificate checks (RFC 8461 §4.2)
    // were never made, so nothing says enforce would deliver. A later report under the policy allows it.
    const blind = microsoftShape(d.name);
    const [entry] = blind.policies;
    if (entry) {
      entry.summary = { "total-successful-session-count": 40, "total-failure-session-count": 0 };
      entry["failure-details"] = [];
    }
    expect((await intake(d.reportToken, enc(JSON.stringify(blind)))).status).toBe(202);
    const res = await call(`${path(d.id)}/enforce`, { method: "POST", token: team.full });
    expect(res.status).toBe(409);
    expect((await json(res)).message).toContain("policy-type sts");
    expect((await put(d.id, team.full, { mode: "enforce" })).status).toBe(409);

    expect((await intake(d.reportToken, enc(JSON.stringify(googleShape(d.name, 12))))).status).toBe(202);
    const allowed = await call(`${path(d.id)}/enforce`, { method: "POST", token: team.full });
    expect(allowed.status).toBe(200);
    expect((await statusOf(allowed)).enforce).toMatchObject({ allowed: true, reason: expect.stringContaining("12 sessions") });
  });

  it("does not undo a policy change made while it read the evidence: the later writer is told to read again (409)", async () => {
    const team = await makeTeam();
    const d = await insertDomain(team.id);
    let delayNextMx = false;
    installCloudflare(mxZone(d.name), undefined, {
      delayMs: (q) => {
        if (q.type !== "MX" || !delayNextMx) return 0;
        delayNextMx = false;
        return 300;
      },
    });
    await put(d.id, team.full);
    expect((await intake(d.reportToken, enc(JSON.stringify(googleShape(d.name))))).status).toBe(202);
    // The click reads the row, then waits on DNS; meanwhile the team adds a pattern for an MX host to come.
    delayNextMx = true;
    const click = call(`${path(d.id)}/enforce`, { method: "POST", token: team.full });
    await new Promise((r) => setTimeout(r, 100));
    const wider = [`mx1.${d.name}`, `mx2.${d.name}`, `mx3.${d.name}`];
    const change = await put(d.id, team.full, { mx: wider });
    expect(change.status).toBe(200);
    const enforced = await click;
    expect(enforced.status).toBe(409);
    expect((await json(enforced)).message).toContain("another request");
    const row = await env.DB.prepare("SELECT mode, mx_patterns FROM hosted_mta_sts WHERE domain_id = ?").bind(d.id).first();
    expect(row).toEqual({ mode: "testing", mx_patterns: JSON.stringify(wider) });
    const verbs = await env.DB.prepare("SELECT verb FROM audit_entries WHERE team_id = ? AND verb LIKE 'mta_sts_hosting.%' ORDER BY seq").bind(team.id).all();
    expect(verbs.results.map((r) => r.verb)).toEqual(["mta_sts_hosting.enable", "mta_sts_hosting.update"]);
  });

  it("is refused once the domain's ownership is no longer verified, as PUT with mode enforce is (409 domain_not_verified)", async () => {
    const { team, d } = await hostedDomain();
    await put(d.id, team.full);
    expect((await intake(d.reportToken, enc(JSON.stringify(googleShape(d.name))))).status).toBe(202);
    await env.DB.prepare("UPDATE domains SET verified = 0, verified_at = NULL WHERE id = ?").bind(d.id).run();
    const viaPut = await put(d.id, team.full, { mode: "enforce" });
    expect(viaPut.status).toBe(409);
    expect((await json(viaPut)).code).toBe("domain_not_verified");
    const click = await call(`${path(d.id)}/enforce`, { method: "POST", token: team.full });
    expect(click.status).toBe(409);
    expect((await json(click)).code).toBe("domain_not_verified");
    // Turning off stays possible (RFC 8461 §8.3 is how a policy ends).
    expect((await call(path(d.id), { method: "DELETE", token: team.full })).status).toBe(200);
  });

  it("needs hosting on (409)", async () => {
    const { team, d } = await hostedDomain();
    expect((await call(`${path(d.id)}/enforce`, { method: "POST", token: team.full })).status).toBe(409);
  });
});

describe("the every-minute sweep while the Cloudflare API hangs", () => {
  it("stops starting API calls once its time budget is spent, and the next minute's sweep goes on with the rows not tried", async () => {
    const team = await makeTeam();
    const cf = installCloudflare();
    const names: string[] = [];
    const now = Date.now();
    for (let i = 0; i < 30; i++) {
      const d = await insertDomain(team.id);
      names.push(`mta-sts.${d.name}`);
      await env.DB.prepare(
        "INSERT INTO hosted_mta_sts (domain_id, team_id, domain_name, state, mode, mx_patterns, max_age, policy_id, policy_changed_at, id_delivery, published_checked_at, created_at, updated_at) VALUES (?, ?, ?, 'active', 'testing', ?, 604800, ?, ?, 'txt', ?, ?, ?)",
      )
        .bind(d.id, team.id, d.name, JSON.stringify([`mx.${d.name}`]), `20261128000000a${i}`, now, now, now, now)
        .run();
    }
    // Every call hangs until the client's 10 s timeout: here, the clock moves 11 s and the API fails.
    cf.failNext(503, 1_000);
    cf.onCall = () => {
      vi.setSystemTime(Date.now() + 11_000);
    };
    vi.useFakeTimers({ toFake: ["Date"], now: now + 60_000 });
    try {
      const ctx = createExecutionContext();
      await worker.scheduled(createScheduledController({ cron: "* * * * *", scheduledTime: Date.now() }), env, ctx);
      await waitOnExecutionContext(ctx);
      const tried = () => new Set(cf.calls.filter((c) => c.method === "POST" && c.path === "/custom_hostnames").map((c) => String(c.body?.hostname)));
      const first = tried();
      expect(first.size).toBeGreaterThan(0);
      // 40 s of budget at 11 s a call: at most 4 calls, not one per row of the batch (25).
      expect(cf.calls.length).toBeLessThanOrEqual(4);

      vi.setSystemTime(Date.now() + 60_000);
      const ctx2 = createExecutionContext();
      await worker.scheduled(createScheduledController({ cron: "* * * * *", scheduledTime: Date.now() }), env, ctx2);
      await waitOnExecutionContext(ctx2);
      // Rows the first sweep did not reach (in the grouped suite, other files' rows may be among them).
      const second = [...tried()].filter((h) => !first.has(h));
      expect(second.length).toBeGreaterThan(0);
      expect([...first].some((h) => names.includes(h)) || second.some((h) => names.includes(h))).toBe(true);
    } finally {
      cf.onCall = null;
      vi.useRealTimers();
    }
  });
});

describe("the id record when the sweep syncs a row its own request is still syncing", () => {
  it("leaves exactly one TXT record at <domain>.<MTA_STS_ID_ZONE>: two v=STSv1 records are no policy (RFC 8461 §3.1)", async () => {
    const team = await makeTeam();
    const d = await insertDomain(team.id);
    const cf = installCloudflare(mxZone(d.name));
    const name = `${d.name}.sts-id.test`;
    let fired = false;
    // The enable has looked for the record (none) and is creating it: the every-minute sweep picks the new
    // row (no hostname stored yet), looks too, and creates one as well.
    cf.onCall = async (c) => {
      if (fired || c.method !== "POST" || c.path !== "/dns_records" || c.body?.name !== name) return;
      fired = true;
      const ctx = createExecutionContext();
      await worker.scheduled(createScheduledController({ cron: "* * * * *", scheduledTime: Date.now() }), env, ctx);
      await waitOnExecutionContext(ctx);
    };
    try {
      const s = await statusOf(await put(d.id, team.full));
      expect(fired).toBe(true);
      const atName = [...cf.records.values()].filter((r) => r.name === name && r.type === "TXT");
      expect(atName.map((r) => unquote(r.content))).toEqual([`v=STSv1; id=${s.hosting?.policy_id}`]);
    } finally {
      cf.onCall = null;
    }
  });
});
