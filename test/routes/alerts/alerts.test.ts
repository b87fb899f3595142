// Alerts: list with the open filter (newest first, paginated), resolve (idempotent, alert.resolved once), the one-open-per-subject rule.
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { openAlertKeys, upsertAlerts } from "../../../src/services/alerts/raise";
import { createServices } from "../../../src/services";
import { call, json, makeTeam } from "../../support/api";
import { addDomain, alertsOf, eventsOf } from "../../support/monitoring";

type Alert = { id: number; domain: string | null; kind: string; subject: string; severity: string; occurrences: number; resolved_at: string | null };

async function raise(teamId: number, domain: { id: number; name: string }, subject: string, severity: "High" | "Medium" = "High", at = new Date()) {
  const db = createServices(env).db;
  const u = upsertAlerts(
    db,
    [{ teamId, domain, kind: "drift", subject, severity, title: `${subject} changed`, body: null }],
    at,
    await openAlertKeys(db, teamId, domain.id),
  );
  await db.batch(u.statements as [(typeof u.statements)[number], ...typeof u.statements]);
  return u.eventIds;
}

describe("alerts", () => {
  it("keeps one open alert per subject: a repeat updates it; after resolve a repeat opens a new one", async () => {
    const team = await makeTeam();
    const d = await addDomain(team);
    const t = Date.now();
    expect(await raise(team.id, d, "dmarc.p", "Medium", new Date(t))).toHaveLength(1);
    expect(await raise(team.id, d, "dmarc.p", "High", new Date(t + 1000)), "no alert.created on repeat").toHaveLength(0);
    expect(await alertsOf(d.id)).toEqual([expect.objectContaining({ subject: "dmarc.p", severity: "High", occurrences: 2, resolved_at: null })]);
    const created = (await eventsOf(d.id)).filter((e) => e.type === "alert.created");
    expect(created).toHaveLength(1);

    const id = (created[0]?.data.alert as { id: number } | undefined)?.id;
    const res = await call(`/api/v1/alerts/${id}/resolve`, { method: "POST", token: team.full });
    expect(res.status).toBe(200);
    const first = (await json<{ data: Alert }>(res)).data;
    expect(first).toMatchObject({ id, domain: d.name, kind: "drift", resolved_at: expect.any(String) });
    const again = await json<{ data: Alert }>(await call(`/api/v1/alerts/${id}/resolve`, { method: "POST", token: team.full }));
    expect(again.data.resolved_at, "idempotent").toBe(first.resolved_at);
    expect((await eventsOf(d.id)).filter((e) => e.type === "alert.resolved")).toEqual([
      { type: "alert.resolved", data: expect.objectContaining({ domain: { id: d.id, name: d.name }, alert: expect.objectContaining({ id }) }) },
    ]);
    expect(await raise(team.id, d, "dmarc.p", "High", new Date(t + 2000))).toHaveLength(1);
    expect((await alertsOf(d.id)).map((a) => a.resolved_at === null)).toEqual([false, true]);
  });

  it("lists newest first with the open filter and pagination; validates the query", async () => {
    const team = await makeTeam();
    const d = await addDomain(team);
    const t = Date.now();
    for (let i = 0; i < 3; i++) await raise(team.id, d, `s${i}`, "High", new Date(t + i * 1000));
    const all = await json<{ data: Alert[]; meta: Record<string, number> }>(await call("/api/v1/alerts?per_page=2", { token: team.readOnly }));
    expect(all.meta).toEqual({ current_page: 1, per_page: 2, total: 3, last_page: 2 });
    expect(all.data.map((a) => a.subject)).toEqual(["s2", "s1"]);
    const s0 = (await json<{ data: Alert[] }>(await call("/api/v1/alerts?page=2&per_page=2", { token: team.full }))).data[0];
    expect(s0?.subject).toBe("s0");
    await call(`/api/v1/alerts/${s0?.id}/resolve`, { method: "POST", token: team.full });
    const open = await json<{ data: Alert[]; meta: { total: number } }>(await call("/api/v1/alerts?open=true", { token: team.full }));
    expect(open.data.map((a) => a.subject)).toEqual(["s2", "s1"]);
    const closed = await json<{ data: Alert[] }>(await call("/api/v1/alerts?open=false", { token: team.full }));
    expect(closed.data.map((a) => a.subject)).toEqual(["s0"]);
    for (const q of ["open=yes", "page=0", "per_page=201"]) expect((await call(`/api/v1/alerts?${q}`, { token: team.full })).status, q).toBe(422);
  });

  it("isolates teams (404), forbids read-only resolve (403) and needs a token (401)", async () => {
    const [team, other] = [await makeTeam(), await makeTeam()];
    const d = await addDomain(team);
    await raise(team.id, d, "spf.record");
    const [alert] = await alertsOf(d.id);
    const row = await env.DB.prepare("SELECT id FROM alerts WHERE domain_id = ?").bind(d.id).first<{ id: number }>();
    expect(alert).toBeDefined();
    expect((await call(`/api/v1/alerts/${row?.id}/resolve`, { method: "POST", token: other.full })).status).toBe(404);
    expect((await json<{ data: Alert[] }>(await call("/api/v1/alerts", { token: other.full }))).data).toEqual([]);
    expect((await call(`/api/v1/alerts/${row?.id}/resolve`, { method: "POST", token: team.readOnly })).status).toBe(403);
    expect((await call(`/api/v1/alerts/${row?.id}/resolve`, { method: "POST" })).status).toBe(401);
    expect((await call("/api/v1/alerts/nope/resolve", { method: "POST", token: team.full })).status).toBe(404);
    expect((await call("/api/v1/alerts")).status).toBe(401);
  });
});
