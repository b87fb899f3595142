// Secrets at rest are bound to their endpoint and name their key: a copied ciphertext does not sign,
// and the encryption key rotates without downtime (WEBHOOK_SECRET_KEY_PREVIOUS, docs/decisions.md).
import { env } from "cloudflare:workers";
import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { webhookEndpoints } from "../../src/db/schema";
import { createServices } from "../../src/services";
import { createEndpoint } from "../../src/services/webhooks/create-endpoint";
import { getEndpointInTeam } from "../../src/services/webhooks/endpoints";
import { resealSecrets, signingSecrets } from "../../src/services/webhooks/secrets";
import { makeTeam } from "../support/api";
import { teamContext } from "../support/context";
import { installDohStub } from "../support/doh-stub";

const NEW_KEY = btoa(String.fromCharCode(...new Uint8Array(32).fill(7)));

describe("webhook secrets at rest", () => {
  it("a ciphertext copied onto another endpoint does not open; rotating the encryption key keeps old secrets signing", async () => {
    const stub = installDohStub({ "hooks.example.com": { A: ["93.184.216.34"] } });
    const svc = createServices(env);
    const team = await makeTeam();
    const a = await createEndpoint(svc, teamContext(team.id), "enterprise", { url: "https://hooks.example.com/a", events: ["*"] });
    const b = await createEndpoint(svc, teamContext(team.id), "enterprise", { url: "https://hooks.example.com/b", events: ["*"] });
    const rowA = await getEndpointInTeam(svc, team.id, a.id);
    expect(rowA.secretEnc).toMatch(/^v2:[0-9a-f]{8}:/);
    expect(rowA.enabled).toBe(true);
    expect(await signingSecrets(svc, rowA, new Date())).toEqual([a.secret]);

    // Copy A's sealed secret onto B: the binding to B's id fails, nothing signs.
    await svc.db.update(webhookEndpoints).set({ secretEnc: rowA.secretEnc }).where(eq(webhookEndpoints.id, b.id));
    expect(await signingSecrets(svc, await getEndpointInTeam(svc, team.id, b.id), new Date())).toBeNull();

    // Key rotation: the new key seals, the old one (now "previous") still opens what it sealed.
    const rotated = createServices({ ...env, WEBHOOK_SECRET_KEY: NEW_KEY, WEBHOOK_SECRET_KEY_PREVIOUS: env.WEBHOOK_SECRET_KEY });
    expect(await signingSecrets(rotated, rowA, new Date())).toEqual([a.secret]);
    const c = await createEndpoint(rotated, teamContext(team.id), "enterprise", { url: "https://hooks.example.com/c", events: ["*"] });
    const rowC = await getEndpointInTeam(rotated, team.id, c.id);
    expect(rowC.secretEnc.split(":")[1]).not.toBe(rowA.secretEnc.split(":")[1]);
    expect(await signingSecrets(rotated, rowC, new Date())).toEqual([c.secret]);
    // Without the previous key, secrets it sealed no longer open (and nothing is guessed)...
    const dropped = createServices({ ...env, WEBHOOK_SECRET_KEY: NEW_KEY });
    expect(await signingSecrets(dropped, rowA, new Date())).toBeNull();
    // ...so the daily job re-seals them under the new key first; then the previous key can go.
    const first = await resealSecrets(rotated);
    expect(first.resealed).toBeGreaterThanOrEqual(1);
    expect(await signingSecrets(dropped, await getEndpointInTeam(svc, team.id, a.id), new Date())).toEqual([a.secret]);
    const again = await resealSecrets(rotated);
    expect(again.left).toBe(0);
    expect(again.unopenable, "B holds A's copied ciphertext: never opened, reported").toBeGreaterThanOrEqual(1);
    stub.restore();
  });
});
