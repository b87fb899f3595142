// Shared steps of the single sign-on tests: a team whose owner configures the fake provider and a
// verified covered domain through the dashboard, and a sign-in through /sso/start and /sso/callback.
import { env } from "cloudflare:workers";
import { expect } from "vitest";
import { Browser, signedInOwner } from "../../support/browser";
import { CLIENT_ID, CLIENT_SECRET, type FakeProvider, ISSUER, type IssueOptions } from "../../support/oidc-fake";

export interface SsoTeam {
  owner: Browser;
  ownerEmail: string;
  teamId: number;
  domain: string;
}

export const freshDomain = () => `corp-${crypto.randomUUID().slice(0, 8)}.example`;

export async function ssoTeam(fake: FakeProvider, opts: { enforced?: boolean; autoJoin?: boolean; domain?: string } = {}): Promise<SsoTeam> {
  const { b: owner, teamId, address } = await signedInOwner("sso-owner");
  const domain = opts.domain ?? freshDomain();
  let res = await owner.post("/settings/sso", { issuer: ISSUER, client_id: CLIENT_ID, client_secret: CLIENT_SECRET }, "/settings/sso");
  expect(res.status, await res.clone().text()).toBe(200);
  res = await owner.post("/settings/sso/domains", { domain }, "/settings/sso");
  expect(res.status).toBe(200);
  const row = await env.DB.prepare("SELECT verification_token AS t FROM sso_domains WHERE team_id = ? AND domain = ?")
    .bind(teamId, domain)
    .first<{ t: string }>();
  fake.publishTxt(`_emailauth-verify.${domain}`, `emailauth-verify=${row?.t}`);
  res = await owner.post(`/settings/sso/domains/${domain}/verify`, {}, "/settings/sso");
  expect(await res.text()).toContain(`${domain} verified.`);
  if (opts.enforced || opts.autoJoin) {
    res = await owner.post("/settings/sso/options", { enforced: opts.enforced ? "on" : "", auto_join: opts.autoJoin ? "on" : "" }, "/settings/sso");
    expect(res.status).toBe(200);
  }
  return { owner, ownerEmail: address, teamId, domain };
}

export interface SsoAttempt {
  b: Browser;
  res: Response;
  callbackPath: string;
  startCookie: string | undefined;
}

/** Starts at /sso/start, lets the fake provider authorize (with the given token shape), returns the callback's answer. */
export async function ssoSignIn(fake: FakeProvider, email: string, opts: IssueOptions = {}, b = new Browser()): Promise<SsoAttempt> {
  const start = await b.fetch(`/sso/start?email=${encodeURIComponent(email)}`);
  expect(start.status, await start.clone().text()).toBe(302);
  const startCookie = start.headers.getSetCookie().find((c) => c.startsWith("__Host-sso="));
  const location = start.headers.get("location") ?? "";
  const state = new URL(location).searchParams.get("state") ?? "";
  const code = fake.authorize(location, opts);
  const callbackPath = `/sso/callback?code=${encodeURIComponent(code)}&state=${encodeURIComponent(state)}`;
  const res = await b.fetch(callbackPath);
  return { b, res, callbackPath, startCookie };
}

export const sessionCookieOf = (res: Response) => res.headers.getSetCookie().find((c) => c.startsWith("__Host-eam_session="));

export async function sessionsOf(email: string): Promise<number> {
  const row = await env.DB.prepare("SELECT COUNT(*) AS n FROM sessions s JOIN users u ON u.id = s.user_id WHERE u.email = ?")
    .bind(email)
    .first<{ n: number }>();
  return Number(row?.n ?? 0);
}
