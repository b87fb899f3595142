// A client generated from the served OpenAPI document (openapi-typescript types, openapi-fetch calls)
// works as generated: `npm test` regenerates test/client/generated/api.d.ts from the document, this
// file is type-checked with the project's strict tsconfig, then runs against the Worker's fetch export.
import { exports } from "cloudflare:workers";
import createClient from "openapi-fetch";
import { describe, expect, it } from "vitest";
import { makeTeam } from "../support/api";
import { installDohStub } from "../support/doh-stub";
import { day0, enc, post, reportXml } from "../support/reports";
import { captureChecks, newDomainName, zoneFor } from "../support/monitoring";
import type { paths } from "./generated/api";

/** The document's server is "/": a client resolves it against the site's origin, as a browser would. */
const ORIGIN = "https://api.test";

function client(token: string) {
  return createClient<paths>({
    baseUrl: ORIGIN,
    headers: { authorization: `Bearer ${token}` },
    fetch: (request: Request) => exports.default.fetch(request),
  });
}

describe("a generated client", () => {
  it("runs a typed flow: account, domains, verification, posture, alerts, webhooks, deliveries, DMARC view and paging", async () => {
    const team = await makeTeam("enterprise");
    const api = client(team.full);
    // The first check that verification queues is captured: this flow is about the client, not the check.
    const checks = captureChecks();

    const me = await api.GET("/api/v1/me");
    expect(me.response.status).toBe(200);
    expect(me.data?.data.team.id).toBe(team.id);

    const name = newDomainName();
    const created = await api.POST("/api/v1/domains", { body: { name } });
    expect(created.response.status, JSON.stringify(created.error)).toBe(201);
    const domain = created.data?.data;
    if (!domain) throw new Error("no domain in the typed answer");
    expect(domain.verification.host).toBe(`_emailauth-verify.${name}`);

    const second = await api.POST("/api/v1/domains", { body: { name: newDomainName() } });
    expect(second.response.status).toBe(201);
    const page1 = await api.GET("/api/v1/domains", { params: { query: { page: 1, per_page: 1 } } });
    expect(page1.data?.data).toHaveLength(1);
    expect(page1.data?.meta).toMatchObject({ current_page: 1, per_page: 1, total: 2, last_page: 2 });
    const page2 = await api.GET("/api/v1/domains", { params: { query: { page: 2, per_page: 1 } } });
    expect(page2.data?.data[0]?.id).not.toBe(page1.data?.data[0]?.id);

    const stub = installDohStub({ ...zoneFor(name, { verifyValue: domain.verification.value }), "hooks.example.com": { A: ["93.184.216.34"] } });
    const verified = await api.POST("/api/v1/domains/{domain}/verify", { params: { path: { domain: domain.id } } });
    expect(verified.data?.data.verified).toBe(true);

    const posture = await api.GET("/api/v1/intel/domain", { params: { query: { domain: name, full: "1" } } });
    expect(posture.response.status).toBe(200);
    expect(posture.data?.data).toBeTruthy();
    const detail = await api.GET("/api/v1/domains/{domain}", { params: { path: { domain: domain.id } } });
    expect(detail.data?.data.name).toBe(name);

    const alerts = await api.GET("/api/v1/alerts", { params: { query: { page: 1, per_page: 10 } } });
    expect(alerts.response.status).toBe(200);
    expect(Array.isArray(alerts.data?.data)).toBe(true);

    const hook = await api.POST("/api/v1/webhooks", { body: { url: "https://hooks.example.com/in", events: ["*"] } });
    expect(hook.response.status, JSON.stringify(hook.error)).toBe(201);
    const hookId = hook.data?.data.id;
    if (hookId === undefined) throw new Error("no endpoint id");
    const sent = await api.POST("/api/v1/webhooks/{webhook}/test", { params: { path: { webhook: hookId } } });
    expect(sent.response.status).toBe(202);
    const deliveries = await api.GET("/api/v1/webhooks/{webhook}/deliveries", { params: { path: { webhook: hookId } } });
    const delivery = deliveries.data?.data[0];
    expect(delivery?.event).toBe("webhook.test");
    if (!delivery) throw new Error("no delivery");
    const one = await api.GET("/api/v1/webhooks/{webhook}/deliveries/{delivery}", { params: { path: { webhook: hookId, delivery: delivery.id } } });
    expect(one.data?.data.payload?.type).toBe("webhook.test");

    const ingested = await post(enc(reportXml({ domain: name, begin: day0(2), end: day0(1), records: [{ ip: "192.0.2.1", count: 5 }] })));
    expect(ingested.status).toBe(202);
    const dmarc = await api.GET("/api/v1/domains/{domain}/dmarc", { params: { path: { domain: domain.id }, query: { days: 30 } } });
    expect(dmarc.response.status).toBe(200);
    expect(dmarc.data?.data).toBeTruthy();

    const missing = await api.GET("/api/v1/domains/{domain}", { params: { path: { domain: 999_999_999 } } });
    expect(missing.response.status).toBe(404);
    expect(missing.error?.code).toBe("not_found");

    const readOnly = client(team.readOnly);
    const refused = await readOnly.DELETE("/api/v1/domains/{domain}", { params: { path: { domain: domain.id } } });
    expect(refused.response.status).toBe(403);
    expect(refused.error?.code).toBe("forbidden");
    expect(checks.sent.map((m) => m.trigger)).toEqual(["verify"]);
    checks.restore();
    stub.restore();
  });
});
