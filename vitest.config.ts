import { cloudflareTest, readD1Migrations } from "@cloudflare/vitest-pool-workers";
import { defineConfig } from "vitest/config";
import { SOLO_FILES } from "./test/groups/solo";

// Two projects: almost everything runs inside workerd with real D1, Queues and Durable Objects;
// test/node holds the few checks that need Node (the OpenAPI 3.1 validator compiles schemas with
// code generation, which workerd forbids by design).
export default defineConfig(async () => {
  const migrations = await readD1Migrations("./migrations");
  return {
    test: {
      projects: [
        {
          plugins: [
            cloudflareTest({
              main: "./src/index.ts",
              wrangler: { configPath: "./wrangler.toml" },
              miniflare: {
                // Every setting is explicit so that a developer's .dev.vars (written by `npm start`)
                // never changes what the tests see; production defaults unless a test says otherwise.
                bindings: {
                  TEST_MIGRATIONS: migrations,
                  WEBHOOK_ALLOW_PRIVATE: "false",
                  WEBHOOK_ALLOW_INSECURE: "false",
                  SITE_URL: "",
                  NOTIFY_FROM: "",
                  ADMIN_TOKEN: "test-admin-token-0123456789abcdefghijklmnop",
                  DMARC_INGEST_SECRET: "test-ingest-secret",
                  WEBHOOK_SECRET_KEY: "dGVzdC13ZWJob29rLXNlY3JldC1rZXktMzItYnl0ZXM=",
                  DOH_RESOLVERS: "https://doh.test/dns-query",
                  // The DoH stub's zones change within and between tests with no TTL passing, which no
                  // DNS cache could follow; test/services/dns-cache.test.ts turns the shared cache on.
                  DNS_SHARED_CACHE: "false",
                  REPORT_DOMAIN: "reports.test",
                  // Hosted MTA-STS: a Cloudflare API at the edge that tests answer (test/support/cloudflare-api.ts).
                  CF_SAAS_ZONE_ID: "zone-test",
                  CLOUDFLARE_API_TOKEN: "test-cloudflare-token",
                  CLOUDFLARE_API_BASE: "https://cf-api.test/client/v4",
                  MTA_STS_ID_ZONE: "sts-id.test",
                  MTA_STS_CNAME_TARGET: "hosting.test",
                },
              },
            }),
          ],
          test: {
            name: "workers",
            // TEST_GROUPS=1 (npm test): the same files through test/groups/, a few pool runners instead of one per file.
            include: process.env.TEST_GROUPS === "1" ? ["test/groups/*.test.ts", ...SOLO_FILES] : ["src/**/*.test.ts", "test/**/*.test.ts"],
            exclude: process.env.TEST_GROUPS === "1" ? [] : ["test/node/**", "test/groups/**"],
            setupFiles: ["./test/setup.ts"],
          },
        },
        {
          // Node cannot load workerd's `cloudflare:workers` and `cloudflare:email`; the app only needs their class shapes here.
          resolve: {
            alias: {
              "cloudflare:workers": new URL("./scripts/node-stubs/cloudflare-workers.mjs", import.meta.url).pathname,
              "cloudflare:email": new URL("./scripts/node-stubs/cloudflare-email.mjs", import.meta.url).pathname,
            },
          },
          test: {
            name: "node",
            environment: "node",
            include: ["test/node/**/*.test.ts"],
            // Inlined so that the alias above applies inside it too.
            server: { deps: { inline: ["@cloudflare/workers-oauth-provider"] } },
          },
        },
      ],
    },
  };
});
