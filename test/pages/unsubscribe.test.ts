// One-click unsubscribe pages (RFC 8058) through the Worker's fetch export: a GET (what a mail scanner or
// link preview fetches, §1) shows what will stop and changes nothing; a POST with no session and no CSRF
// token, its body `List-Unsubscribe=One-Click` as urlencoded or multipart form data (§3.2), applies it and
// answers 200, again and again; a forged or altered link is a 404 that changes nothing.
import { env, exports } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { createServices } from "../../src/services";
import { type UnsubscribeTarget, listUnsubscribeHeaders, unsubscribeUrl } from "../../src/services/notify/unsubscribe";
import { makeTeam, unique } from "../support/api";
import { addMember, SITE } from "../support/digests";

const svc = createServices({ ...env, SITE_URL: SITE });

const d1 = async <T>(query: string, ...params: unknown[]) =>
  (
    await env.DB.prepare(query)
      .bind(...params)
      .all<T>()
  ).results;

const pathOf = (url: string) => new URL(url).pathname;
const get = (path: string) => exports.default.fetch(new Request(`${SITE}${path}`, { headers: { accept: "text/html" } }));

/** The mail client's one-click POST: no cookie, no Origin, no CSRF field (RFC 8058 §3.2). */
function oneClick(path: string, as: "urlencoded" | "multipart" = "urlencoded") {
  const body =
    as === "multipart"
      ? (() => {
          const f = new FormData();
          f.set("List-Unsubscribe", "One-Click");
          return f;
        })()
      : new URLSearchParams({ "List-Unsubscribe": "One-Click" });
  return exports.default.fetch(new Request(`${SITE}${path}`, { method: "POST", body }));
}

async function emailChannel(teamId: number, o: { mode: "members" | "address"; address?: string }) {
  const row = await env.DB.prepare(
    "INSERT INTO notification_channels (team_id, kind, name, email_mode, address, confirmed_at, enabled, failure_count, created_at) VALUES (?, 'email', ?, ?, ?, ?, 1, 0, ?) RETURNING id",
  )
    .bind(teamId, unique("mail channel"), o.mode, o.address ?? null, o.address ? Date.now() : null, Date.now())
    .first<{ id: number }>();
  if (!row) throw new Error("channel insert failed");
  return row.id;
}

const subscribe = (channelId: number, teamId: number, userId: number) =>
  env.DB.prepare("INSERT INTO channel_subscribers (channel_id, user_id, team_id, created_at) VALUES (?, ?, ?, ?)")
    .bind(channelId, userId, teamId, Date.now())
    .run();

const frequencyOf = async (teamId: number, userId: number) =>
  (await d1<{ frequency: string }>("SELECT frequency FROM member_digest_prefs WHERE team_id = ? AND user_id = ?", teamId, userId))[0]?.frequency ?? null;

describe("one-click unsubscribe", () => {
  it("gives the RFC 8058 §3.1 header pair with an HTTPS link on SITE_URL", async () => {
    const team = await makeTeam();
    const m = await addMember(team.id);
    const url = await unsubscribeUrl(svc, { purpose: "digest", teamId: team.id, userId: m.userId });
    expect(url).toMatch(new RegExp(`^${SITE}/unsubscribe/[A-Za-z0-9._-]+$`));
    expect(listUnsubscribeHeaders(url)).toEqual({ "List-Unsubscribe": `<${url}>`, "List-Unsubscribe-Post": "List-Unsubscribe=One-Click" });
  });

  it("a GET shows what will stop and changes nothing; the POST without session or CSRF token stops the digest, idempotently", async () => {
    const team = await makeTeam();
    const m = await addMember(team.id);
    const path = pathOf(await unsubscribeUrl(svc, { purpose: "digest", teamId: team.id, userId: m.userId }));

    const page = await get(path);
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain("stop the digest mail");
    expect(html).toContain(`action="${path}"`);
    expect(await frequencyOf(team.id, m.userId)).toBeNull();

    const res = await oneClick(path, "multipart");
    expect(res.status).toBe(200);
    expect(await res.text()).toContain("no more digests");
    expect(await frequencyOf(team.id, m.userId)).toBe("off");
    expect((await oneClick(path)).status).toBe(200);
    expect(await frequencyOf(team.id, m.userId)).toBe("off");
    // Afterwards the page says there is nothing left to do.
    expect(await (await get(path)).text()).toContain("already done");
  });

  it("a member's link removes only that member from a members channel", async () => {
    const team = await makeTeam();
    const [a, b] = [await addMember(team.id), await addMember(team.id)];
    const channelId = await emailChannel(team.id, { mode: "members" });
    await subscribe(channelId, team.id, a.userId);
    await subscribe(channelId, team.id, b.userId);
    const target: UnsubscribeTarget = { purpose: "channel", teamId: team.id, channelId, userId: a.userId, address: null };
    const res = await oneClick(pathOf(await unsubscribeUrl(svc, target)));
    expect(res.status).toBe(200);
    expect(await d1("SELECT user_id FROM channel_subscribers WHERE channel_id = ?", channelId)).toEqual([{ user_id: b.userId }]);
  });

  it("an address channel's link disables that channel, saying why", async () => {
    const team = await makeTeam();
    const channelId = await emailChannel(team.id, { mode: "address", address: "oncall@outside.test" });
    const url = await unsubscribeUrl(svc, { purpose: "channel", teamId: team.id, channelId, userId: null, address: "oncall@outside.test" });
    expect(url).not.toContain("oncall");
    expect((await oneClick(pathOf(url))).status).toBe(200);
    const [row] = await d1<{ enabled: number; disabled_reason: string; disabled_at: number | null }>(
      "SELECT enabled, disabled_reason, disabled_at FROM notification_channels WHERE id = ?",
      channelId,
    );
    expect(row).toMatchObject({ enabled: 0, disabled_reason: "unsubscribed by the recipient" });
    expect(row?.disabled_at).not.toBeNull();
  });

  it("refuses a forged or altered link with a 404 and changes nothing", async () => {
    const team = await makeTeam();
    const [victim, other] = [await addMember(team.id), await addMember(team.id)];
    const path = pathOf(await unsubscribeUrl(svc, { purpose: "digest", teamId: team.id, userId: other.userId }));
    const [payload, mac] = [path.slice(0, path.lastIndexOf(".")), path.slice(path.lastIndexOf(".") + 1)];
    // Another member's id under the same signature, another team's, a made-up signature, garbage.
    const forged = [
      `${payload.replace(`.${other.userId}.off`, `.${victim.userId}.off`)}.${mac}`,
      `${payload.replace(`/d.${team.id}.`, `/d.${team.id + 1000}.`)}.${mac}`,
      `${payload}.${"A".repeat(43)}`,
      "/unsubscribe/nonsense",
    ];
    for (const p of forged) {
      expect((await oneClick(p)).status, p).toBe(404);
      expect((await get(p)).status, p).toBe(404);
    }
    // A link signed under another key (not WEBHOOK_SECRET_KEY nor the previous one) is refused too.
    const otherKey = createServices({ ...env, SITE_URL: SITE, WEBHOOK_SECRET_KEY: btoa("x".repeat(32)) });
    expect((await oneClick(pathOf(await unsubscribeUrl(otherKey, { purpose: "digest", teamId: team.id, userId: victim.userId })))).status).toBe(404);
    expect(await frequencyOf(team.id, victim.userId)).toBeNull();
  });

  it("a link of a removed channel still answers 200: there is nothing left to stop", async () => {
    const team = await makeTeam();
    const m = await addMember(team.id);
    const channelId = await emailChannel(team.id, { mode: "members" });
    const path = pathOf(await unsubscribeUrl(svc, { purpose: "channel", teamId: team.id, channelId, userId: m.userId, address: null }));
    await env.DB.prepare("DELETE FROM notification_channels WHERE id = ?").bind(channelId).run();
    const res = await oneClick(path);
    expect(res.status).toBe(200);
    expect(await res.text()).toContain("already stopped");
  });
});
