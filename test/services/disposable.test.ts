// The disposable-domain list, packed as a static asset (docs/decisions.md D52, D59), answers exactly as
// the package's JSON does, through the real ASSETS binding.
import { env } from "cloudflare:workers";
import list from "disposable-email-domains";
import { describe, expect, it } from "vitest";
import { DISPOSABLE_COUNT } from "../../src/services/intel/disposable-list";
import { isDisposableDomain } from "../../src/services/intel/disposable";

describe("disposable domains", () => {
  it("finds every domain of the package and only those", async () => {
    const domains = list as string[];
    expect(DISPOSABLE_COUNT).toBe(new Set(domains.map((d) => d.toLowerCase())).size);
    const missed = [];
    for (const d of domains) if (!(await isDisposableDomain(env.ASSETS, d))) missed.push(d);
    expect(missed).toEqual([]);
    expect(await isDisposableDomain(env.ASSETS, "example.com")).toBe(false);
    expect(await isDisposableDomain(env.ASSETS, "gmail.com")).toBe(false);
    // Each neighbour in sort order of a listed name, which a wrong binary search would confuse.
    expect(await isDisposableDomain(env.ASSETS, "mailinator.co")).toBe(false);
    expect(await isDisposableDomain(env.ASSETS, "mailinator.comm")).toBe(false);
  });

  it("matches a subdomain of a listed domain, in any case", async () => {
    expect(await isDisposableDomain(env.ASSETS, "sub.mailinator.com")).toBe(true);
    expect(await isDisposableDomain(env.ASSETS, "A.B.MAILINATOR.COM")).toBe(true);
    expect(await isDisposableDomain(env.ASSETS, "mailinator.com.example")).toBe(false);
  });
});
