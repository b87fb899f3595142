import { env } from "cloudflare:workers";
import { expect, it } from "vitest";
it("has a migrated database", async () => {
  const r = await env.DB.prepare("select count(*) as n from teams").first<{ n: number }>();
  expect(r?.n).toBe(0);
});
