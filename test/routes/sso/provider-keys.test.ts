import { beforeEach, describe, expect, it } from "vitest";
import { insertMember } from "../../support/factories";
import { type FakeProvider, installFakeProvider } from "../../support/oidc-fake";
import { sessionsOf, ssoSignIn, ssoTeam } from "./support";

let fake: FakeProvider;
beforeEach(async () => {
  fake = await installFakeProvider();
});

describe("the provider's key set", () => {
  it("refuses a key set larger than the cap instead of reading it whole", async () => {
    fake.jwksExtra.padding = "x".repeat(400_000);
    const t = await ssoTeam(fake);
    const member = await insertMember(t.teamId, "viewer", `jw-${crypto.randomUUID().slice(0, 6)}@${t.domain}`);
    const { res } = await ssoSignIn(fake, member.email);
    expect(res.status).toBe(403);
    expect(await res.text()).toContain("keys could not be read");
    expect(await sessionsOf(member.email)).toBe(0);
  });
});
