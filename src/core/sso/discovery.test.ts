import { describe, expect, it } from "vitest";
import { checkIssuer, discoveryUrl, readDiscovery } from "./discovery";

const doc = {
  issuer: "https://login.example.com/tenant",
  authorization_endpoint: "https://login.example.com/tenant/authorize",
  token_endpoint: "https://login.example.com/tenant/token",
  jwks_uri: "https://login.example.com/tenant/keys",
};

describe("OpenID Connect Discovery", () => {
  it("removes a terminating / before appending the well-known path (§4)", () => {
    expect(discoveryUrl("https://login.example.com/tenant/")).toBe("https://login.example.com/tenant/.well-known/openid-configuration");
  });

  it("requires the returned issuer to be identical to the one used (§4.3)", () => {
    expect(readDiscovery(doc, "https://login.example.com/tenant").ok).toBe(true);
    expect(readDiscovery(doc, "https://login.example.com/tenant/").ok).toBe(false);
    expect(readDiscovery({ ...doc, issuer: "https://LOGIN.example.com/tenant" }, "https://login.example.com/tenant").ok).toBe(false);
  });

  it("defaults to client_secret_basic (§3) and falls back to client_secret_post only when that is all the provider lists", () => {
    const basic = readDiscovery(doc, doc.issuer);
    expect(basic.ok && basic.value.token_auth).toBe("client_secret_basic");
    const post = readDiscovery({ ...doc, token_endpoint_auth_methods_supported: ["client_secret_post", "private_key_jwt"] }, doc.issuer);
    expect(post.ok && post.value.token_auth).toBe("client_secret_post");
    expect(readDiscovery({ ...doc, token_endpoint_auth_methods_supported: ["private_key_jwt"] }, doc.issuer).ok).toBe(false);
  });

  it("reads whether the provider sends iss in its authorization responses (RFC 9207 §3): only the JSON true counts", () => {
    const read = (v: unknown) => {
      const r = readDiscovery({ ...doc, authorization_response_iss_parameter_supported: v }, doc.issuer);
      return r.ok && r.value.iss_parameter;
    };
    expect(read(true)).toBe(true);
    expect(read(false)).toBe(false);
    expect(read("true")).toBe(false);
    expect(read(undefined)).toBe(false);
  });

  it("refuses a provider without S256 PKCE or asymmetric ID token signatures", () => {
    expect(readDiscovery({ ...doc, code_challenge_methods_supported: ["plain"] }, doc.issuer).ok).toBe(false);
    expect(readDiscovery({ ...doc, id_token_signing_alg_values_supported: ["HS256"] }, doc.issuer).ok).toBe(false);
  });

  it("takes an https issuer with no query or fragment (§2)", () => {
    expect(checkIssuer("https://login.example.com", false).ok).toBe(true);
    expect(checkIssuer("http://login.example.com", false).ok).toBe(false);
    expect(checkIssuer("http://localhost:3000", true).ok).toBe(true);
    expect(checkIssuer("https://login.example.com/?a=b", false).ok).toBe(false);
    expect(checkIssuer("https://login.example.com/#x", false).ok).toBe(false);
  });
});
