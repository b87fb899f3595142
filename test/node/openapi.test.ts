// Validates the generated OpenAPI document with an independent OpenAPI 3.1 validator (runs in Node:
// the validator compiles JSON Schemas with code generation, which workerd does not allow).
import { Validator } from "@seriousme/openapi-schema-validator";
import { describe, expect, it } from "vitest";
import { EVENT_TYPES } from "../../src/services/events/emit";
import { createApp } from "../../src/app";
import { openApiDocuments } from "../../src/openapi-documents";

// The documents exactly as served (the same builder the /openapi.json routes call).
const { team: doc, operator } = openApiDocuments(createApp(), null);

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
    const api = ops.filter((o) => !o.path.startsWith("/api/webhooks"));
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
    const schema = (doc.components?.schemas as Record<string, { required?: string[]; properties?: Record<string, { enum?: string[] }> }> | undefined)?.Error;
    expect(schema?.required?.sort()).toEqual(["code", "message"]);
    expect(schema?.properties?.code?.enum, "codes are a fixed set").toContain("internal_error");
  });
});

describe("one base for every client", () => {
  it("paths carry their full prefix and the server is relative (never the Host that fetched it)", () => {
    expect(doc.servers).toEqual([{ url: "/" }]);
    expect(Object.keys(doc.paths ?? {}).every((p) => p.startsWith("/api/v1/") || p.startsWith("/api/webhooks/"))).toBe(true);
    expect(openApiDocuments(createApp(), "https://mon.example.com/").team.servers).toEqual([{ url: "https://mon.example.com" }]);
  });

  it("keeps operator operations out of the team document and documents them apart", async () => {
    expect(Object.keys(doc.paths ?? {}).filter((p) => p.startsWith("/admin"))).toEqual([]);
    expect(Object.keys(doc.components?.securitySchemes ?? {})).not.toContain("adminToken");
    const paths = Object.keys(operator.paths ?? {});
    expect(paths.sort()).toEqual(["/admin/report-moves", "/admin/teams", "/admin/teams/{team}", "/admin/teams/{team}/tokens", "/admin/tokens/{token_id}"]);
    for (const item of Object.values(operator.paths ?? {})) {
      for (const op of Object.values(item ?? {}) as Array<{ operationId?: string; security?: unknown[] }>) {
        expect(op.operationId).toBeTruthy();
        expect(op.security).toEqual([{ adminToken: [] }]);
      }
    }
    const result = await new Validator().validate(JSON.parse(JSON.stringify(operator)));
    expect(result.errors ?? []).toEqual([]);
  });

  it("publishes every event type as a webhook with its data schema", () => {
    const hooks =
      (doc as { webhooks?: Record<string, { post?: { requestBody?: { content?: Record<string, { schema?: { $ref?: string } }> } } }> }).webhooks ?? {};
    expect(Object.keys(hooks).sort()).toEqual([...EVENT_TYPES].sort());
    for (const [type, item] of Object.entries(hooks)) {
      const ref = item.post?.requestBody?.content?.["application/json"]?.schema?.$ref ?? "";
      const name = ref.replace("#/components/schemas/", "");
      const schema = (doc.components?.schemas as Record<string, { properties?: Record<string, { enum?: string[]; const?: string }> }> | undefined)?.[name];
      expect(schema?.properties?.data, type).toBeTruthy();
      expect(schema?.properties?.type?.enum ?? [schema?.properties?.type?.const], type).toEqual([type]);
    }
  });
});

describe("examples", () => {
  type Schema = { $ref?: string; example?: unknown; properties?: Record<string, Schema>; items?: Schema; oneOf?: Schema[]; anyOf?: Schema[]; type?: string };
  const schemas = (doc.components?.schemas ?? {}) as Record<string, Schema>;
  const resolve = (s: Schema | undefined): Schema | undefined => (s?.$ref ? resolve(schemas[s.$ref.replace("#/components/schemas/", "")]) : s);
  /** An example at the schema, or at its `data` (or `data` items), or on every member of a union. */
  const hasExample = (s: Schema | undefined): boolean => {
    const r = resolve(s);
    if (!r) return false;
    if (r.example !== undefined) return true;
    const union = r.oneOf ?? r.anyOf;
    if (union) return union.every(hasExample);
    const data = resolve(r.properties?.data);
    if (!data) return false;
    return data.type === "array" ? hasExample(data.items) : hasExample(data);
  };

  it("every success body of every operation has an example (their validity is an error for Redocly in npm run lint)", () => {
    const missing: string[] = [];
    let bodies = 0;
    for (const [path, item] of Object.entries(doc.paths ?? {})) {
      for (const [method, op] of Object.entries(item ?? {})) {
        const responses = (op as { responses?: Record<string, { content?: Record<string, { schema?: Schema; example?: unknown }> }> }).responses ?? {};
        for (const [status, res] of Object.entries(responses)) {
          const media = res.content?.["application/json"];
          if (!/^2/.test(status) || !media) continue;
          bodies++;
          if (media.example === undefined && !hasExample(media.schema)) missing.push(`${method.toUpperCase()} ${path} ${status}`);
        }
      }
    }
    expect(bodies).toBeGreaterThan(30);
    expect(missing).toEqual([]);
  });
});
