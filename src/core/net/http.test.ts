import { describe, expect, it } from "vitest";
import type { HttpFetch } from "../types";
import { fetchTextCapped } from "./http";

/** A fetch port answering from a table of URL -> response factory (built per call, as workerd requires). */
const table = (routes: Record<string, () => Response>, seen: string[] = []): HttpFetch =>
  (async (input: RequestInfo | URL) => {
    const url = String(input instanceof Request ? input.url : input);
    seen.push(url);
    const make = routes[url];
    return make ? make() : new Response("no route", { status: 404 });
  }) as HttpFetch;

describe("fetchTextCapped", () => {
  it("reports a 3xx without following it by default (MTA-STS, RFC 8461 §3.3)", async () => {
    const seen: string[] = [];
    const f = table({ "https://a.example/p": () => new Response(null, { status: 302, headers: { location: "https://b.example/p" } }) }, seen);
    const got = await fetchTextCapped(f, "https://a.example/p", { maxBytes: 100 });
    expect(got.ok && got.value.status).toBe(302);
    expect(got.ok && got.value.location).toBe("https://b.example/p");
    expect(seen).toEqual(["https://a.example/p"]);
  });

  it("follows https redirects up to maxRedirects and never to http", async () => {
    const f = table({
      "https://a.example/1": () => new Response(null, { status: 301, headers: { location: "/2" } }),
      "https://a.example/2": () => new Response("done", { status: 200 }),
      "https://a.example/3": () => new Response(null, { status: 302, headers: { location: "http://a.example/2" } }),
    });
    const followed = await fetchTextCapped(f, "https://a.example/1", { maxBytes: 100, maxRedirects: 3 });
    expect(followed.ok && followed.value.body).toBe("done");
    const insecure = await fetchTextCapped(f, "https://a.example/3", { maxBytes: 100, maxRedirects: 3 });
    expect(insecure.ok && insecure.value.status, "a redirect to http is reported, not followed").toBe(302);
    const limited = await fetchTextCapped(f, "https://a.example/1", { maxBytes: 100, maxRedirects: 0 });
    expect(limited.ok && limited.value.status).toBe(301);
  });

  it("stops reading at maxBytes and says so", async () => {
    const f = table({ "https://a.example/big": () => new Response("x".repeat(5000)) });
    const got = await fetchTextCapped(f, "https://a.example/big", { maxBytes: 1000 });
    expect(got.ok && got.value.tooLarge).toBe(true);
    expect(got.ok && got.value.body.length).toBe(1000);
  });
});
