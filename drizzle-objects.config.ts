// drizzle-kit for the per-domain report objects (docs/decisions.md D120): their own schema and migrations,
// generated with `npm run db:generate:reports` (the .sql output is then wrapped in migrations.ts).
import { defineConfig } from "drizzle-kit";

export default defineConfig({
  dialect: "sqlite",
  driver: "durable-sqlite",
  schema: "./src/durable-objects/domain-store/schema.ts",
  out: "./src/durable-objects/domain-store/migrations",
});
