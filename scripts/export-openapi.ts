// Writes the served OpenAPI documents to files (dist/openapi/*.json) for the linters and the
// generated-client test: the same builder as the /openapi.json routes, with the relative server.
import { mkdirSync, writeFileSync } from "node:fs";
import { createApp } from "../src/app";
import { openApiDocuments } from "../src/openapi-documents";

const out = new URL("../dist/openapi/", import.meta.url);
mkdirSync(out, { recursive: true });
const docs = openApiDocuments(createApp(), null);
writeFileSync(new URL("openapi.json", out), `${JSON.stringify(docs.team, null, 2)}\n`);
writeFileSync(new URL("operator.json", out), `${JSON.stringify(docs.operator, null, 2)}\n`);
console.log(
  `openapi: ${Object.keys(docs.team.paths ?? {}).length} team paths, ${Object.keys(docs.operator.paths ?? {}).length} operator paths written to dist/openapi/`,
);
