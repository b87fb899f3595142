/** @jsxImportSource hono/jsx */
// The dashboard at the site root: every page router, the shared guards, and the page error model
// (a refusal or bad input is an HTML page with the right status and a clear message; an unexpected
// failure is a generic 500 page, with the details only in the log).
import { type Context, Hono } from "hono";
import type { AppEnv } from "../context";
import { ApiError, internalError } from "../lib/errors";
import { assetRoutes } from "./assets/serve";
import { agentAccessPages } from "./agent-access";
import { alertPages } from "./alerts";
import { bimiHostingPages } from "./bimi-hosting";
import { hostingPages } from "./hosting";
import { webhookPages } from "./webhooks";
import { webhookEndpointPages } from "./webhooks-endpoint";
import { devOutboxPages } from "./dev-outbox";
import { dmarcPages } from "./dmarc";
import { dmarcFailurePages } from "./dmarc-failures";
import { dmarcSourcePages } from "./dmarc-sources";
import { dkimPages } from "./dkim";
import { domainPages } from "./domains";
import { intelPages } from "./intel";
import { messageAuditPages } from "./message-audit";
import { frameOf, titleOf } from "./frame";
import { loadSession } from "./guard";
import { sessionFromRequest } from "../services/accounts/sessions";
import { MessagePage } from "./layout";
import { oauthConsentPages } from "./oauth-consent";
import { overviewPages } from "./overview";
import { signInPages } from "./sign-in";
import { ssoPages } from "./sso";
import { ssoSettingsPages } from "./sso-settings";
import { teamPages } from "./team";
import { tlsPages } from "./tls";
import { tokenPages } from "./tokens";
import { unsubscribePages } from "./unsubscribe";
import { digestSettingsPages } from "./digest-settings";
import { notificationPages } from "./notifications";
import { auditPages } from "./audit";
import { notificationChannelPages } from "./notification-channel";
import { notificationConfirmPages } from "./notification-confirm";

/** Paths that belong to the dashboard (everything else on the site root is the API, operator or agent surface). */
export const PAGE_PATHS = [
  "/",
  "/dashboard",
  "/sign-in",
  "/auth/*",
  "/sign-out",
  "/sign-out/*",
  "/tokens",
  "/tokens/*",
  "/team",
  "/team/*",
  "/teams",
  "/teams/*",
  "/dev/*",
  "/settings/agents",
  "/settings/agents/*",
  "/domains",
  "/domains/*",
  "/dkim",
  "/dkim/*",
  "/intel",
  "/intel/*",
  "/tools/*",
  "/alerts",
  "/alerts/*",
  "/webhooks",
  "/webhooks/*",
  // The address confirmation link (/notifications/confirm/*) works signed out; its POST takes no CSRF token (src/pages/notification-confirm.tsx).
  "/notifications",
  "/notifications/*",
  // One-click unsubscribe from a mail: works signed out, and its POST takes no CSRF token (RFC 8058; src/pages/unsubscribe.tsx).
  "/unsubscribe/*",
  "/audit",
  "/audit/*",
  "/settings/notifications/digest",
  "/settings/notifications/digest/*",
  // Sign-in through the team's OpenID provider (works signed out) and its settings (src/pages/sso.tsx, sso-settings.tsx).
  "/sso/*",
  "/settings/sso",
  "/settings/sso/*",
];

export function pageRoutes() {
  const pages = new Hono<AppEnv>();
  pages.route("/", assetRoutes());
  for (const path of PAGE_PATHS) {
    pages.use(path, loadSession);
  }
  pages.route("/", overviewPages());
  pages.route("/", signInPages());
  pages.route("/", ssoPages());
  pages.route("/", ssoSettingsPages());
  pages.route("/", tokenPages());
  pages.route("/", teamPages());
  pages.route("/", devOutboxPages());
  pages.route("/", oauthConsentPages());
  pages.route("/", agentAccessPages());
  pages.route("/", domainPages());
  pages.route("/", dkimPages());
  pages.route("/", messageAuditPages());
  pages.route("/", intelPages());
  pages.route("/", alertPages());
  pages.route("/", webhookPages());
  pages.route("/", webhookEndpointPages());
  pages.route("/", dmarcPages());
  pages.route("/", dmarcFailurePages());
  pages.route("/", tlsPages());
  pages.route("/", hostingPages());
  pages.route("/", bimiHostingPages());
  pages.route("/", dmarcSourcePages());
  pages.route("/", unsubscribePages());
  pages.route("/", digestSettingsPages());
  pages.route("/", notificationConfirmPages());
  pages.route("/", notificationPages());
  pages.route("/", notificationChannelPages());
  pages.route("/", auditPages());
  pages.onError(async (error, c) => {
    const known = error instanceof ApiError ? error : null;
    if (!known)
      console.error(
        JSON.stringify({ level: "error", requestId: c.get("requestId"), error: String(error), stack: error instanceof Error ? error.stack : undefined }),
      );
    const shown = known ?? internalError();
    if (!c.get("signedIn")) c.set("signedIn", null);
    const frame = await frameOf(c).catch(() => ({ signedIn: null, memberships: [], csrf: "" }));
    const message = shown.status === 500 ? "Something went wrong on our side. Try again; if it keeps happening, tell us the request id." : shown.message;
    const res = await c.html(
      <MessagePage title={titleOf(shown)} message={`${message}${shown.status === 500 ? ` (${c.get("requestId")})` : ""}`} frame={frame} />,
      shown.status,
    );
    for (const [k, v] of Object.entries(shown.headers ?? {})) res.headers.set(k, v);
    return res;
  });
  return pages;
}

/** The 404 page for a path no route claims (the app's not-found handler calls it for browsers). */
export async function pageNotFound(c: Context<AppEnv>): Promise<Response> {
  c.set("signedIn", await sessionFromRequest(c.get("services"), c.req.raw).catch(() => null));
  // Its security headers come from the entry point like every other response (D149).
  return c.html(<MessagePage title="Not found" message="There is no page at this address." frame={await frameOf(c)} />, 404);
}
