// Turning enforcement on ends the sessions of the team's members whose addresses it covers (docs/decisions.md
// D270 addendum): a session opened by an email link before enforcement would otherwise keep a person in for up
// to 30 days that the provider no longer lets in. Through the Worker's real fetch export.
import { env } from "cloudflare:workers";
import { beforeEach, describe, expect, it } from "vitest";
import { Browser } from "../../support/browser";
import { insertMember } from "../../support/factories";
import { type FakeProvider, installFakeProvider } from "../../support/oidc-fake";
import { ssoSignIn, ssoTeam } from "./support";

let fake: FakeProvider;
beforeEach(async () => {
  fake = await installFakeProvider();
});

const signedOut = (res: Response) => res.status >= 300 && res.status < 400 && (res.headers.get("location") ?? "").startsWith("/sign-in");

describe("sessions when enforcement is turned on", () => {
  it("ends the email-link sessions of covered members, keeps the owner's and other members', and audits it", async () => {
    const t = await ssoTeam(fake);
    const covered = await insertMember(t.teamId, "admin", `en-${crypto.randomUUID().slice(0, 6)}@${t.domain}`);
    const outside = await insertMember(t.teamId, "viewer", `out-${crypto.randomUUID().slice(0, 6)}@example.com`);
    const coveredBrowser = new Browser();
    await coveredBrowser.signIn(covered.email);
    const outsideBrowser = new Browser();
    await outsideBrowser.signIn(outside.email);
    expect((await coveredBrowser.fetch("/dashboard")).status).toBe(200);

    const res = await t.owner.post("/settings/sso/options", { enforced: "on", auto_join: "" }, "/settings/sso");
    expect(res.status).toBe(200);

    expect(signedOut(await coveredBrowser.fetch("/dashboard"))).toBe(true);
    expect((await outsideBrowser.fetch("/dashboard")).status).toBe(200);
    expect((await t.owner.fetch("/dashboard")).status).toBe(200);
    const entry = await env.DB.prepare("SELECT summary FROM audit_entries WHERE team_id = ? AND verb = 'sso.enforce' ORDER BY seq DESC LIMIT 1")
      .bind(t.teamId)
      .first<{ summary: string }>();
    expect(entry?.summary).toContain("enforced=on");
    expect(entry?.summary).toContain("covered sessions ended");

    // The provider lets the member back in.
    const again = await ssoSignIn(fake, covered.email);
    expect(again.res.status).toBe(303);
    expect((await again.b.fetch("/dashboard")).status).toBe(200);
  });

  it("leaves sessions alone when enforcement stays on or goes off", async () => {
    const t = await ssoTeam(fake, { enforced: true });
    const member = await insertMember(t.teamId, "viewer", `st-${crypto.randomUUID().slice(0, 6)}@${t.domain}`);
    const { b } = await ssoSignIn(fake, member.email);
    expect((await b.fetch("/dashboard")).status).toBe(200);
    await t.owner.post("/settings/sso/options", { enforced: "on", auto_join: "on" }, "/settings/sso");
    expect((await b.fetch("/dashboard")).status).toBe(200);
    await t.owner.post("/settings/sso/options", { enforced: "", auto_join: "" }, "/settings/sso");
    expect((await b.fetch("/dashboard")).status).toBe(200);
  });
});
