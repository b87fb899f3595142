import { describe, expect, it } from "vitest";
import { PaginationQuery, pageMeta } from "../src/lib/pagination";
import { call, json } from "./support/api";

describe("conventions", () => {
  it("puts a request id on every response and echoes a sane incoming one", async () => {
    const res = await call("/api/v1/openapi.json", { headers: { "x-request-id": "client-req-12345" } });
    expect(res.headers.get("X-Request-Id")).toBe("client-req-12345");
    const other = await call("/nowhere");
    expect(other.status).toBe(404);
    expect(other.headers.get("X-Request-Id")).toMatch(/^[0-9a-f-]{36}$/);
    expect(await json(other)).toMatchObject({ code: "not_found", message: expect.any(String) });
  });

  it("rejects out-of-range pagination instead of clamping", () => {
    expect(PaginationQuery.parse({})).toEqual({ page: 1, per_page: 25 });
    expect(PaginationQuery.safeParse({ page: "0" }).success).toBe(false);
    expect(PaginationQuery.safeParse({ per_page: "201" }).success).toBe(false);
    expect(PaginationQuery.safeParse({ per_page: "abc" }).success).toBe(false);
    expect(PaginationQuery.safeParse({ page: "1.5" }).success).toBe(false);
    expect(PaginationQuery.parse({ page: "2", per_page: "200" })).toEqual({ page: 2, per_page: 200 });
  });

  it("builds list meta", () => {
    expect(pageMeta({ page: 2, per_page: 25 }, 123)).toEqual({ current_page: 2, per_page: 25, total: 123, last_page: 5 });
    expect(pageMeta({ page: 1, per_page: 25 }, 0).last_page).toBe(1);
  });

  it("serves the OpenAPI 3.1 document and the API reference without a token", async () => {
    const doc = await json<{ openapi: string; info: { version: string }; components: { securitySchemes: object } }>(await call("/api/v1/openapi.json"));
    expect(doc.openapi).toBe("3.1.0");
    expect(doc.info.version).toBe("1.0.0");
    expect(doc.components.securitySchemes).toHaveProperty("bearerAuth");
    const docs = await call("/api/v1/docs");
    expect(docs.status).toBe(200);
    expect(docs.headers.get("content-type")).toContain("text/html");
    const html = await docs.text();
    expect(html, "no script and nothing loaded from another host (works without a CDN)").not.toMatch(/<script|<link[^>]+href="https?:|src="https?:/i);
    for (const id of ["getAccount", "createDomain", "getDmarcAnalytics", "redeliverWebhookDelivery"]) expect(html).toContain(`id="${id}"`);
    expect(html).toContain('id="event-dkim.key.rotated"');
    expect(html).toContain('id="schema-Error"');
  });
});
