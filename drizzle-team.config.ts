// drizzle-kit for the per-team webhook log objects (docs/decisions.md D140): their own schema and
// migrations, generated with `npm run db:generate:team` (the .sql output is then wrapped in migrations.ts).
import { defineConfig } from "drizzle-kit";

export default defineConfig({
  dialect: "sqlite",
  driver: "durable-sqlite",
  schema: "./src/durable-objects/team-webhooks/schema.ts",
  out: "./src/durable-objects/team-webhooks/migrations",
});
