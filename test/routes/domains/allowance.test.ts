// The per-plan domain allowance (docs/limits.md): just under, at and over the limit, and under concurrency.
import { describe, expect, it } from "vitest";
import { PLAN_LIMITS } from "../../../src/lib/plans";
import { call, json, makeTeam } from "../../support/api";
import { newDomainName } from "../../support/monitoring";

const add = (token: string, name = newDomainName()) => call("/api/v1/domains", { method: "POST", token, body: { name } });

describe("domain allowance", () => {
  it("starter holds 10 domains: the 10th is accepted, the 11th is a 409 with nothing written", async () => {
    const team = await makeTeam("starter");
    const limit = PLAN_LIMITS.starter.domains;
    expect(limit).toBe(10);
    for (let i = 0; i < limit; i++) expect((await add(team.full)).status, `domain ${i + 1}`).toBe(201);
    const over = await add(team.full);
    expect(over.status).toBe(409);
    expect((await json<{ code: string; message: string }>(over)).message).toContain("allows 10 domains");
    const list = await json<{ meta: { total: number } }>(await call("/api/v1/domains?per_page=50", { token: team.full }));
    expect(list.meta.total).toBe(10);
    const me = await json<{ data: { limits: { domains: number } } }>(await call("/api/v1/me", { token: team.full }));
    expect(me.data.limits.domains).toBe(10);
    // Deleting one makes room again.
    const first = (await json<{ data: Array<{ id: number }> }>(await call("/api/v1/domains", { token: team.full }))).data[0];
    await call(`/api/v1/domains/${first?.id}`, { method: "DELETE", token: team.full });
    expect((await add(team.full)).status).toBe(201);
  });

  it("concurrent adds never pass the allowance together", async () => {
    const team = await makeTeam("starter");
    for (let i = 0; i < 7; i++) await add(team.full);
    const results = await Promise.all(Array.from({ length: 8 }, () => add(team.full)));
    const statuses = results.map((r) => r.status).sort();
    expect(statuses.filter((s) => s === 201)).toHaveLength(3);
    expect(statuses.filter((s) => s === 409)).toHaveLength(5);
    const list = await json<{ meta: { total: number } }>(await call("/api/v1/domains?per_page=50", { token: team.full }));
    expect(list.meta.total).toBe(10);
  });
});
