/** @jsxImportSource hono/jsx */
// The OAuth consent page of the agent endpoint (docs/decisions.md D44): GET /oauth/authorize checks the
// request through the OAuth provider (registered client and redirect URI, S256 PKCE required), asks the
// signed-in user which team and which scope to grant, and POST approves or declines. CSRF: the Origin
// must be this site and the form's token must match the cookie (D33); the provider's own handle is bound
// to this browser and works once. A viewer may grant read-only access only.
import { AuthorizationError, type ConsentDescription } from "@cloudflare/workers-oauth-provider";
import { type Context, Hono } from "hono";
import type { FC } from "hono/jsx";
import type { AppEnv } from "../context";
import type { TokenScope } from "../db/schema";
import { ApiError } from "../lib/errors";
import type { Membership } from "../services/accounts/members";
import { grantFor, mayGrant, recordAgentGrant } from "../services/agents/grants";
import { frameOf } from "./frame";
import { CSP } from "../middleware/security-headers";
import { checkCsrf, loadSession, readForm, signedInOrRedirect } from "./guard";
import { CsrfField, type Frame, Layout, MessagePage } from "./layout";

const PATH = "/oauth/authorize";

function providerOf(c: Context<AppEnv>) {
  const oauth = c.env.OAUTH_PROVIDER;
  if (!oauth) throw new ApiError(404, "not_found", "Page not found.");
  return oauth;
}

/** The page's headers: the dashboard's CSP, except that the form may end in a redirect to the client (CSP form-action follows redirects). */
function consentHeaders(res: Response, redirectUri: string | null): Response {
  const target = redirectUri ? ` ${new URL(redirectUri).origin}` : "";
  res.headers.set("Content-Security-Policy", CSP.replace("form-action 'self'", `form-action 'self'${target}`));
  res.headers.set("X-Frame-Options", "DENY");
  res.headers.set("X-Content-Type-Options", "nosniff");
  res.headers.set("Referrer-Policy", "no-referrer");
  res.headers.set("Cache-Control", "no-store");
  return res;
}

const ConsentPage: FC<{ frame: Frame; consent: ConsentDescription; handle: string; teams: Membership[]; current: number; requested: TokenScope }> = (p) => (
  <Layout title="Allow an agent" frame={p.frame}>
    <div class="panel narrow">
      <h1>Allow {p.consent.clientName} to use your account?</h1>
      <p>
        <strong>{p.consent.clientName}</strong> (redirecting to <span class="mono">{p.consent.redirectHost}</span>) asks to use the agent endpoint as you,{" "}
        {p.frame.signedIn?.user.email}, with the team's plan and limits.
      </p>
      {p.consent.redirectIsLoopback && <p class="notice info">This app runs on your own computer. Allow it only if you started it yourself.</p>}
      <form method="post" action={PATH}>
        <CsrfField csrf={p.frame.csrf} />
        <input type="hidden" name="handle" value={p.handle} />
        <label for="consent-team">Team</label>
        <select id="consent-team" name="team_id">
          {p.teams.map((t) => (
            <option value={String(t.teamId)} selected={t.teamId === p.current}>
              {t.teamName} ({t.role})
            </option>
          ))}
        </select>
        <fieldset>
          <legend>Access</legend>
          <label>
            <input type="radio" name="scope" value="read_only" checked={p.requested === "read_only"} /> Read-only: read domains, reports and alerts, and use the
            lookup tools
          </label>
          <label>
            <input type="radio" name="scope" value="full" checked={p.requested === "full"} /> Full: also add, verify, check and delete domains, resolve alerts,
            send webhook tests
          </label>
          <p class="muted">A viewer of a team may grant read-only access only. You can revoke access at any time under Agents.</p>
        </fieldset>
        <div class="row">
          <button type="submit" name="decision" value="approve">
            Allow
          </button>
          <button type="submit" name="decision" value="deny" class="secondary">
            Deny
          </button>
        </div>
      </form>
    </div>
  </Layout>
);

export function oauthConsentPages() {
  const r = new Hono<AppEnv>();
  r.use(PATH, loadSession);

  r.get(PATH, async (c) => {
    const oauth = providerOf(c);
    let request: Awaited<ReturnType<typeof oauth.parseAuthRequest>>;
    try {
      request = await oauth.parseAuthRequest(c.req.raw);
    } catch (error) {
      if (error instanceof AuthorizationError && error.redirectTo) return c.redirect(error.redirectTo, 302);
      const message = error instanceof AuthorizationError ? error.description : "The authorization request is invalid.";
      return consentHeaders(await c.html(<MessagePage title="Invalid request" message={message} frame={await frameOf(c)} />, 400), null);
    }
    // OAuth 2.1 §4.1.1 and MCP authorization: every client uses PKCE, S256 only (the provider refuses plain).
    if (!request.codeChallenge) {
      return c.redirect(
        `${request.redirectUri}${request.redirectUri.includes("?") ? "&" : "?"}${new URLSearchParams({
          error: "invalid_request",
          error_description: "PKCE (code_challenge with S256) is required.",
          ...(request.state ? { state: request.state } : {}),
          ...(request.issuer ? { iss: request.issuer } : {}),
        })}`,
        302,
      );
    }
    const s = signedInOrRedirect(c);
    if (s instanceof Response) return s;
    const frame = await frameOf(c);
    const consent = await oauth.describeConsent(request);
    const tx = await oauth.beginConsent(request);
    const requested: TokenScope = request.scope.includes("full") && mayGrant(s.role, "full") ? "full" : "read_only";
    const res = await c.html(
      <ConsentPage frame={frame} consent={consent} handle={tx.handle} teams={frame.memberships} current={s.teamId} requested={requested} />,
    );
    tx.headers.forEach((value, key) => {
      res.headers.append(key, value);
    });
    return consentHeaders(res, request.redirectUri);
  });

  r.post(PATH, async (c) => {
    const oauth = providerOf(c);
    const s = signedInOrRedirect(c);
    if (s instanceof Response) return s;
    const form = await readForm(c);
    checkCsrf(c, form.get("_csrf"));
    const handle = form.get("handle") ?? "";
    try {
      if (form.get("decision") !== "approve") {
        const denied = await oauth.denyConsent(c.req.raw, handle);
        return new Response(null, { status: 302, headers: denied.headers });
      }
      const scope: TokenScope = form.get("scope") === "full" ? "full" : "read_only";
      const teamId = Number(form.get("team_id"));
      // Checked before the handle is spent, so a refused choice can be corrected by going back.
      const grant = await grantFor(c.get("services"), s.user, { teamId, scope, clientName: "" });
      const approved = await oauth.approveConsent(c.req.raw, handle, { scope: [scope] });
      const client = await oauth.lookupClient(approved.request.clientId);
      grant.metadata.clientName = client?.clientName ?? approved.request.clientId;
      // The props name the client too (the agent's audit label): known only now, from the registration.
      grant.props.clientName = grant.metadata.clientName.slice(0, 100);
      const { redirectTo } = await oauth.completeAuthorization({
        request: approved.request,
        userId: String(s.user.id),
        scope: [scope],
        props: grant.props,
        metadata: grant.metadata,
      });
      await recordAgentGrant(c.get("services"), s, grant.metadata, approved.request.clientId);
      const headers = new Headers(approved.headers);
      headers.set("Location", redirectTo);
      return new Response(null, { status: 302, headers });
    } catch (error) {
      if (error instanceof AuthorizationError) throw new ApiError(400, "bad_request", `${error.description} Start again from the app.`);
      throw error;
    }
  });
  return r;
}
