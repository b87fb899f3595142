// Serves the stylesheet and the client script with a content hash in their URL, so pages may cache
// them for a year (immutable) and a new deploy is picked up at once.
import { Hono } from "hono";
import type { AppEnv } from "../../context";
import { API_REFERENCE_CSS } from "./api-reference-css";
import { APP_CSS } from "./app-css";
import { APP_JS } from "./app-js";

/** FNV-1a: a cheap, stable fingerprint of the asset text for cache busting (not security). */
function fingerprint(text: string): string {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
  return (h >>> 0).toString(36);
}

/** The site's icon (an envelope on the brand colour): linked by every page and served at /favicon.ico too. */
export const ICON_SVG =
  '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><rect width="32" height="32" rx="6" fill="#1d4ed8"/><path d="M7 10h18v13H7z" fill="none" stroke="#fff" stroke-width="2"/><path d="M7 10l9 7 9-7" fill="none" stroke="#fff" stroke-width="2"/></svg>';

export const ASSET_URLS = {
  icon: `/assets/icon.${fingerprint(ICON_SVG)}.svg`,
  css: `/assets/app.${fingerprint(APP_CSS)}.css`,
  js: `/assets/app.${fingerprint(APP_JS)}.js`,
  apiCss: `/assets/api-reference.${fingerprint(API_REFERENCE_CSS)}.css`,
};

export function assetRoutes() {
  const r = new Hono<AppEnv>();
  const serve = (body: string, type: string, immutable: boolean, maxAge = 300) =>
    new Response(body, {
      headers: {
        "content-type": type,
        "cache-control": immutable ? "public, max-age=31536000, immutable" : `public, max-age=${maxAge}`,
        "x-content-type-options": "nosniff",
      },
    });
  r.get(ASSET_URLS.css, () => serve(APP_CSS, "text/css; charset=utf-8", true));
  r.get(ASSET_URLS.js, () => serve(APP_JS, "text/javascript; charset=utf-8", true));
  r.get(ASSET_URLS.icon, () => serve(ICON_SVG, "image/svg+xml", true));
  // Browsers ask for /favicon.ico on a first visit whatever the page links: the same icon, cached for a day.
  r.get("/favicon.ico", () => serve(ICON_SVG, "image/svg+xml", false, 86_400));
  r.get(ASSET_URLS.apiCss, () => serve(API_REFERENCE_CSS, "text/css; charset=utf-8", true));
  // Stable names for anything that links to them without the fingerprint.
  r.get("/assets/app.css", () => serve(APP_CSS, "text/css; charset=utf-8", false));
  r.get("/assets/app.js", () => serve(APP_JS, "text/javascript; charset=utf-8", false));
  return r;
}
