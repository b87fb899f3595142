// Validates the generated OpenAPI document with an independent OpenAPI 3.1 validator (runs in Node:
// the validator compiles JSON Schemas with code generation, which workerd does not allow).
import { Validator } from "@seriousme/openapi-schema-validator";
import { describe, expect, it } from "vitest";
import { createApp } from "../../src/app";

const doc = createApp().getOpenAPI31Document({
  openapi: "3.1.0",
  info: { title: "Email Authentication Monitoring API", version: "1.0.0" },
});

describe("OpenAPI document", () => {
  it("is a valid OpenAPI 3.1 document", async () => {
    const validator = new Validator();
    const result = await validator.validate(JSON.parse(JSON.stringify(doc)));
    expect(result.errors ?? [], JSON.stringify(result.errors, null, 2)).toEqual([]);
    expect(result.valid).toBe(true);
    expect(validator.version).toBe("3.1");
  });

  it("documents security and the auth errors on every /api/v1 operation", () => {
    const paths = doc.paths ?? {};
    const ops = Object.entries(paths).flatMap(([path, item]) =>
      Object.entries(item ?? {})
        .filter(([m]) => ["get", "post", "put", "patch", "delete"].includes(m))
        .map(([m, op]) => ({ path, method: m, op: op as { security?: unknown[]; responses: Record<string, unknown>; operationId?: string } })),
    );
    const api = ops.filter((o) => !o.path.startsWith("/admin") && !o.path.startsWith("/api/webhooks"));
    expect(api.length).toBeGreaterThan(0);
    for (const o of api) {
      expect(o.op.security, `${o.method} ${o.path} security`).toEqual([{ bearerAuth: [] }]);
      expect(Object.keys(o.op.responses), `${o.method} ${o.path} responses`).toEqual(expect.arrayContaining(["401", "429"]));
      expect(o.op.operationId, `${o.method} ${o.path} operationId`).toBeTruthy();
    }
  });

  it("documents DMARC report ingestion with its signature scheme", () => {
    const op = (doc.paths?.["/api/webhooks/dmarc"] as { post?: { security?: unknown; responses: Record<string, unknown> } } | undefined)?.post;
    expect(op?.security).toEqual([{ dmarcSignature: [] }]);
    expect(Object.keys(op?.responses ?? {})).toEqual(expect.arrayContaining(["200", "202", "401", "413", "422"]));
    expect(doc.components?.securitySchemes).toHaveProperty("dmarcSignature");
  });
});

describe("the one error envelope", () => {
  it("every documented 4xx/5xx response of every operation is the Error component", () => {
    const checked: string[] = [];
    for (const [path, item] of Object.entries(doc.paths ?? {})) {
      for (const [method, op] of Object.entries(item ?? {})) {
        if (!["get", "post", "put", "patch", "delete"].includes(method)) continue;
        const responses = (op as { responses: Record<string, { content?: Record<string, { schema?: { $ref?: string } }> }> }).responses;
        for (const [status, res] of Object.entries(responses)) {
          if (!/^[45]\d\d$/.test(status)) continue;
          const ref = res.content?.["application/json"]?.schema?.$ref;
          expect(ref, `${method.toUpperCase()} ${path} ${status}`).toBe("#/components/schemas/Error");
          checked.push(`${method} ${path} ${status}`);
        }
      }
    }
    expect(checked.length).toBeGreaterThan(50);
    const schema = (doc.components?.schemas as Record<string, { required?: string[]; properties?: Record<string, { enum?: string[] }> }>).Error;
    expect(schema?.required?.sort()).toEqual(["code", "message"]);
    expect(schema?.properties?.code?.enum, "codes are a fixed set").toContain("internal_error");
  });
});
