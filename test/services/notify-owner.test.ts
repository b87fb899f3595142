// Owner notices go out through the SEND_EMAIL binding declared in wrangler.toml (locally, the runtime
// writes the message to a file instead of sending it) and are always recorded.
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { createServices } from "../../src/services";
import { notifyOwner } from "../../src/services/notifications/notify-owner";
import { makeTeam } from "../support/api";

describe("owner notices", () => {
  it("are sent through the send_email binding when NOTIFY_FROM is set, and recorded either way", async () => {
    const team = await makeTeam();
    expect(env.SEND_EMAIL, "the binding is declared in wrangler.toml").toBeDefined();
    const sent = await notifyOwner(createServices({ ...env, NOTIFY_FROM: "alerts@emailauth.example" }), {
      teamId: team.id,
      kind: "test",
      subject: "Hello",
      body: "A notice.",
    });
    expect(sent).toMatchObject({ sent: true, error: null });
    const recorded = await notifyOwner(createServices(env), { teamId: team.id, kind: "test", subject: "Hello", body: "A notice." });
    expect(recorded).toMatchObject({ sent: false, error: "not sent: NOTIFY_FROM is not configured" });
    const rows = await env.DB.prepare("SELECT sent_at FROM notifications WHERE team_id = ? ORDER BY id").bind(team.id).all<{ sent_at: number | null }>();
    expect(rows.results.map((r) => r.sent_at !== null)).toEqual([true, false]);
  });
});
