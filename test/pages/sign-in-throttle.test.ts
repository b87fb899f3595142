// The per-address sign-in throttle counts inboxes, not spellings (docs/decisions.md D150), through the
// Worker's real fetch export: name+1@, NAME+2@ and name@ reach one inbox, so they share its budget of
// LINKS_PER_ADDRESS_PER_MINUTE links a minute; another inbox keeps its own. Each request comes from a
// new client address, so only the per-address throttle is in play.
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { inboxOf, LINKS_PER_ADDRESS_PER_MINUTE } from "../../src/services/accounts/links";
import { unique } from "../support/api";
import { Browser } from "../support/browser";

const ask = (address: string) => new Browser().post("/sign-in", { email: address }, "/sign-in");
const linksTo = async (inboxLike: string) =>
  (await env.DB.prepare("SELECT COUNT(*) AS n FROM sign_in_links WHERE email LIKE ?").bind(inboxLike).first<{ n: number }>())?.n ?? 0;

describe("sign-in throttle per inbox", () => {
  it("admits the limit across tagged spellings of one inbox and refuses the next with 429 and Retry-After", async () => {
    expect(LINKS_PER_ADDRESS_PER_MINUTE).toBe(3);
    const name = unique("tag").toLowerCase();
    const spellings = [`${name}+1@example.com`, `${name.toUpperCase()}+2@example.com`, `${name}@example.com`, `${name}+4@Example.com`];
    const statuses: number[] = [];
    for (const address of spellings.slice(0, LINKS_PER_ADDRESS_PER_MINUTE)) statuses.push((await ask(address)).status);
    expect(statuses, "just under and at the limit").toEqual([200, 200, 200]);
    const over = await ask(spellings[3] ?? "");
    expect(over.status, "one over the limit, with yet another tag").toBe(429);
    expect(Number(over.headers.get("Retry-After"))).toBeGreaterThan(0);
    expect(await over.text()).toContain("Too many sign-in links requested");
    expect(await linksTo(`${name}%@example.com`), "no link for the refused request").toBe(LINKS_PER_ADDRESS_PER_MINUTE);
    expect((await ask(`${name}-other+1@example.com`)).status, "another inbox has its own budget").toBe(200);
  });

  it("keys the throttle on the local part before its first + and the lower-cased rest", () => {
    expect(inboxOf("Jane+News@Example.COM")).toBe("jane@example.com");
    expect(inboxOf("jane+a+b@example.com")).toBe("jane@example.com");
    expect(inboxOf("jane@example.com")).toBe("jane@example.com");
    expect(inboxOf("+tag@example.com")).toBe("@example.com");
  });
});
