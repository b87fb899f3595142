// Turning hosted MTA-STS off (RFC 8461 §8.3) and the stale-id alert, through the Worker's fetch and
// scheduled exports: mode none under a new id until the largest max_age served ran out, then the sweep
// removes the custom hostname, the id record and the row; with the plain TXT delivery the published id is
// read over DNS and a stale one raises the "hosting" alert until it is fixed (a DNS failure never does).
import { createExecutionContext, createScheduledController, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it, vi } from "vitest";
import worker from "../../../src/index";
import { call, json, makeTeam, unique } from "../../support/api";
import { Browser } from "../../support/browser";
import { installCloudflare } from "../../support/cloudflare-api";
import type { StubZone } from "../../support/doh-stub";
import { insertDomain } from "../../support/factories";

const path = (id: number) => `/api/v1/domains/${id}/mta-sts-hosting`;
const mxZone = (name: string): StubZone => ({ [name]: { MX: [{ preference: 10, exchange: `mx.${name}` }] } });
type Hosting = {
  policy_id: string;
  mode: string;
  max_age: number;
  policy_text: string;
  retiring: { since: string; safe_to_remove_at: string; safe_now: boolean } | null;
};
const hostingOf = async (res: Response) => (await json<{ data: { hosting: Hosting } }>(res)).data.hosting;

async function everyMinute(at = Date.now()) {
  const ctx = createExecutionContext();
  await worker.scheduled(createScheduledController({ cron: "* * * * *", scheduledTime: at }), env, ctx);
  await waitOnExecutionContext(ctx);
}

const hostingAlerts = async (domainId: number) =>
  (
    await env.DB.prepare("SELECT subject, severity, resolved_at FROM alerts WHERE domain_id = ? AND kind = 'hosting' ORDER BY id").bind(domainId).all<{
      subject: string;
      severity: string;
      resolved_at: number | null;
    }>()
  ).results;

describe("DELETE /domains/{domain}/mta-sts-hosting (RFC 8461 §8.3)", () => {
  it("serves mode none under a new id until the largest max_age served ran out, then the sweep removes hostname, id record and row", async () => {
    const team = await makeTeam();
    const d = await insertDomain(team.id);
    const cf = installCloudflare(mxZone(d.name));
    // Two policies: the first with two weeks, then one day. The larger one bounds the removal.
    await call(path(d.id), { method: "PUT", token: team.full, body: { max_age: 1_209_600 } });
    const active = await hostingOf(await call(path(d.id), { method: "PUT", token: team.full, body: { max_age: 86_400 } }));

    const res = await call(path(d.id), { method: "DELETE", token: team.full });
    expect(res.status).toBe(200);
    const retiring = await hostingOf(res);
    expect(retiring.mode).toBe("none");
    expect(retiring.max_age).toBe(86_400);
    expect(retiring.policy_id).not.toBe(active.policy_id);
    const since = Date.parse(retiring.retiring?.since ?? "");
    expect(Date.parse(retiring.retiring?.safe_to_remove_at ?? "") - since).toBe(1_209_600_000);
    expect(retiring.retiring?.safe_now).toBe(false);
    // What senders fetch now, and the id they are told to re-fetch with.
    const served = await worker.fetch(new Request(`https://mta-sts.${d.name}/.well-known/mta-sts.txt`), env, {} as ExecutionContext);
    expect(await served.text()).toBe(`version: STSv1\r\nmode: none\r\nmx: mx.${d.name}\r\nmax_age: 86400\r\n`);
    expect([...cf.records.values()].find((r) => r.name === `${d.name}.sts-id.test`)?.content).toBe(`"v=STSv1; id=${retiring.policy_id}"`);
    // Idempotent while retiring: the same id and time.
    expect((await hostingOf(await call(path(d.id), { method: "DELETE", token: team.full }))).policy_id).toBe(retiring.policy_id);

    // A day later the two-week policy may still be cached: nothing is removed.
    await everyMinute();
    vi.useFakeTimers({ toFake: ["Date"], now: since + 86_400_000 + 60_000 });
    await everyMinute();
    expect(await env.DB.prepare("SELECT state FROM hosted_mta_sts WHERE domain_id = ?").bind(d.id).first()).toEqual({ state: "retiring" });
    // This domain's hostname (the sweep may also retry other domains' calls in the same database).
    const mine = () => [...cf.hostnames.values()].filter((h) => h.hostname === `mta-sts.${d.name}`);
    expect(mine()).toHaveLength(1);

    vi.setSystemTime(since + 1_209_600_000 + 60_000);
    await everyMinute();
    vi.useRealTimers();
    expect(await env.DB.prepare("SELECT count(*) AS n FROM hosted_mta_sts WHERE domain_id = ?").bind(d.id).first()).toEqual({ n: 0 });
    expect(mine()).toEqual([]);
    expect([...cf.records.values()].filter((r) => r.name === `${d.name}.sts-id.test`)).toEqual([]);
    expect(cf.calls.some((c) => c.method === "DELETE" && c.path.startsWith("/custom_hostnames/"))).toBe(true);
    expect(cf.calls.some((c) => c.method === "DELETE" && c.path.startsWith("/dns_records/"))).toBe(true);
    const verbs = await env.DB.prepare("SELECT verb, actor_kind FROM audit_entries WHERE team_id = ? AND verb LIKE 'mta_sts_hosting.%' ORDER BY seq")
      .bind(team.id)
      .all();
    expect(verbs.results).toEqual([
      { verb: "mta_sts_hosting.enable", actor_kind: "token" },
      { verb: "mta_sts_hosting.update", actor_kind: "token" },
      { verb: "mta_sts_hosting.disable", actor_kind: "token" },
      { verb: "mta_sts_hosting.remove", actor_kind: "system" },
    ]);
    // The policy host is gone with the row: the app answers.
    const after = await worker.fetch(new Request(`https://mta-sts.${d.name}/.well-known/mta-sts.txt`), env, {} as ExecutionContext);
    expect(after.status).toBe(404);
    expect(after.headers.get("content-type")).toContain("application/json");
  });

  it("a PUT while retiring turns hosting back on with a new id; DELETE without hosting is 409", async () => {
    const team = await makeTeam();
    const d = await insertDomain(team.id);
    installCloudflare(mxZone(d.name));
    expect((await call(path(d.id), { method: "DELETE", token: team.full })).status).toBe(409);
    await call(path(d.id), { method: "PUT", token: team.full, body: {} });
    const retiring = await hostingOf(await call(path(d.id), { method: "DELETE", token: team.full }));
    const back = await hostingOf(await call(path(d.id), { method: "PUT", token: team.full, body: {} }));
    expect(back.mode).toBe("testing");
    expect(back.retiring).toBeNull();
    expect(back.policy_id).not.toBe(retiring.policy_id);
  });
});

describe("the stale-id alert (plain TXT delivery)", () => {
  it("raises while the published id is not ours, never on a DNS failure, and resolves once it is", async () => {
    const team = await makeTeam();
    const d = await insertDomain(team.id);
    const zone: StubZone = { ...mxZone(d.name), [`_mta-sts.${d.name}`]: { TXT: ["v=STSv1; id=20250101000000"] } };
    const cf = installCloudflare(zone);
    const hosting = await hostingOf(await call(path(d.id), { method: "PUT", token: team.full, body: { id_delivery: "txt" } }));
    // The TXT delivery: nothing is written to the operator's zone.
    expect(cf.calls.filter((c) => c.path === "/dns_records" && c.method === "POST")).toEqual([]);

    // DNS fails: unknown, never stale.
    cf.stub.setFault(`_mta-sts.${d.name}`, "TXT", "servfail");
    await everyMinute();
    expect(await hostingAlerts(d.id)).toEqual([]);
    cf.stub.setFault(`_mta-sts.${d.name}`, "TXT", null);

    // The check after a policy change (published checked before the change) reads the old id: stale.
    const t0 = Date.now();
    vi.useFakeTimers({ toFake: ["Date"], now: t0 + 16 * 60_000 });
    await everyMinute();
    const open = await hostingAlerts(d.id);
    expect(open).toEqual([{ subject: "mta_sts.id", severity: "Medium", resolved_at: null }]);
    const row = await env.DB.prepare("SELECT published_id FROM hosted_mta_sts WHERE domain_id = ?").bind(d.id).first();
    expect(row).toEqual({ published_id: "20250101000000" });
    const body = await env.DB.prepare("SELECT body FROM alerts WHERE domain_id = ? AND kind = 'hosting'").bind(d.id).first<{ body: string }>();
    expect(body?.body).toContain(`v=STSv1; id=${hosting.policy_id}`);

    // The user publishes the new id: the next look resolves the alert.
    zone[`_mta-sts.${d.name}`] = { TXT: [`v=STSv1; id=${hosting.policy_id}`] };
    vi.setSystemTime(t0 + 32 * 60_000);
    await everyMinute();
    vi.useRealTimers();
    const after = await hostingAlerts(d.id);
    expect(after).toHaveLength(1);
    expect(after[0]?.resolved_at).not.toBeNull();
  });
});

describe("a _mta-sts record senders cannot use (RFC 8461 §3.1)", () => {
  it("keeps the stale-id alert open while the new id sits beside the old one, or the record is malformed; one right record resolves it", async () => {
    const team = await makeTeam();
    const d = await insertDomain(team.id);
    const zone: StubZone = { ...mxZone(d.name), [`_mta-sts.${d.name}`]: { TXT: ["v=STSv1; id=20250101000000"] } };
    installCloudflare(zone);
    const hosting = await hostingOf(await call(path(d.id), { method: "PUT", token: team.full, body: { id_delivery: "txt" } }));
    const t0 = Date.now();
    vi.useFakeTimers({ toFake: ["Date"], now: t0 + 16 * 60_000 });
    try {
      await everyMinute();
      expect(await hostingAlerts(d.id)).toEqual([{ subject: "mta_sts.id", severity: "Medium", resolved_at: null }]);

      // The new id added as a second record: "If the number of resulting records is not one ... senders
      // MUST assume the recipient domain does not have an available MTA-STS policy" (RFC 8461 §3.1).
      zone[`_mta-sts.${d.name}`] = { TXT: ["v=STSv1; id=20250101000000", `v=STSv1; id=${hosting.policy_id}`] };
      vi.setSystemTime(t0 + 32 * 60_000);
      await everyMinute();
      expect(await hostingAlerts(d.id)).toEqual([{ subject: "mta_sts.id", severity: "Medium", resolved_at: null }]);
      // A record that does not parse (a space before "=", RFC 8461 §3.1) is no policy either.
      zone[`_mta-sts.${d.name}`] = { TXT: [`v=STSv1; id = ${hosting.policy_id}`] };
      vi.setSystemTime(t0 + 48 * 60_000);
      await everyMinute();
      expect(await hostingAlerts(d.id)).toEqual([{ subject: "mta_sts.id", severity: "Medium", resolved_at: null }]);
      const row = await env.DB.prepare("SELECT published_id FROM hosted_mta_sts WHERE domain_id = ?").bind(d.id).first();
      expect(row).toEqual({ published_id: null });

      zone[`_mta-sts.${d.name}`] = { TXT: [`v=STSv1; id=${hosting.policy_id}`] };
      vi.setSystemTime(t0 + 64 * 60_000);
      await everyMinute();
      expect((await hostingAlerts(d.id))[0]?.resolved_at).not.toBeNull();
    } finally {
      vi.useRealTimers();
    }
  });
});

describe("DELETE /domains/{domain} while MTA-STS is hosted", () => {
  it("is refused with 409 while hosting is on or retiring (RFC 8461 §8.3), and works once the sweep removed it", async () => {
    const team = await makeTeam();
    const d = await insertDomain(team.id);
    const cf = installCloudflare(mxZone(d.name));
    await call(path(d.id), { method: "PUT", token: team.full, body: { max_age: 86_400 } });
    const on = await call(`/api/v1/domains/${d.id}`, { method: "DELETE", token: team.full });
    expect(on.status).toBe(409);
    expect((await json<{ code: string; message: string }>(on)).message).toContain("turn it off first");

    const retiring = await hostingOf(await call(path(d.id), { method: "DELETE", token: team.full }));
    const off = await call(`/api/v1/domains/${d.id}`, { method: "DELETE", token: team.full });
    expect(off.status).toBe(409);
    expect((await json<{ message: string }>(off)).message).toContain(retiring.retiring?.safe_to_remove_at ?? "?");
    // Nothing was removed: the domain and its hosting are still there, and Cloudflare was not asked to delete.
    expect((await call(`/api/v1/domains/${d.id}`, { token: team.full })).status).toBe(200);
    expect(cf.calls.filter((c) => c.method === "DELETE")).toEqual([]);

    // After the old max_age the sweep removes the hosting; then the domain can go.
    vi.useFakeTimers({ toFake: ["Date"], now: Date.parse(retiring.retiring?.safe_to_remove_at ?? "") + 120_000 });
    await everyMinute();
    vi.useRealTimers();
    expect(await env.DB.prepare("SELECT 1 FROM hosted_mta_sts WHERE domain_id = ?").bind(d.id).first()).toBeNull();
    expect((await call(`/api/v1/domains/${d.id}`, { method: "DELETE", token: team.full })).status).toBe(204);
  });
});

describe("turning hosting back on while the sweep removes it", () => {
  it("keeps the row, writes no removal entry, and the next sweep recreates the hostname and id record it had deleted", async () => {
    const team = await makeTeam();
    const d = await insertDomain(team.id);
    const cf = installCloudflare(mxZone(d.name));
    const t0 = Date.now();
    vi.useFakeTimers({ toFake: ["Date"], now: t0 });
    try {
      await call(path(d.id), { method: "PUT", token: team.full, body: { max_age: 86_400 } });
      // The certificate is issued and the sweep has read it: the row says active, so nothing re-reads it later.
      cf.activateAll();
      vi.setSystemTime(t0 + 6 * 60_000);
      await everyMinute();
      const retiring = await hostingOf(await call(path(d.id), { method: "DELETE", token: team.full }));
      const mine = () => [...cf.hostnames.values()].filter((h) => h.hostname === `mta-sts.${d.name}`);
      expect(mine()).toHaveLength(1);

      // The removal's first API call: the team turns hosting back on before the sweep deletes the row.
      let fired = false;
      let back: Hosting | null = null;
      cf.onCall = async (c) => {
        if (fired || c.method !== "DELETE" || !c.path.startsWith("/custom_hostnames/")) return;
        fired = true;
        back = await hostingOf(await call(path(d.id), { method: "PUT", token: team.full, body: {} }));
      };
      vi.setSystemTime(Date.parse(retiring.retiring?.safe_to_remove_at ?? "") + 60_000);
      await everyMinute();
      cf.onCall = null;
      expect((back as Hosting | null)?.mode).toBe("testing");

      const row = await env.DB.prepare("SELECT state, policy_id FROM hosted_mta_sts WHERE domain_id = ?").bind(d.id).first();
      expect(row).toEqual({ state: "active", policy_id: (back as Hosting | null)?.policy_id });
      const verbs = await env.DB.prepare("SELECT verb FROM audit_entries WHERE team_id = ? AND verb LIKE 'mta_sts_hosting.%' ORDER BY seq").bind(team.id).all();
      expect(verbs.results.map((r) => r.verb)).toEqual(["mta_sts_hosting.enable", "mta_sts_hosting.disable", "mta_sts_hosting.enable"]);

      // The next minute: the hostname and the id record exist again, for the policy served now.
      vi.setSystemTime(Date.parse(retiring.retiring?.safe_to_remove_at ?? "") + 120_000);
      await everyMinute();
      expect(mine()).toHaveLength(1);
      const stored = await env.DB.prepare("SELECT custom_hostname_id FROM hosted_mta_sts WHERE domain_id = ?")
        .bind(d.id)
        .first<{ custom_hostname_id: string }>();
      expect(stored?.custom_hostname_id).toBe(mine()[0]?.id);
      const record = [...cf.records.values()].find((r) => r.name === `${d.name}.sts-id.test`);
      expect(record?.content).toBe(`"v=STSv1; id=${(back as Hosting | null)?.policy_id}"`);
    } finally {
      cf.onCall = null;
      vi.useRealTimers();
    }
  });
});

describe("deleting a team that hosts an MTA-STS policy", () => {
  it("is refused with 409 while a domain's hosting is on or retiring (RFC 8461 §8.3), as deleting the domain is", async () => {
    const owner = new Browser();
    const address = `${unique("sts-owner").toLowerCase()}@example.com`;
    await owner.signIn(address);
    const team = await env.DB.prepare(
      "SELECT t.id, t.name FROM teams t JOIN memberships m ON m.team_id = t.id JOIN users u ON u.id = m.user_id WHERE u.email = ?",
    )
      .bind(address)
      .first<{ id: number; name: string }>();
    const d = await insertDomain(team?.id ?? 0);
    const now = Date.now();
    await env.DB.prepare(
      "INSERT INTO hosted_mta_sts (domain_id, team_id, domain_name, state, mode, mx_patterns, max_age, policy_id, policy_changed_at, id_delivery, created_at, updated_at) VALUES (?, ?, ?, 'active', 'enforce', ?, 604800, '20261128000000abcdef', ?, 'cname', ?, ?)",
    )
      .bind(d.id, team?.id, d.name, JSON.stringify([`mx.${d.name}`]), now, now, now)
      .run();
    const res = await owner.post("/team/delete", { confirm: team?.name ?? "" }, "/team");
    expect(res.status).toBe(409);
    expect(await res.text()).toContain("turn it off first");
    expect(await env.DB.prepare("SELECT count(*) AS n FROM teams WHERE id = ?").bind(team?.id).first()).toEqual({ n: 1 });
    expect(await env.DB.prepare("SELECT state FROM hosted_mta_sts WHERE domain_id = ?").bind(d.id).first()).toEqual({ state: "active" });
  });
});
