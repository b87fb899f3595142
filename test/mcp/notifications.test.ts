// The notification tools over MCP with the official SDK client: both read-only (a read-only token may call
// them), the channels with their rules and one channel with its recent messages, another team's channel not
// found, bad input refused, and no secret (chat URL, routing key) in anything a tool answers.
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { makeTeam } from "../support/api";
import { installReceiver } from "../support/webhooks";
import { callSite, createChannel, ROUTING_KEY, SLACK_URL } from "../routes/notifications/support";
import { callTool, connect, dataOf, errorOf } from "./support";

let client: Client | null = null;
let r: ReturnType<typeof installReceiver>;
beforeEach(() => {
  r = installReceiver();
});
afterEach(async () => {
  r.stub.restore();
  await client?.close();
  client = null;
});

const SECRETS = [SLACK_URL, SLACK_URL.slice(0, -4), ROUTING_KEY, ROUTING_KEY.slice(0, -4)];
const expectNoSecret = (value: unknown) => {
  const text = JSON.stringify(value);
  for (const s of SECRETS) expect(text).not.toContain(s);
};

async function teamWithChannels() {
  const team = await makeTeam();
  const slack = await createChannel(team.full, { kind: "slack", name: "#alerts", url: SLACK_URL, rules: [{ kinds: ["drift"], min_severity: "High" }] });
  const pd = await createChannel(team.full, { kind: "pagerduty", name: "On-call", routing_key: ROUTING_KEY });
  for (let i = 0; i < 3; i++) expect((await callSite(`/api/v1/notification-channels/${slack.id}/test`, { method: "POST", token: team.full })).status).toBe(202);
  return { team, slack, pd };
}

describe("notification tools", () => {
  it("are listed as read-only, and a read-only token calls them", async () => {
    const { team, slack, pd } = await teamWithChannels();
    client = await connect(team.readOnly);
    const { tools } = await client.listTools();
    const mine = tools.filter((t) => t.name.includes("notification"));
    expect(mine.map((t) => t.name).sort()).toEqual(["get_notification_channel", "list_notification_channels"]);
    for (const t of mine) expect(t.annotations, t.name).toMatchObject({ readOnlyHint: true, destructiveHint: false });

    const listed = await callTool(client, "list_notification_channels");
    expectNoSecret(listed);
    const channels = dataOf<Array<{ id: number; kind: string; target_hint: string; rules: unknown[] }>>(listed);
    expect(channels.map((c) => [c.id, c.kind, c.target_hint])).toEqual([
      [slack.id, "slack", "hooks.example.com/…uvwx"],
      [pd.id, "pagerduty", "routing key …rstu"],
    ]);
    expect((listed.structuredContent as { meta: unknown }).meta).toEqual({ total: 2, limit: 50 });
    expect(channels[0]?.rules).toEqual([expect.objectContaining({ kinds: ["drift"], min_severity: "High" })]);
  });

  it("gives one channel with its newest messages, as many as asked", async () => {
    const { team, slack } = await teamWithChannels();
    client = await connect(team.full);
    const result = await callTool(client, "get_notification_channel", { channel_id: slack.id, messages: 2 });
    expectNoSecret(result);
    const data = dataOf<{
      channel: { id: number; name: string };
      recent_messages: Array<{ id: number; kind: string; status: string; response_status: number }>;
    }>(result);
    expect(data.channel).toMatchObject({ id: slack.id, name: "#alerts", target_hint: "hooks.example.com/…uvwx" });
    expect(data.recent_messages).toHaveLength(2);
    expect(data.recent_messages[0]).toMatchObject({ kind: "test", status: "delivered", response_status: 200 });
    expect(data.recent_messages[0]!.id).toBeGreaterThan(data.recent_messages[1]!.id);
    // The receiver's answer is third-party text: the prose says so and points at the data.
    expect(JSON.stringify(result.content)).toMatch(/untrusted/);

    const all = dataOf<{ recent_messages: unknown[] }>(await callTool(client, "get_notification_channel", { channel_id: slack.id }));
    expect(all.recent_messages).toHaveLength(3);
  });

  it("does not find another team's channel and refuses bad input", async () => {
    const { slack } = await teamWithChannels();
    const other = await makeTeam();
    client = await connect(other.full);
    const foreign = await callTool(client, "get_notification_channel", { channel_id: slack.id });
    expect(errorOf(foreign).code).toBe("not_found");
    expect(JSON.stringify(foreign)).not.toContain("#alerts");
    expect(dataOf(await callTool(client, "list_notification_channels"))).toEqual([]);
    for (const args of [{}, { channel_id: "x" }, { channel_id: 0 }, { channel_id: slack.id, messages: 0 }, { channel_id: slack.id, messages: 51 }]) {
      const res = await callTool(client, "get_notification_channel", args);
      expect(res.isError, JSON.stringify(args)).toBe(true);
      expect(JSON.stringify(res.content)).toMatch(/validation/i);
    }
  });
});
