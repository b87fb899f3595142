// Boolean query flags read the same on every operation: true/false/1/0 in any case; anything else is a 422.
import { describe, expect, it } from "vitest";
import { call, json, makeTeam } from "../support/api";

describe("boolean query flags", () => {
  it("alerts?open= accepts true, false, 1, 0 (any case) and refuses other values", async () => {
    const team = await makeTeam();
    for (const v of ["true", "false", "1", "0", "TRUE", "False"]) {
      expect((await call(`/api/v1/alerts?open=${v}`, { token: team.full })).status, v).toBe(200);
    }
    const bad = await call("/api/v1/alerts?open=yes", { token: team.full });
    expect(bad.status).toBe(422);
    expect((await json<{ errors: Record<string, string[]> }>(bad)).errors.open).toBeTruthy();
  });

  it("intel/domain?full= refuses a value that is not a boolean", async () => {
    const team = await makeTeam();
    const bad = await call("/api/v1/intel/domain?domain=example.com&full=maybe", { token: team.full });
    expect(bad.status).toBe(422);
  });
});
