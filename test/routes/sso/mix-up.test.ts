import { beforeEach, describe, expect, it } from "vitest";
import { Browser } from "../../support/browser";
import { insertMember } from "../../support/factories";
import { type FakeProvider, ISSUER, installFakeProvider } from "../../support/oidc-fake";
import { sessionCookieOf, sessionsOf, ssoTeam } from "./support";

let fake: FakeProvider;
beforeEach(async () => {
  fake = await installFakeProvider();
});

/** Starts a sign-in and has the fake provider authorize it; the callback is left to the test. */
async function authorized(email: string) {
  const b = new Browser();
  const start = await b.fetch(`/sso/start?email=${encodeURIComponent(email)}`);
  expect(start.status).toBe(302);
  const location = start.headers.get("location") ?? "";
  const state = new URL(location).searchParams.get("state") ?? "";
  return { b, code: fake.authorize(location), state };
}

describe("the authorization response's issuer (RFC 9207 §2.4, mix-up defence of RFC 9700 §4.4.2)", () => {
  it("refuses a code that arrives with another issuer's iss, before the code is sent anywhere", async () => {
    const t = await ssoTeam(fake);
    const member = await insertMember(t.teamId, "viewer", `mx-${crypto.randomUUID().slice(0, 6)}@${t.domain}`);
    const { b, code, state } = await authorized(member.email);
    const requests = fake.tokenRequests.length;
    const res = await b.fetch(`/sso/callback?code=${code}&state=${state}&iss=${encodeURIComponent("https://honest-idp.example")}`);
    expect(res.status).toBe(400);
    expect(await res.text()).toContain("another issuer");
    // The code (another provider's, in a mix-up) never reached this sign-in's token endpoint.
    expect(fake.tokenRequests.length).toBe(requests);
    expect(sessionCookieOf(res)).toBeUndefined();
    expect(await sessionsOf(member.email)).toBe(0);
  });

  it("accepts iss equal to the team's issuer", async () => {
    const t = await ssoTeam(fake);
    const member = await insertMember(t.teamId, "viewer", `mi-${crypto.randomUUID().slice(0, 6)}@${t.domain}`);
    const { b, code, state } = await authorized(member.email);
    const res = await b.fetch(`/sso/callback?code=${code}&state=${state}&iss=${encodeURIComponent(ISSUER)}`);
    expect(res.status).toBe(303);
  });

  it("requires iss when the provider's discovery document says it sends one", async () => {
    fake.discovery.authorization_response_iss_parameter_supported = true;
    const t = await ssoTeam(fake);
    const member = await insertMember(t.teamId, "viewer", `mr-${crypto.randomUUID().slice(0, 6)}@${t.domain}`);
    const { b, code, state } = await authorized(member.email);
    const requests = fake.tokenRequests.length;
    const res = await b.fetch(`/sso/callback?code=${code}&state=${state}`);
    expect(res.status).toBe(400);
    expect(await res.text()).toContain("no iss");
    expect(fake.tokenRequests.length).toBe(requests);
    expect(await sessionsOf(member.email)).toBe(0);
  });
});
