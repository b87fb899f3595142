// The security headers of every response the Worker sends, whatever face answered it (dashboard, API,
// API reference, operator, agent endpoint, not-found): applied once at the fetch entry point
// (docs/decisions.md D149). A response that set its own value keeps it (the OAuth consent page widens
// form-action to the client's redirect; the sign-in link page sends no referrer; public documents may
// be cached briefly).

/** No inline script or style anywhere; nothing may frame a page. */
export const CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'";

/** A year, subdomains included (RFC 6797 §6.1); sent over https only (§7.2: never over plain http). */
export const HSTS = "max-age=31536000; includeSubDomains";

function apply(headers: Headers, https: boolean): void {
  if (!headers.has("Content-Security-Policy")) headers.set("Content-Security-Policy", CSP);
  headers.set("X-Content-Type-Options", "nosniff");
  headers.set("X-Frame-Options", "DENY");
  if (!headers.has("Referrer-Policy")) headers.set("Referrer-Policy", "same-origin");
  if (!headers.has("Cache-Control")) headers.set("Cache-Control", "no-store");
  if (https) headers.set("Strict-Transport-Security", HSTS);
}

/** The response with the security headers set (a copy when its headers are immutable, as on a fetched response). */
export function withSecurityHeaders(request: Request, response: Response): Response {
  // A protocol switch (101) cannot be rebuilt and carries no document.
  if (response.status === 101) return response;
  const https = new URL(request.url).protocol === "https:";
  try {
    apply(response.headers, https);
    return response;
  } catch {
    const copy = new Response(response.body, response);
    apply(copy.headers, https);
    return copy;
  }
}
