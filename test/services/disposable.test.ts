// The compact disposable-domain list (docs/decisions.md D52) answers exactly as the package's JSON does.
import list from "disposable-email-domains";
import { describe, expect, it } from "vitest";
import { DISPOSABLE_COUNT } from "../../src/services/intel/disposable-list";
import { isDisposableDomain } from "../../src/services/intel/disposable";

describe("disposable domains", () => {
  it("finds every domain of the package and only those", async () => {
    const domains = list as string[];
    expect(DISPOSABLE_COUNT).toBe(new Set(domains.map((d) => d.toLowerCase())).size);
    const missed = [];
    for (const d of domains) if (!(await isDisposableDomain(d))) missed.push(d);
    expect(missed).toEqual([]);
    expect(await isDisposableDomain("example.com")).toBe(false);
    expect(await isDisposableDomain("gmail.com")).toBe(false);
    // Each neighbour in sort order of a listed name, which a wrong binary search would confuse.
    expect(await isDisposableDomain("mailinator.co")).toBe(false);
    expect(await isDisposableDomain("mailinator.comm")).toBe(false);
  });

  it("matches a subdomain of a listed domain, in any case", async () => {
    expect(await isDisposableDomain("sub.mailinator.com")).toBe(true);
    expect(await isDisposableDomain("A.B.MAILINATOR.COM")).toBe(true);
    expect(await isDisposableDomain("mailinator.com.example")).toBe(false);
  });
});
