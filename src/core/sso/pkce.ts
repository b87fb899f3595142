// PKCE for the authorization code flow (RFC 7636): the S256 challenge of a verifier. Pure (WebCrypto only).

/** base64url without padding (RFC 7636 Appendix A; RFC 4648 §5). */
export function base64url(bytes: Uint8Array): string {
  let s = "";
  for (const b of bytes) s += String.fromCharCode(b);
  return btoa(s).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

/** A verifier is 43 to 128 unreserved characters (RFC 7636 §4.1). */
export const isValidVerifier = (v: string) => /^[A-Za-z0-9\-._~]{43,128}$/.test(v);

/** code_challenge = BASE64URL(SHA256(ASCII(code_verifier))) (RFC 7636 §4.2). */
export async function s256Challenge(verifier: string): Promise<string> {
  if (!isValidVerifier(verifier)) throw new Error("PKCE verifier must be 43-128 unreserved characters");
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(verifier));
  return base64url(new Uint8Array(digest));
}
