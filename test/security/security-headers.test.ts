// The same security headers on every response, whatever face answers (docs/decisions.md D149), through
// the Worker's real fetch export: the API reference, the not-found page and envelope, the API, the
// operator API, the agent endpoint's metadata and the dashboard; HSTS on https only (RFC 6797 §7.2).
import { exports } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { CSP, HSTS } from "../../src/middleware/security-headers";
import { call, unique } from "../support/api";
import { Browser, latestLinkToken } from "../support/browser";

const fetchAt = (url: string, headers: Record<string, string> = {}) => exports.default.fetch(new Request(url, { headers }));

function expectSecurityHeaders(res: Response, what: string): void {
  expect(res.headers.get("content-security-policy"), what).toBe(CSP);
  expect(res.headers.get("x-content-type-options"), what).toBe("nosniff");
  expect(res.headers.get("x-frame-options"), what).toBe("DENY");
  expect(res.headers.get("referrer-policy"), what).toBeTruthy();
  expect(res.headers.get("cache-control"), what).toBeTruthy();
}

describe("security headers on every response", () => {
  it("sends them, with HSTS, on every face over https", async () => {
    const answers: Array<[string, Response]> = [
      ["API reference", await fetchAt("https://app.test/api/v1/docs", { accept: "text/html" })],
      ["not-found page", await fetchAt("https://app.test/no-such-page", { accept: "text/html" })],
      ["not-found envelope", await fetchAt("https://app.test/api/v1/no-such-thing")],
      ["API without a token", await call("/api/v1/me")],
      ["OpenAPI document", await fetchAt("https://app.test/api/v1/openapi.json")],
      ["operator API", await fetchAt("https://app.test/admin/teams")],
      ["agent metadata", await fetchAt("https://app.test/.well-known/oauth-protected-resource/mcp")],
      ["agent endpoint", await fetchAt("https://app.test/mcp")],
      ["dashboard", await new Browser().fetch("/sign-in")],
    ];
    for (const [what, res] of answers) {
      expectSecurityHeaders(res, what);
      expect(res.headers.get("strict-transport-security"), what).toBe(HSTS);
    }
    expect(HSTS).toBe("max-age=31536000; includeSubDomains");
  });

  it("keeps a response's own choices: the public documents' cache, the sign-in link page's referrer policy", async () => {
    expect((await fetchAt("https://app.test/api/v1/docs")).headers.get("cache-control")).toBe("public, max-age=300");
    expect((await fetchAt("https://app.test/no-such-page", { accept: "text/html" })).headers.get("cache-control")).toBe("no-store");
    const b = new Browser();
    const address = `${unique("sh").toLowerCase()}@example.com`;
    expect((await b.post("/sign-in", { email: address }, "/sign-in")).status).toBe(200);
    const link = await b.fetch(`/auth/link?token=${await latestLinkToken(address)}`);
    expect(link.status).toBe(200);
    expect(link.headers.get("referrer-policy")).toBe("no-referrer");
  });

  it("never sends HSTS over plain http", async () => {
    for (const url of ["http://app.test/api/v1/docs", "http://app.test/api/v1/me", "http://127.0.0.1:8787/no-such-page"]) {
      const res = await fetchAt(url, { accept: "text/html" });
      expect(res.headers.get("strict-transport-security"), url).toBeNull();
      expectSecurityHeaders(res, url);
    }
  });

  it("serves the API reference without inline style, its stylesheet as an asset", async () => {
    const html = await (await fetchAt("https://app.test/api/v1/docs")).text();
    expect(html).not.toContain("<style");
    expect(html).not.toMatch(/ style="/);
    const href = /<link rel="stylesheet" href="(\/assets\/api-reference\.[0-9a-z]+\.css)"/.exec(html)?.[1];
    expect(href).toBeTruthy();
    const css = await fetchAt(`https://app.test${href}`);
    expect(css.status).toBe(200);
    expect(css.headers.get("content-type")).toContain("text/css");
    expect(await css.text()).toContain(".op{");
  });
});
