// GET /sso: the team's single sign-on settings, without the client secret. Reading only: a token acts
// for the team, and a leaked one must never be able to point the team's sign-in at another provider,
// so SSO is changed by the owner in the dashboard alone (docs/decisions.md D245). Full tokens read it
// (as owners and admins do); read-only tokens, like viewers, are refused.
import { createRoute, z } from "@hono/zod-openapi";
import { createRouter } from "../../app-router";
import { AUTH_ERRORS, BEARER, dataOf, errorResponses, jsonContent } from "../../lib/openapi";
import { getSso } from "../../services/sso/settings";

const SsoDomain = z
  .object({
    domain: z.string(),
    verified: z.boolean(),
    verified_at: z.string().datetime().nullable(),
    txt: z
      .object({ host: z.string(), type: z.literal("TXT"), value: z.string() })
      .openapi({ description: "The TXT record that proves the team owns the domain." }),
  })
  .openapi("SsoDomain");

export const SsoSettings = z
  .object({
    configured: z.boolean(),
    issuer: z.string().nullable().openapi({ description: "The OpenID provider's issuer; ID tokens must carry exactly this iss." }),
    client_id: z.string().nullable(),
    has_client_secret: z.boolean().openapi({ description: "Whether a client secret is stored (sealed; never returned)." }),
    token_endpoint_auth: z.enum(["client_secret_basic", "client_secret_post"]).nullable(),
    authorization_endpoint: z.string().nullable(),
    discovered_at: z.string().datetime().nullable().openapi({ description: "When the provider's discovery document was last read." }),
    enforced: z.boolean().openapi({ description: "Addresses in verified domains may only sign in through the provider (the owner keeps an email link)." }),
    auto_join: z.boolean().openapi({ description: "New people from a verified domain join as viewers on their first sign-in." }),
    domains: z.array(SsoDomain),
  })
  .openapi("SsoSettings", {
    example: {
      configured: true,
      issuer: "https://login.example.com",
      client_id: "emailauth-monitor",
      has_client_secret: true,
      token_endpoint_auth: "client_secret_basic",
      authorization_endpoint: "https://login.example.com/authorize",
      discovered_at: "2026-11-28T10:00:00.000Z",
      enforced: true,
      auto_join: false,
      domains: [
        {
          domain: "example.com",
          verified: true,
          verified_at: "2026-11-28T10:05:00.000Z",
          txt: { host: "_emailauth-verify.example.com", type: "TXT", value: "emailauth-verify=3hT9xQ2aK7mP0bC4dE6fG8hJ1kL3nM5p" },
        },
      ],
    },
  });

const read = createRoute({
  method: "get",
  path: "/sso",
  tags: ["Single sign-on"],
  operationId: "getSsoSettings",
  summary: "The team's single sign-on settings (no secret)",
  description:
    "The OpenID provider, covered email domains with their verification records, enforcement and auto-join. Changes are made by the team owner in the dashboard only (Settings, Single sign-on); a token cannot change them. Needs a full token.",
  security: BEARER,
  responses: { 200: jsonContent(dataOf(SsoSettings), "The settings."), ...errorResponses(...AUTH_ERRORS, 403) },
});

export const ssoRoutes = () =>
  createRouter().openapi(read, async (c) => {
    const view = await getSso(c.get("services"), c.get("ctx"));
    return c.json({ data: view }, 200);
  });
