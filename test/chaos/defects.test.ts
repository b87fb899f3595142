// Defects the chaos suite (npm run test:chaos) found, each pinned by a focused test in the Workers pool.
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { call, json, makeTeam, type TestTeam } from "../support/api";
import { installDohStub, restoreDohStubs } from "../support/doh-stub";

let team: TestTeam;
beforeAll(async () => {
  team = await makeTeam();
});
afterEach(() => restoreDohStubs());

describe("schema fuzz findings", () => {
  it.each(["TRUE", "True", "1", "true"])("GET /intel/domain?full=%s of a domain with no records answers the full analysis, not a 500", async (flag) => {
    installDohStub({});
    const res = await call(`/api/v1/intel/domain?domain=example.com&full=${flag}`, { token: team.full });
    const body = await json<{ data?: { view?: string }; code?: string; message?: string }>(res);
    expect(res.status, JSON.stringify(body)).toBe(200);
    expect(body.data?.view).toBe("full");
  });
});
