// Limits of dynamic client registration (RFC 7591; docs/decisions.md D156, docs/limits.md): each
// client address may register a few clients a minute, a registration body is small, and the metadata
// a consent page shows (the name) or a redirect checks (the URIs) has a bounded size. The throttle and
// the body cap run in front of the provider (they need their own status and headers); the metadata
// caps run in the provider's registration callback, on the metadata it has already parsed.
import type { ClientRegistrationCallbackOptions, ClientRegistrationCallbackResult } from "@cloudflare/workers-oauth-provider";
import type { Env } from "../env";
import { readBodyCapped } from "../lib/body";
import { createServices } from "../services";
import { oauthError } from "./oauth-error";

/** Registrations per client address (CF-Connecting-IP) within 60 s of the first. */
export const REGISTRATIONS_PER_MINUTE = 10;
/** The whole registration request: ten redirect URIs at their cap, a name and the usual fields fit. */
export const REGISTRATION_MAX_BYTES = 32 * 1024;
export const CLIENT_NAME_MAX_CHARS = 200;
export const REDIRECT_URIS_MAX = 10;
export const REDIRECT_URI_MAX_CHARS = 2_000;
/** Any other string of the metadata (client_uri, logo_uri, contacts, ...). */
const OTHER_STRING_MAX_CHARS = 2_000;
/** A registration no token request renews lapses this long after it was written (D156). */
export const CLIENT_REGISTRATION_TTL_SECONDS = 60 * 24 * 3600;

/** POST to the registration endpoint: counted per client address, then its body is capped before the provider reads it. */
export async function guardRegistration(request: Request, env: Env, pass: (request: Request) => Promise<Response>): Promise<Response> {
  if (request.method !== "POST") return pass(request);
  const client = request.headers.get("cf-connecting-ip") ?? "unknown";
  const decision = await createServices(env).rateLimiter.failure(`register:${client}`, REGISTRATIONS_PER_MINUTE);
  if (decision.blocked) {
    return oauthError(429, "temporarily_unavailable", "Too many client registrations from this address; retry later.", {
      "Retry-After": String(decision.retryAfterSeconds),
    });
  }
  let body: Uint8Array;
  try {
    body = await readBodyCapped(request, REGISTRATION_MAX_BYTES);
  } catch {
    return oauthError(413, "invalid_request", `The registration request must be at most ${REGISTRATION_MAX_BYTES} bytes.`);
  }
  const headers = new Headers(request.headers);
  headers.delete("content-length");
  return pass(new Request(request.url, { method: "POST", headers, body }));
}

const tooLong = (value: unknown, max: number) => typeof value === "string" && value.length > max;

/**
 * The provider's registration callback: RFC 7591 §3.2.2 errors for metadata past its caps
 * (`invalid_redirect_uri` for the redirect URIs, `invalid_client_metadata` for the rest), 400.
 */
export function checkClientMetadata({ clientMetadata }: ClientRegistrationCallbackOptions): ClientRegistrationCallbackResult | undefined {
  const uris = clientMetadata.redirect_uris;
  if (Array.isArray(uris)) {
    if (uris.length > REDIRECT_URIS_MAX) return { code: "invalid_redirect_uri", description: `At most ${REDIRECT_URIS_MAX} redirect_uris may be registered.` };
    if (uris.some((u) => tooLong(u, REDIRECT_URI_MAX_CHARS))) {
      return { code: "invalid_redirect_uri", description: `Each redirect URI must be at most ${REDIRECT_URI_MAX_CHARS} characters.` };
    }
  }
  for (const [field, value] of Object.entries(clientMetadata)) {
    // client_name and its language variants (RFC 7591 §2.2: "client_name#fr") are shown on the consent page.
    const isName = field === "client_name" || field.startsWith("client_name#");
    if (isName && tooLong(value, CLIENT_NAME_MAX_CHARS)) {
      return { code: "invalid_client_metadata", description: `${field} must be at most ${CLIENT_NAME_MAX_CHARS} characters.` };
    }
    const strings = Array.isArray(value) ? value : [value];
    if (field !== "redirect_uris" && strings.some((s) => tooLong(s, OTHER_STRING_MAX_CHARS))) {
      return { code: "invalid_client_metadata", description: `${field} must be at most ${OTHER_STRING_MAX_CHARS} characters.` };
    }
  }
  return undefined;
}
