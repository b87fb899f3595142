import { beforeEach, describe, expect, it } from "vitest";
import { insertMember } from "../../support/factories";
import { type FakeProvider, installFakeProvider } from "../../support/oidc-fake";
import { sessionsOf, ssoSignIn, ssoTeam } from "./support";

let fake: FakeProvider;
beforeEach(async () => {
  fake = await installFakeProvider();
});

describe("the ID token's address", () => {
  it("refuses an address that becomes a member's address only by Unicode lower-casing (KELVIN SIGN to k)", async () => {
    const t = await ssoTeam(fake);
    const local = `kate-${crypto.randomUUID().slice(0, 6)}`;
    const member = await insertMember(t.teamId, "admin", `${local}@${t.domain}`);
    // U+212A KELVIN SIGN lower-cases to U+006B "k": the provider verified another mailbox than the member's.
    const asserted = `\u212A${local.slice(1)}@${t.domain}`;
    expect(asserted.toLowerCase()).toBe(member.email);
    const { res } = await ssoSignIn(fake, member.email, { claims: { email: asserted } });
    expect(res.status).toBe(403);
    expect(await res.text()).toContain("lower case");
    expect(await sessionsOf(member.email)).toBe(0);
  });

  it("still matches an address that differs only in ASCII case", async () => {
    const t = await ssoTeam(fake);
    const member = await insertMember(t.teamId, "viewer", `lee-${crypto.randomUUID().slice(0, 6)}@${t.domain}`);
    const { res } = await ssoSignIn(fake, member.email, { claims: { email: member.email.toUpperCase() } });
    expect(res.status).toBe(303);
    expect(await sessionsOf(member.email)).toBe(1);
  });
});
