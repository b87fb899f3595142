// The MCP server's JSON Schema validator (src/mcp/json-schema.ts, docs/decisions.md D58) runs inside
// workerd (no generated code) and answers in the SDK's result shape.
import { describe, expect, it } from "vitest";
import { ZodJsonSchemaValidator } from "../../src/mcp/json-schema";
import { buildServer } from "../../src/mcp/server";

const schema = {
  type: "object" as const,
  properties: {
    domain: { type: "string" as const, minLength: 3 },
    confirm: { type: "boolean" as const },
    plan: { type: "string" as const, enum: ["starter", "pro"] },
  },
  required: ["domain", "confirm"],
};

describe("MCP JSON Schema validator", () => {
  const check = new ZodJsonSchemaValidator().getValidator<{ domain: string; confirm: boolean }>(schema);

  it("accepts an answer that matches the schema and returns its data", () => {
    expect(check({ domain: "example.com", confirm: true, plan: "pro" })).toEqual({
      valid: true,
      data: { domain: "example.com", confirm: true, plan: "pro" },
      errorMessage: undefined,
    });
  });

  it("refuses a missing field, a wrong type, a short string and a value outside the enum, naming each path", () => {
    const missing = check({ domain: "example.com" });
    expect(missing.valid).toBe(false);
    expect(missing.data).toBeUndefined();
    expect(missing.errorMessage).toContain("confirm");
    expect(check({ domain: "example.com", confirm: "yes" }).errorMessage).toContain("confirm");
    expect(check({ domain: "ab", confirm: true }).errorMessage).toContain("domain");
    expect(check({ domain: "example.com", confirm: true, plan: "gold" }).errorMessage).toContain("plan");
    expect(check("not an object").valid).toBe(false);
  });

  it("is the validator the server is built with", () => {
    const server = buildServer({} as Parameters<typeof buildServer>[0]);
    expect((server.server as unknown as { _jsonSchemaValidator: unknown })._jsonSchemaValidator).toBeInstanceOf(ZodJsonSchemaValidator);
  });
});
