// What the Worker bundle gives the MCP SDK in place of its Ajv provider (wrangler.toml [alias],
// docs/decisions.md D58): the server always receives ZodJsonSchemaValidator explicitly (server.ts), so
// the SDK's default is never built; this only keeps Ajv (about 130 KiB minified) out of the script.
export { ZodJsonSchemaValidator as AjvJsonSchemaValidator } from "./json-schema";
