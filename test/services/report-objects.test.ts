// Tenancy and lifecycle of the per-domain report objects (docs/decisions.md D121, D124): a service reaches
// an object only for a domain it loaded within the caller's team, so another team's domain id is a 404
// that never names an object; deleting a domain (or its team) empties its object.
import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { createServices } from "../../src/services";
import { deleteTeam } from "../../src/services/accounts/members";
import { getDkimOverview } from "../../src/services/dkim-inventory/overview";
import { getDmarcAnalytics } from "../../src/services/dmarc/analytics";
import { getReport, listReports } from "../../src/services/dmarc/reports";
import { listSources } from "../../src/services/dmarc/sources";
import { deleteDomain } from "../../src/services/domains/delete-domain";
import { getTlsAnalytics } from "../../src/services/tls-reports/analytics";
import { makeTeam } from "../support/api";
import { teamContext } from "../support/context";
import { insertDomain } from "../support/factories";
import { reportObject, seedReport, seedRow, stored } from "../support/reports";

/** Services whose report namespace records every object name asked for. */
function recording() {
  const names: string[] = [];
  const ns = env.DOMAIN_STORE;
  const DOMAIN_STORE = new Proxy(ns, {
    get(target, prop) {
      if (prop === "getByName")
        return (name: string) => {
          names.push(name);
          return target.getByName(name);
        };
      const v = Reflect.get(target, prop);
      return typeof v === "function" ? v.bind(target) : v;
    },
  });
  return { svc: createServices({ ...env, DOMAIN_STORE }), names };
}

const today = () => new Date().toISOString().slice(0, 10);

describe("report objects and tenancy", () => {
  it("another team's domain id is a 404 from every report view and never reaches an object", async () => {
    const owner = await makeTeam();
    const stranger = await makeTeam();
    const d = await insertDomain(owner.id);
    await seedReport(d.id, { rows: [seedRow(today(), "192.0.2.1", 5, true)] });
    const { svc, names } = recording();
    const ctx = teamContext(stranger.id);
    const page = { page: 1, per_page: 25 };
    const calls: Array<() => Promise<unknown>> = [
      () => getDmarcAnalytics(svc, ctx, d.id, 30),
      () => listSources(svc, ctx, d.id, { days: 30, ...page }),
      () => listReports(svc, ctx, d.id, page),
      () => getReport(svc, ctx, d.id, 1, page),
      () => getTlsAnalytics(svc, ctx, d.id, 30),
      () => getDkimOverview(svc, ctx, d.id, 30),
      () => deleteDomain(svc, ctx, d.id),
    ];
    for (const call of calls) await expect(call()).rejects.toMatchObject({ status: 404 });
    expect(names, "no object was named").toEqual([]);
    expect((await stored(d.id)).messages, "the owner's data is untouched").toBe(5);

    // The owner reaches exactly its domain's object.
    const own = await getDmarcAnalytics(svc, teamContext(owner.id), d.id, 30);
    expect(own.summary.messages).toBe(5);
    expect(new Set(names)).toEqual(new Set([`domain:${d.id}`]));
  });

  it("deleting a domain empties its object; deleting a team empties every domain's object", async () => {
    const team = await makeTeam();
    const d = await insertDomain(team.id);
    await seedReport(d.id, { rows: [seedRow(today(), "192.0.2.1", 3, true)] });
    await deleteDomain(createServices(env), teamContext(team.id), d.id);
    await runInDurableObject(reportObject(d.id), async (_i, state) => {
      expect(state.storage.sql.exec("SELECT COUNT(*) AS n FROM sqlite_master WHERE type = 'table' AND name = 'rows'").one().n).toBe(0);
      expect(await state.storage.getAlarm()).toBeNull();
    });

    const owner = await makeTeam();
    const a = await insertDomain(owner.id);
    const b = await insertDomain(owner.id);
    for (const x of [a, b]) await seedReport(x.id, { rows: [seedRow(today(), "192.0.2.1", 1, true)] });
    const row = await env.DB.prepare("SELECT name FROM teams WHERE id = ?").bind(owner.id).first<{ name: string }>();
    await deleteTeam(createServices(env), { teamId: owner.id, role: "owner" } as Parameters<typeof deleteTeam>[1], row?.name ?? "");
    for (const x of [a, b]) {
      await runInDurableObject(reportObject(x.id), (_i, state) => {
        expect(state.storage.sql.exec("SELECT COUNT(*) AS n FROM sqlite_master WHERE type = 'table' AND name = 'rows'").one().n).toBe(0);
      });
    }
  });
});
