// Domains routes: add, list, view, delete, verify, check, history and diffs; validation, pagination and security.
import { env } from "cloudflare:workers";
import { afterEach, describe, expect, it } from "vitest";
import { call, json, makeTeam } from "../../support/api";
import { type DohStub, installDohStub } from "../../support/doh-stub";
import { addDomain, captureChecks, eventsOf, markVerified, newDomainName, zoneFor } from "../../support/monitoring";

let stub: DohStub | null = null;
let capture: ReturnType<typeof captureChecks> | null = null;
afterEach(() => {
  capture?.restore();
  capture = null;
});

type Body = { data: Record<string, any>; meta?: Record<string, number> };

describe("POST /domains", () => {
  it("adds a normalized domain with its ownership record, report address and domain.created", async () => {
    const team = await makeTeam();
    const base = newDomainName();
    const res = await call("/api/v1/domains", { method: "POST", token: team.full, body: { name: ` ${base.toUpperCase()}. `, client_id: 7 } });
    expect(res.status).toBe(201);
    const { data } = await json<Body>(res);
    expect(data).toMatchObject({ name: base, client: "7", verified: false, score: null, next_check_at: null });
    expect(data.verification).toEqual({ host: `_emailauth-verify.${base}`, type: "TXT", value: expect.stringMatching(/^emailauth-verify=[0-9A-Za-z]{32}$/) });
    expect(data.dmarc_report_address).toMatch(/^[0-9a-z]{20}@reports\.test$/);
    expect(await eventsOf(data.id)).toEqual([{ type: "domain.created", data: { domain: { id: data.id, name: base } } }]);
  });

  it("converts an IDN to punycode, answers 409 for a duplicate in the team and allows it in another team", async () => {
    const [a, b] = [await makeTeam(), await makeTeam()];
    const label = newDomainName().replace(".com", "");
    const res = await call("/api/v1/domains", { method: "POST", token: a.full, body: { name: `bücher-${label}.de` } });
    const { data } = await json<Body>(res);
    expect(data.name).toMatch(/^xn--/);
    expect(data.name).toBe(new URL(`http://bücher-${label}.de/`).hostname);
    const dup = await call("/api/v1/domains", { method: "POST", token: a.full, body: { name: `BÜCHER-${label}.de` } });
    expect(dup.status).toBe(409);
    expect((await json<{ code: string }>(dup)).code).toBe("conflict");
    expect((await call("/api/v1/domains", { method: "POST", token: b.full, body: { name: `bücher-${label}.de` } })).status).toBe(201);
  });

  it.each([
    [{ name: "" }],
    [{ name: "not a domain" }],
    [{ name: "192.0.2.1" }],
    [{ name: "localhost" }],
    [{}],
    [{ name: 5 }],
    [{ name: "example.com", client_id: "x" }],
    [{ name: "example.com", client_id: -1 }],
  ])("422 for %j", async (body) => {
    const team = await makeTeam();
    const res = await call("/api/v1/domains", { method: "POST", token: team.full, body });
    expect(res.status).toBe(422);
    const err = await json<{ code: string; errors: Record<string, string[]> }>(res);
    expect(err.code).toBe("validation_failed");
    expect(Object.keys(err.errors).length).toBeGreaterThan(0);
  });

  it("400 for malformed JSON, 415 for another content type, 401 without a token, 403 read-only", async () => {
    const team = await makeTeam();
    expect((await call("/api/v1/domains", { method: "POST", token: team.full, rawBody: "{", headers: { "content-type": "application/json" } })).status).toBe(
      400,
    );
    expect((await call("/api/v1/domains", { method: "POST", token: team.full, rawBody: "name=x", headers: { "content-type": "text/plain" } })).status).toBe(
      415,
    );
    expect((await call("/api/v1/domains", { method: "POST", body: { name: newDomainName() } })).status).toBe(401);
    expect((await call("/api/v1/domains", { method: "POST", token: team.readOnly, body: { name: newDomainName() } })).status).toBe(403);
  });
});

describe("GET /domains and GET /domains/{domain}", () => {
  it("lists only the team's domains with meta, and enforces pagination bounds", async () => {
    const [team, other] = [await makeTeam(), await makeTeam()];
    const mine = [await addDomain(team), await addDomain(team), await addDomain(team)];
    await addDomain(other);
    const page = await json<Body & { data: Array<{ id: number }> }>(await call("/api/v1/domains?per_page=2&page=2", { token: team.readOnly }));
    expect(page.meta).toEqual({ current_page: 2, per_page: 2, total: 3, last_page: 2 });
    expect(page.data.map((d) => d.id)).toEqual([mine[2]?.id]);
    const first = await json<Body & { data: Array<{ id: number }> }>(await call("/api/v1/domains", { token: team.full }));
    expect(first.meta, "the total comes with the page").toEqual({ current_page: 1, per_page: 25, total: 3, last_page: 1 });
    expect(first.data.map((d) => d.id)).toEqual(mine.map((d) => d?.id));
    const past = await json<Body & { data: unknown[] }>(await call("/api/v1/domains?per_page=2&page=5", { token: team.full }));
    expect(past.meta, "an empty page past the end still knows the total").toEqual({ current_page: 5, per_page: 2, total: 3, last_page: 2 });
    expect(past.data).toEqual([]);
    const empty = await json<Body & { data: unknown[] }>(await call("/api/v1/domains", { token: (await makeTeam()).full }));
    expect(empty.meta).toEqual({ current_page: 1, per_page: 25, total: 0, last_page: 1 });
    for (const q of ["page=0", "per_page=201", "per_page=0", "page=x"]) {
      expect((await call(`/api/v1/domains?${q}`, { token: team.full })).status, q).toBe(422);
    }
    expect((await call("/api/v1/domains")).status).toBe(401);
  });

  it("shows the single view (null posture before a check); another team's id and junk ids are 404", async () => {
    const [team, other] = [await makeTeam(), await makeTeam()];
    const d = await addDomain(team);
    const res = await call(`/api/v1/domains/${d.id}`, { token: team.readOnly });
    expect(res.status).toBe(200);
    const { data } = await json<Body>(res);
    expect(data).toMatchObject({ id: d.id, verification: d.verification, posture: null, recommendations: [], fixes: [] });
    expect(data.dmarc_report_address).toMatch(/@reports\.test$/);
    for (const path of [`/api/v1/domains/${d.id}`, `/api/v1/domains/${d.id}/checks`, `/api/v1/domains/${d.id}/diffs`]) {
      expect((await call(path, { token: other.full })).status, path).toBe(404);
    }
    expect((await call("/api/v1/domains/abc", { token: team.full })).status).toBe(404);
    expect((await call("/api/v1/domains/99999999", { token: team.full })).status).toBe(404);
  });
});

describe("DELETE /domains/{domain}", () => {
  it("removes the domain and its history, keeps domain.deleted; 404 for another team, 403 read-only", async () => {
    const [team, other] = [await makeTeam(), await makeTeam()];
    const d = await addDomain(team);
    await env.DB.prepare("INSERT INTO checks (id, domain_id, status, trigger, queries, created_at) VALUES (?, ?, 'completed', 'manual', 0, ?)")
      .bind(`chk_del_${d.id}`, d.id, Date.now())
      .run();
    expect((await call(`/api/v1/domains/${d.id}`, { method: "DELETE", token: other.full })).status).toBe(404);
    expect((await call(`/api/v1/domains/${d.id}`, { method: "DELETE", token: team.readOnly })).status).toBe(403);
    const res = await call(`/api/v1/domains/${d.id}`, { method: "DELETE", token: team.full });
    expect(res.status).toBe(204);
    expect((await call(`/api/v1/domains/${d.id}`, { token: team.full })).status).toBe(404);
    const left = await env.DB.prepare("SELECT count(*) AS n FROM checks WHERE domain_id = ?").bind(d.id).first<{ n: number }>();
    expect(left?.n, "cascade").toBe(0);
    expect((await eventsOf(d.id)).map((e) => e.type)).toEqual(["domain.created", "domain.deleted"]);
    expect((await call(`/api/v1/domains/${d.id}`, { method: "DELETE", token: team.full })).status).toBe(404);
  });
});

describe("POST /domains/{domain}/verify", () => {
  it("reports a missing or wrong record, then verifies once and is idempotent", async () => {
    capture = captureChecks();
    const team = await makeTeam();
    const d = await addDomain(team);
    stub = installDohStub(zoneFor(d.name, { verifyValue: "emailauth-verify=wrong" }));
    let body = await json<Body>(await call(`/api/v1/domains/${d.id}/verify`, { method: "POST", token: team.full }));
    expect(body.data).toMatchObject({ verified: false, record_found: true, reason: expect.stringContaining("does not contain") });
    stub.restore();
    stub = installDohStub(zoneFor(d.name, { verifyValue: d.verification.value }));
    body = await json<Body>(await call(`/api/v1/domains/${d.id}/verify`, { method: "POST", token: team.full }));
    expect(body.data).toMatchObject({ verified: true, record_found: true, domain: { id: d.id, verified: true } });
    expect(body.data.domain.next_check_at, "monitoring started").not.toBeNull();
    body = await json<Body>(await call(`/api/v1/domains/${d.id}/verify`, { method: "POST", token: team.full }));
    expect(body.data).toMatchObject({ verified: true, reason: "already verified" });
    expect(capture.sent, "one first check").toHaveLength(1);
    expect((await eventsOf(d.id)).filter((e) => e.type === "domain.verified")).toHaveLength(1);
  });

  it("answers 503 when no resolver answers, never 'not found'; 404 other team; 403 read-only", async () => {
    const [team, other] = [await makeTeam(), await makeTeam()];
    const d = await addDomain(team);
    stub = installDohStub(zoneFor(d.name));
    stub.setFault(d.verification.host, "TXT", "servfail");
    const res = await call(`/api/v1/domains/${d.id}/verify`, { method: "POST", token: team.full });
    expect(res.status).toBe(503);
    expect((await json<{ code: string }>(res)).code).toBe("dependency_unavailable");
    expect((await call(`/api/v1/domains/${d.id}/verify`, { method: "POST", token: other.full })).status).toBe(404);
    expect((await call(`/api/v1/domains/${d.id}/verify`, { method: "POST", token: team.readOnly })).status).toBe(403);
  });
});

describe("POST /domains/{domain}/check", () => {
  it("queues a check for a verified domain (202), 409 domain_not_verified otherwise", async () => {
    capture = captureChecks();
    const [team, other] = [await makeTeam(), await makeTeam()];
    const d = await addDomain(team);
    const unverified = await call(`/api/v1/domains/${d.id}/check`, { method: "POST", token: team.full });
    expect(unverified.status).toBe(409);
    expect((await json<{ code: string }>(unverified)).code).toBe("domain_not_verified");
    await markVerified(d.id);
    const res = await call(`/api/v1/domains/${d.id}/check`, { method: "POST", token: team.full });
    expect(res.status).toBe(202);
    const { data } = await json<Body>(res);
    expect(data).toEqual({ check_id: expect.stringMatching(/^chk_/), status: "queued" });
    expect(capture.sent).toEqual([{ domain_id: d.id, check_id: data.check_id, trigger: "manual" }]);
    expect((await call(`/api/v1/domains/${d.id}/check`, { method: "POST", token: other.full })).status).toBe(404);
    expect((await call(`/api/v1/domains/${d.id}/check`, { method: "POST", token: team.readOnly })).status).toBe(403);
  });
});

describe("GET /domains/{domain}/checks and /diffs", () => {
  it("paginates newest first with meta and validates the query", async () => {
    const team = await makeTeam();
    const d = await addDomain(team);
    const t = Date.now();
    for (let i = 0; i < 3; i++) {
      await env.DB.prepare(
        "INSERT INTO checks (id, domain_id, status, trigger, score, grade, queries, created_at) VALUES (?, ?, 'completed', 'scheduled', ?, 'B', 10, ?)",
      )
        .bind(`chk_h${i}_${d.id}`, d.id, 80 + i, t + i * 1000)
        .run();
      await env.DB.prepare(
        "INSERT INTO diffs (domain_id, check_id, category, field, before, after, severity, created_at) VALUES (?, ?, 'dmarc', 'p', 'reject', 'none', 'High', ?)",
      )
        .bind(d.id, `chk_h${i}_${d.id}`, t + i * 1000)
        .run();
    }
    const checks = await json<Body & { data: Array<Record<string, unknown>> }>(
      await call(`/api/v1/domains/${d.id}/checks?per_page=2`, { token: team.readOnly }),
    );
    expect(checks.meta).toEqual({ current_page: 1, per_page: 2, total: 3, last_page: 2 });
    expect(checks.data.map((c) => c.score)).toEqual([82, 81]);
    expect(checks.data[0]).toMatchObject({ id: `chk_h2_${d.id}`, status: "completed", trigger: "scheduled", grade: "B", stale_parts: [], queries: 10 });
    const diffs = await json<Body & { data: Array<Record<string, unknown>> }>(
      await call(`/api/v1/domains/${d.id}/diffs?page=2&per_page=2`, { token: team.full }),
    );
    expect(diffs.meta).toEqual({ current_page: 2, per_page: 2, total: 3, last_page: 2 });
    expect(diffs.data).toEqual([
      expect.objectContaining({ check_id: `chk_h0_${d.id}`, category: "dmarc", field: "p", before: "reject", after: "none", severity: "High" }),
    ]);
    expect((await call(`/api/v1/domains/${d.id}/diffs?per_page=500`, { token: team.full })).status).toBe(422);
    expect((await call(`/api/v1/domains/${d.id}/checks?page=0`, { token: team.full })).status).toBe(422);
    expect((await call(`/api/v1/domains/${d.id}/checks`)).status).toBe(401);
  });
});
