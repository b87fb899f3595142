// The digest settings page: any member sets their own frequency; owners and admins set the team's time
// zone (an IANA name, checked), hour and weekday; viewers may not; every form needs its CSRF token.
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { Browser, signedInOwner } from "../support/browser";
import { addMember } from "../support/digests";

const PAGE = "/settings/notifications/digest";

const settingsOf = (teamId: number) =>
  env.DB.prepare("SELECT time_zone, hour, weekday FROM team_digest_settings WHERE team_id = ?")
    .bind(teamId)
    .first<{ time_zone: string; hour: number; weekday: number }>();
const frequencyOf = async (teamId: number, email: string) =>
  (
    await env.DB.prepare("SELECT p.frequency FROM member_digest_prefs p JOIN users u ON u.id = p.user_id WHERE p.team_id = ? AND u.email = ?")
      .bind(teamId, email)
      .first<{ frequency: string }>()
  )?.frequency ?? null;

describe("digest settings page", () => {
  it("shows the defaults, saves the owner's frequency and the team's zone, hour and weekday", async () => {
    const { b, teamId, address } = await signedInOwner("digest");
    const page = await b.fetch(PAGE);
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain("08:00 UTC");
    expect(html).toContain("on Monday");
    expect(html).toContain('name="time_zone"');

    const mine = await b.post(`${PAGE}/mine`, { frequency: "daily" }, PAGE);
    expect(mine.status).toBe(303);
    expect(await frequencyOf(teamId, address)).toBe("daily");

    const team = await b.post(`${PAGE}/team`, { time_zone: "Pacific/Auckland", hour: "7", weekday: "5" }, PAGE);
    expect(team.status).toBe(303);
    expect(await settingsOf(teamId)).toEqual({ time_zone: "Pacific/Auckland", hour: 7, weekday: 5 });
    expect(await (await b.fetch(`${PAGE}?saved=team`)).text()).toContain("07:00 Pacific/Auckland");
  });

  it("refuses an unknown time zone or hour with a 422 naming the field, and a form without its CSRF token with a 403", async () => {
    const { b, teamId } = await signedInOwner("digest-bad");
    const bad = await b.post(`${PAGE}/team`, { time_zone: "Mars/Olympus_Mons", hour: "7", weekday: "1" }, PAGE);
    expect(bad.status).toBe(422);
    const hour = await b.post(`${PAGE}/team`, { time_zone: "UTC", hour: "24", weekday: "1" }, PAGE);
    expect(hour.status).toBe(422);
    const forged = await b.fetch(`${PAGE}/mine`, { method: "POST", form: { frequency: "off" } });
    expect(forged.status).toBe(403);
    expect(await settingsOf(teamId)).toBeNull();
  });

  it("a viewer sets their own frequency but not the team's schedule", async () => {
    const { teamId } = await signedInOwner("digest-team");
    const viewer = await addMember(teamId, "viewer");
    const b = new Browser();
    await b.signIn(viewer.email);
    const page = await (await b.fetch(PAGE)).text();
    expect(page).not.toContain('name="time_zone"');
    expect((await b.post(`${PAGE}/mine`, { frequency: "off" }, PAGE)).status).toBe(303);
    expect(await frequencyOf(teamId, viewer.email)).toBe("off");
    expect((await b.post(`${PAGE}/team`, { time_zone: "UTC", hour: "9", weekday: "1" }, PAGE)).status).toBe(403);
    expect(await settingsOf(teamId)).toBeNull();
  });
});
