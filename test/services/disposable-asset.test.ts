// A list asset that cannot be read, or is not the one the code was generated with, is a 503
// (dependency_unavailable), never "not disposable"; the next call tries again (docs/decisions.md D59).
// Its own file: the list is held per isolate once loaded, so the failures must come first.
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { ApiError } from "../../src/lib/errors";
import { DISPOSABLE_ASSET } from "../../src/services/intel/disposable-list";
import { type AssetFetcher, isDisposableDomain } from "../../src/services/intel/disposable";

const packed = async () => new Uint8Array(await (await env.ASSETS.fetch(`https://assets.invalid${DISPOSABLE_ASSET}`)).arrayBuffer());
const serving = (body: () => Promise<BodyInit | null>, status = 200): AssetFetcher & { calls: number } => {
  const f = {
    calls: 0,
    async fetch() {
      f.calls++;
      return new Response(await body(), { status });
    },
  };
  return f;
};

async function refused(assets: AssetFetcher) {
  const e = await isDisposableDomain(assets, "mailinator.com").catch((x: unknown) => x);
  expect(e).toBeInstanceOf(ApiError);
  expect((e as ApiError).status).toBe(503);
  expect((e as ApiError).code).toBe("dependency_unavailable");
}

describe("disposable list asset", () => {
  it("refuses a missing, cut or altered asset, and loads the right one on the next call", async () => {
    const missing = serving(async () => "not found", 404);
    await refused(missing);
    await refused(serving(async () => (await packed()).slice(0, 1000)));
    await refused(
      serving(async () => {
        const bytes = await packed();
        bytes[bytes.length >> 1] = (bytes[bytes.length >> 1] as number) ^ 1; // same length, one bit off
        return bytes;
      }),
    );
    // Each refusal was forgotten: a later call fetches again and gets the real list.
    await refused(missing);
    expect(missing.calls).toBe(2);
    expect(await isDisposableDomain(env.ASSETS, "mailinator.com")).toBe(true);
    expect(await isDisposableDomain(env.ASSETS, "example.com")).toBe(false);
  });
});
