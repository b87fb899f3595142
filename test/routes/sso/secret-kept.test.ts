// The client secret is never shown again once saved (docs/sso.md), so it must not be sent to a provider
// other than the one it was entered for: a blank secret field keeps the stored secret only while the
// issuer stays the same. Through the Worker's real fetch export, with a second provider at the edge
// that records what reaches its token endpoint.
import { env } from "cloudflare:workers";
import { beforeEach, describe, expect, it } from "vitest";
import { insertMember } from "../../support/factories";
import { CLIENT_ID, CLIENT_SECRET, type FakeProvider, installFakeProvider } from "../../support/oidc-fake";
import { Browser } from "../../support/browser";
import { PUBLIC_IP } from "../../support/webhooks";
import { ssoTeam } from "./support";

const OTHER = "https://other-idp.test";

let fake: FakeProvider;
/** Authorization headers and forms that reached the other provider's token endpoint. */
let received: string[];

beforeEach(async () => {
  fake = await installFakeProvider();
  received = [];
  fake.zone["other-idp.test"] = { A: [PUBLIC_IP] };
  const previous = fake.stub.spy.getMockImplementation();
  fake.stub.spy.mockImplementation(async (input, init) => {
    const req = new Request(input instanceof URL ? input.href : input, init);
    const url = new URL(req.url);
    if (url.origin !== OTHER) return previous ? previous(input, init) : new Response("not found", { status: 404 });
    if (url.pathname === "/.well-known/openid-configuration") {
      return Response.json({
        issuer: OTHER,
        authorization_endpoint: `${OTHER}/authorize`,
        token_endpoint: `${OTHER}/token`,
        jwks_uri: `${OTHER}/jwks`,
        response_types_supported: ["code"],
        id_token_signing_alg_values_supported: ["RS256"],
        code_challenge_methods_supported: ["S256"],
      });
    }
    if (url.pathname === "/token") {
      received.push(`${req.headers.get("authorization")} ${await req.text()}`);
      return Response.json({ error: "invalid_grant" }, { status: 400 });
    }
    return new Response("not found", { status: 404 });
  });
});

describe("the stored client secret and a new issuer", () => {
  it("refuses to keep the stored secret when the issuer changes, so it never reaches the new provider", async () => {
    const t = await ssoTeam(fake);
    const res = await t.owner.post("/settings/sso", { issuer: OTHER, client_id: CLIENT_ID, client_secret: "" }, "/settings/sso");
    expect(res.status).toBe(422);
    expect(await res.text()).toContain("Enter the client secret again");
    const row = await env.DB.prepare("SELECT issuer FROM team_sso WHERE team_id = ?").bind(t.teamId).first<{ issuer: string }>();
    expect(row?.issuer).not.toBe(OTHER);

    // Whatever the page said, a sign-in must not carry the stored secret to the other provider.
    const member = await insertMember(t.teamId, "viewer", `se-${crypto.randomUUID().slice(0, 6)}@${t.domain}`);
    const b = new Browser();
    const start = await b.fetch(`/sso/start?email=${encodeURIComponent(member.email)}`);
    const location = new URL(start.headers.get("location") ?? "");
    await b.fetch(`/sso/callback?code=c0de&state=${location.searchParams.get("state")}`);
    const basic = btoa(`${CLIENT_ID}:${CLIENT_SECRET}`);
    expect(received.filter((r) => r.includes(basic) || r.includes(CLIENT_SECRET))).toEqual([]);
  });

  it("keeps the stored secret when the issuer is the same, and takes a new issuer with its own secret", async () => {
    const t = await ssoTeam(fake);
    const again = await t.owner.post("/settings/sso", { issuer: fake.discovery.issuer as string, client_id: CLIENT_ID, client_secret: "" }, "/settings/sso");
    expect(again.status).toBe(200);
    const moved = await t.owner.post("/settings/sso", { issuer: OTHER, client_id: "other-client", client_secret: "other-secret" }, "/settings/sso");
    expect(moved.status).toBe(200);
    const row = await env.DB.prepare("SELECT issuer FROM team_sso WHERE team_id = ?").bind(t.teamId).first<{ issuer: string }>();
    expect(row?.issuer).toBe(OTHER);
  });
});
