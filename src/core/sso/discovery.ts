// Reading an OpenID provider's discovery document (OpenID Connect Discovery 1.0): the endpoints this
// service uses and how it authenticates at the token endpoint. Pure: the caller fetched the JSON.
import { err, ok, type Result } from "../types";

/** Signature algorithms accepted on ID tokens: asymmetric only, so a public key can never be used as an HMAC secret. */
export const ID_TOKEN_ALGS = ["RS256", "ES256"] as const;

export interface ProviderEndpoints {
  authorization_endpoint: string;
  token_endpoint: string;
  jwks_uri: string;
  /** client_secret_basic unless the provider lists only client_secret_post (OpenID Connect Core §9). */
  token_auth: "client_secret_basic" | "client_secret_post";
  /**
   * The provider puts `iss` in its authorization responses (RFC 9207 §3,
   * authorization_response_iss_parameter_supported); then a callback without it is refused. Absent in
   * configurations saved before it was read, which means false.
   */
  iss_parameter?: boolean;
}

/**
 * The issuer is an https URL with no query or fragment (Discovery §2; http only when the operator
 * allows insecure targets, for a local provider). Returned exactly as given: it must equal the
 * discovery document's issuer and every ID token's iss byte for byte (Discovery §4.3, Core §3.1.3.7).
 */
export function checkIssuer(issuer: string, allowInsecure: boolean): Result<URL> {
  let url: URL;
  try {
    url = new URL(issuer);
  } catch {
    return err("the issuer must be an absolute URL");
  }
  if (url.protocol !== "https:" && !(allowInsecure && url.protocol === "http:")) return err("the issuer must use https");
  if (url.search !== "" || url.hash !== "" || issuer.includes("?") || issuer.includes("#")) return err("the issuer must have no query or fragment");
  if (url.username !== "" || url.password !== "") return err("the issuer must not contain credentials");
  return ok(url);
}

/** Where the discovery document lives: the issuer, any terminating "/" removed, plus the well-known path (Discovery §4). */
export const discoveryUrl = (issuer: string) => `${issuer.replace(/\/+$/, "")}/.well-known/openid-configuration`;

const stringList = (v: unknown): string[] | null => (Array.isArray(v) && v.every((x) => typeof x === "string") ? (v as string[]) : null);

/** Checks a discovery document against the issuer it was fetched for and picks what the sign-in flow needs. */
export function readDiscovery(doc: unknown, issuer: string): Result<ProviderEndpoints> {
  if (typeof doc !== "object" || doc === null || Array.isArray(doc)) return err("the discovery document is not a JSON object");
  const d = doc as Record<string, unknown>;
  // Discovery §4.3: the issuer returned MUST be identical to the issuer URL used to fetch it.
  if (d.issuer !== issuer) return err(`the discovery document names the issuer ${JSON.stringify(d.issuer)}, not ${issuer} (they must be identical)`);
  for (const key of ["authorization_endpoint", "token_endpoint", "jwks_uri"] as const) {
    if (typeof d[key] !== "string" || d[key] === "") return err(`the discovery document has no ${key}`);
  }
  const responseTypes = stringList(d.response_types_supported);
  if (responseTypes && !responseTypes.includes("code")) return err("the provider does not support the authorization code flow (response type code)");
  const algs = stringList(d.id_token_signing_alg_values_supported);
  if (algs && !algs.some((a) => (ID_TOKEN_ALGS as readonly string[]).includes(a))) {
    return err(`the provider signs ID tokens with ${algs.join(", ")}; this service accepts ${ID_TOKEN_ALGS.join(" or ")}`);
  }
  // RFC 8414 §2: when listed, S256 must be among the PKCE methods (PKCE is always sent).
  const pkce = stringList(d.code_challenge_methods_supported);
  if (pkce && !pkce.includes("S256")) return err("the provider does not support PKCE with S256");
  // Discovery §3: the default when absent is client_secret_basic.
  const methods = stringList(d.token_endpoint_auth_methods_supported) ?? ["client_secret_basic"];
  const tokenAuth = methods.includes("client_secret_basic") ? "client_secret_basic" : methods.includes("client_secret_post") ? "client_secret_post" : null;
  if (!tokenAuth) return err(`the token endpoint accepts ${methods.join(", ")}; this service authenticates with client_secret_basic or client_secret_post`);
  return ok({
    authorization_endpoint: d.authorization_endpoint as string,
    token_endpoint: d.token_endpoint as string,
    jwks_uri: d.jwks_uri as string,
    token_auth: tokenAuth,
    iss_parameter: d.authorization_response_iss_parameter_supported === true,
  });
}
