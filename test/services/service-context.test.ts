// Write verbs refuse a read-only ServiceContext whichever face built it (REST, dashboard, agent).
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { ApiError } from "../../src/lib/errors";
import { createServices } from "../../src/services";
import { createDomain } from "../../src/services/domains/create-domain";
import { listDomains } from "../../src/services/domains/list-domains";
import { makeTeam, unique } from "../support/api";
import { teamContext } from "../support/context";

describe("ServiceContext scope", () => {
  it("a read-only context may read but not write, and nothing is written", async () => {
    const team = await makeTeam();
    const svc = createServices(env);
    const name = `${unique("ro")}.example.com`;
    const error = await createDomain(svc, teamContext(team.id, "read_only"), { name }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ApiError);
    expect((error as ApiError).status).toBe(403);
    const { total } = await listDomains(svc, teamContext(team.id, "read_only"), { page: 1, per_page: 50 });
    expect(total, "no domain was created").toBe(0);
    const created = await createDomain(svc, teamContext(team.id, "full"), { name });
    expect(created.name).toBe(name);
  });
});
