// A sign-in started by another site (login CSRF, RFC 9700 §4.7; docs/decisions.md D270): a cross-site
// GET /sso/start?email= answers the filled-in form (a click on this site continues), never a redirect.
import { env } from "cloudflare:workers";
import { beforeEach, describe, expect, it } from "vitest";
import { Browser } from "../../support/browser";
import { type FakeProvider, installFakeProvider } from "../../support/oidc-fake";
import { ssoTeam } from "./support";

let fake: FakeProvider;
beforeEach(async () => {
  fake = await installFakeProvider();
});

describe("a sign-in started by another site (login CSRF)", () => {
  it("answers a cross-site GET /sso/start with the filled-in form, not a redirect to the provider", async () => {
    const t = await ssoTeam(fake);
    const email = `cs-${crypto.randomUUID().slice(0, 6)}@${t.domain}`;
    const count = async () =>
      Number((await env.DB.prepare("SELECT COUNT(*) AS n FROM sso_logins WHERE team_id = ?").bind(t.teamId).first<{ n: number }>())?.n ?? 0);
    const before = await count();
    const res = await new Browser().fetch(`/sso/start?email=${encodeURIComponent(email)}`, { headers: { "sec-fetch-site": "cross-site" } });
    expect(res.status).toBe(200);
    expect(res.headers.get("location")).toBeNull();
    expect(res.headers.get("refresh")).toBeNull();
    expect(res.headers.getSetCookie().some((c) => c.startsWith("__Host-sso="))).toBe(false);
    const html = await res.text();
    expect(html).toContain('action="/sso/start"');
    expect(html).toContain(`value="${email}"`);
    expect(await count()).toBe(before);
    // The settings page's test link (a navigation from this site) and a typed address still go straight on.
    for (const site of ["same-origin", "none"]) {
      const direct = await new Browser().fetch(`/sso/start?email=${encodeURIComponent(email)}`, { headers: { "sec-fetch-site": site } });
      expect(direct.status).toBe(302);
    }
  });
});
