// The public BIMI files (issue 32 §2): GET /bimi/<domain>/<selector>.svg for l= and .pem for a=, with no
// authentication (receivers fetch them anonymously). Only GET and HEAD; anything not hosted is a 404.
import { Hono } from "hono";
import type { AppEnv } from "../context";
import { servedBimiFile } from "../services/bimi-hosting/serve";

// SVG is active content: a browser opening the URL directly must run nothing from it, load nothing, and
// not let it be framed; style-src 'unsafe-inline' only so that presentation attributes and <style> render.
export const SVG_CSP = "default-src 'none'; style-src 'unsafe-inline'; img-src data:; sandbox; frame-ancestors 'none'";
// An hour fresh, then revalidated by ETag: a replaced logo reaches receivers' caches within the hour,
// and a revalidation costs a 304. Receivers (Gmail) keep their own copy far longer anyway.
export const BIMI_CACHE_CONTROL = "public, max-age=3600, must-revalidate";

/** The content types the BIMI draft names: image/svg+xml for l=, application/pem-certificate-chain (RFC 8555 §9.1) for a=. */
const TYPES = { svg: "image/svg+xml", pem: "application/pem-certificate-chain" } as const;

const FILE = /^([a-z0-9-]+(?:\.[a-z0-9-]+)*)\.(svg|pem)$/i;

export function publicBimiRoutes() {
  const r = new Hono<AppEnv>();
  r.get("/bimi/:domain/:file", async (c) => {
    const m = FILE.exec(c.req.param("file"));
    const notFound = () => c.text("Not found.\n", 404, { "Cache-Control": "public, max-age=60" });
    if (!m) return notFound();
    const kind = (m[2] ?? "").toLowerCase() as "svg" | "pem";
    const file = await servedBimiFile(c.get("services"), c.req.param("domain"), m[1] ?? "", kind);
    if (!file) return notFound();
    const headers: Record<string, string> = {
      "Content-Type": kind === "svg" ? `${TYPES.svg}; charset=utf-8` : TYPES.pem,
      ETag: file.etag,
      "Cache-Control": BIMI_CACHE_CONTROL,
      "Content-Security-Policy": SVG_CSP,
      "X-Content-Type-Options": "nosniff",
      // Mail clients and webmail fetch these cross-origin (an <img> needs no CORS, a script reading the certificate does).
      "Access-Control-Allow-Origin": "*",
    };
    // RFC 9110 §13.1.2: a matching If-None-Match (weak comparison) answers 304 with the validator.
    const inm = c.req.header("if-none-match");
    if (inm?.split(",").some((t) => t.trim().replace(/^W\//, "") === file.etag || t.trim() === "*")) return c.body(null, 304, headers);
    return c.body(file.body, 200, headers);
  });
  return r;
}
