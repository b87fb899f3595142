import { cloudflareTest, readD1Migrations } from "@cloudflare/vitest-pool-workers";
import { defineConfig } from "vitest/config";

export default defineConfig(async () => {
  const migrations = await readD1Migrations("./migrations");
  return {
    plugins: [
      cloudflareTest({
        main: "./src/index.ts",
        wrangler: { configPath: "./wrangler.toml" },
        miniflare: {
          bindings: {
            TEST_MIGRATIONS: migrations,
            ADMIN_TOKEN: "test-admin-token",
            DMARC_INGEST_SECRET: "test-ingest-secret",
            WEBHOOK_SECRET_KEY: "dGVzdC13ZWJob29rLXNlY3JldC1rZXktMzItYnl0ZXM=",
            DOH_RESOLVERS: "https://doh.test/dns-query",
          },
        },
      }),
    ],
    test: {
      include: ["src/**/*.test.ts", "test/**/*.test.ts"],
      setupFiles: ["./test/setup.ts"],
    },
  };
});
