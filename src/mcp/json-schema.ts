// JSON Schema checks for the MCP SDK (its `jsonSchemaValidator` server option), built on zod's
// fromJSONSchema, which the bundle carries anyway. The SDK's default compiles schemas with Ajv, which
// generates code at run time (workerd refuses that) and builds a new Ajv instance for every server,
// that is for every request of this stateless endpoint (docs/decisions.md D40, D58). The SDK uses it
// only to check elicitation answers against the schema the server asked with.
import type { JsonSchemaType, JsonSchemaValidator, jsonSchemaValidator } from "@modelcontextprotocol/sdk/validation";
import { fromJSONSchema } from "zod";

export class ZodJsonSchemaValidator implements jsonSchemaValidator {
  getValidator<T>(schema: JsonSchemaType): JsonSchemaValidator<T> {
    const parser = fromJSONSchema(schema as Parameters<typeof fromJSONSchema>[0]);
    return (input) => {
      const r = parser.safeParse(input);
      if (r.success) return { valid: true, data: r.data as T, errorMessage: undefined };
      const errorMessage = r.error.issues.map((i) => `${i.path.length > 0 ? i.path.join(".") : "(root)"}: ${i.message}`).join("; ");
      return { valid: false, data: undefined, errorMessage };
    };
  }
}
