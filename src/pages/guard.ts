// What every dashboard page shares: the CSRF guard on every state-changing form (the Origin must be
// this site, and the form's _csrf must equal the CSRF cookie: docs/decisions.md D33), the signed-in
// session, and the form reader. The security headers are set on every response at the entry point
// (src/middleware/security-headers.ts, D149).
import type { Context, MiddlewareHandler } from "hono";
import { getCookie, setCookie } from "hono/cookie";
import type { AppEnv } from "../context";
import { randomBase62, timingSafeEqual } from "../lib/crypto";
import { readBodyCapped } from "../lib/body";
import { ApiError } from "../lib/errors";
import { type SignedIn, sessionFromRequest } from "../services/accounts/sessions";

const isSecure = (c: Context<AppEnv>) => new URL(c.req.url).protocol === "https:";
const csrfCookieName = (secure: boolean) => (secure ? "__Host-eam_csrf" : "eam_csrf");

/** The CSRF token of this browser (a double-submit cookie), created on first sight. */
export function csrfToken(c: Context<AppEnv>): string {
  const secure = isSecure(c);
  const existing = getCookie(c, csrfCookieName(secure));
  if (existing && /^[0-9A-Za-z]{32}$/.test(existing)) return existing;
  const fresh = randomBase62(32);
  setCookie(c, csrfCookieName(secure), fresh, { path: "/", httpOnly: true, secure, sameSite: "Lax" });
  c.set("csrf", fresh);
  return fresh;
}

/** A form field map read through the one capped body reader (16 KB is ample for any dashboard form). */
export async function readForm(c: Context<AppEnv>, max = 16_384): Promise<URLSearchParams> {
  const bytes = await readBodyCapped(c.req.raw, max);
  return new URLSearchParams(new TextDecoder().decode(bytes));
}

/** Refuses a cross-site or tokenless state-changing request. The caller passes the token it read from the form. */
export function checkCsrf(c: Context<AppEnv>, formToken: string | null): void {
  const origin = c.req.header("origin");
  const self = new URL(c.req.url).origin;
  // Browsers send Origin on every POST, but "null" from a page with Referrer-Policy no-referrer (the
  // sign-in link page): a missing or null Origin is only accepted with Sec-Fetch-Site same-origin.
  const sameSite = origin && origin !== "null" ? origin === self : c.req.header("sec-fetch-site") === "same-origin";
  const cookie = getCookie(c, csrfCookieName(isSecure(c))) ?? "";
  if (!sameSite || !formToken || cookie.length !== 32 || !timingSafeEqual(cookie, formToken)) {
    throw new ApiError(403, "forbidden", "This form expired or came from another site. Reload the page and try again.");
  }
}

/** Loads the session, if any, for every page (null when signed out). */
export const loadSession: MiddlewareHandler<AppEnv> = async (c, next) => {
  c.set("signedIn", await sessionFromRequest(c.get("services"), c.req.raw));
  await next();
};

/** The signed-in person, or a redirect to sign-in that comes back here. */
export function signedInOrRedirect(c: Context<AppEnv>): SignedIn | Response {
  const s = c.get("signedIn");
  if (s) return s;
  const url = new URL(c.req.url);
  return c.redirect(`/sign-in?next=${encodeURIComponent(url.pathname + url.search)}`, 303);
}

export const sessionCookieOptions = (c: Context<AppEnv>) => ({ path: "/", httpOnly: true, secure: isSecure(c), sameSite: "Lax" as const });
export { isSecure };
