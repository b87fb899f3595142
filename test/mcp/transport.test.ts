import { describe, expect, it } from "vitest";
import { makeTeam } from "../support/api";
import { connect } from "./support";

describe("MCP transport", () => {
  it("initializes and lists the tools", async () => {
    const team = await makeTeam();
    const client = await connect(team.full);
    expect(client.getServerVersion()?.name).toBe("emailauth-monitor");
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toContain("list_domains");
    await client.close();
  });
});
