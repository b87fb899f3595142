/** @jsxImportSource hono/jsx */
// Sign-in through the team's OpenID provider (docs/sso.md): /sso/start finds the provider for the
// address's domain and sends the browser there; /sso/callback comes back with the code, and the service
// opens a session exactly like the email link does. A refusal is a 4xx page saying why, with no session.
import type { FC } from "hono/jsx";
import { type Context, Hono } from "hono";
import { deleteCookie, getCookie, setCookie } from "hono/cookie";
import type { AppEnv } from "../context";
import { clientOf } from "../middleware/failure-gate";
import { safeNext } from "../services/accounts/links";
import { revokeSession, sessionCookieName } from "../services/accounts/sessions";
import { completeSsoSignIn, SSO_LOGIN_TTL_MS, startSsoSignIn } from "../services/sso/sign-in";
import { checkCsrf, isSecure, readForm, sessionCookieOptions } from "./guard";
import { frameOf, siteOrigin } from "./frame";
import { CsrfField, Layout } from "./layout";
import { ApiError } from "../lib/errors";
import { requestOrigin } from "../services/audit/origin";

/** `__Host-` binds the cookie to this origin over https (RFC 6265bis §4.1.3.2); plain http (local development) cannot carry it. */
export const ssoCookieName = (secure: boolean) => (secure ? "__Host-sso" : "eam_sso");

/** The "Sign in with SSO" form: an address, whose domain names the provider. */
export const SsoStartForm: FC<{ csrf: string; email?: string; next?: string | null; button?: string }> = ({ csrf, email, next, button }) => (
  <form method="post" action="/sso/start">
    <CsrfField csrf={csrf} />
    {next && <input type="hidden" name="next" value={next} />}
    <label for="sso-email">Work email address</label>
    <input id="sso-email" name="email" type="email" autocomplete="email" required maxlength={254} value={email ?? ""} />
    <p>
      <button type="submit" class={button ? undefined : "secondary"}>
        {button ?? "Sign in with SSO"}
      </button>
    </p>
  </form>
);

export function ssoPages() {
  const r = new Hono<AppEnv>();

  async function start(c: Context<AppEnv>, email: string, next: string | null, from: "link" | "form") {
    const svc = c.get("services");
    const started = await startSsoSignIn(svc, { email, next, redirectUri: `${siteOrigin(c)}/sso/callback`, client: clientOf(c) });
    const secure = isSecure(c);
    setCookie(c, ssoCookieName(secure), started.browserValue, { path: "/", httpOnly: true, secure, sameSite: "Lax", maxAge: SSO_LOGIN_TTL_MS / 1000 });
    c.header("Referrer-Policy", "no-referrer");
    if (from === "link") return c.redirect(started.location, 302);
    // A form's navigation may only end on this site (CSP form-action 'self' also covers its redirects), and
    // the provider is only known once the address is typed: the form's answer is a page that moves on by
    // itself (a Refresh is a new navigation, not the form's) with a link for a browser that does not.
    const provider = new URL(started.location);
    c.header("Refresh", `0;url=${started.location}`);
    const frame = await frameOf(c);
    return c.html(
      <Layout title="Sign in with SSO" frame={frame}>
        <div class="panel narrow">
          <h1>Sign in with SSO</h1>
          <p>
            Taking you to your company's sign-in at <strong>{provider.host}</strong>…
          </p>
          <p>
            <a href={started.location}>Continue to {provider.host}</a>
          </p>
        </div>
      </Layout>,
    );
  }

  // A GET starts too (the contract with the settings page's test link); with no address it asks for one.
  // A navigation another site caused (Sec-Fetch-Site cross-site or same-site) gets the form filled in
  // instead: a link elsewhere must not send a visitor through a provider of the linker's choosing and
  // sign them in as someone else (login CSRF, RFC 9700 §4.7; docs/decisions.md D270).
  r.get("/sso/start", async (c) => {
    const email = c.req.query("email") ?? "";
    const next = safeNext(c.req.query("next"));
    const fetchSite = c.req.header("sec-fetch-site");
    const fromElsewhere = fetchSite === "cross-site" || fetchSite === "same-site";
    if (email !== "" && !fromElsewhere) return start(c, email, next, "link");
    const frame = await frameOf(c);
    return c.html(
      <Layout title="Sign in with SSO" frame={frame}>
        <div class="panel narrow">
          <h1>Sign in with SSO</h1>
          <p>Enter your work address; your company's identity provider signs you in.</p>
          <SsoStartForm csrf={frame.csrf} email={email.slice(0, 254)} next={next} button="Continue" />
        </div>
      </Layout>,
    );
  });

  r.post("/sso/start", async (c) => {
    const form = await readForm(c);
    checkCsrf(c, form.get("_csrf"));
    return start(c, form.get("email") ?? "", safeNext(form.get("next")), "form");
  });

  r.get("/sso/callback", async (c) => {
    const svc = c.get("services");
    const secure = isSecure(c);
    // The code and state are in this URL: never pass it on as a referrer.
    c.header("Referrer-Policy", "no-referrer");
    const browserValue = getCookie(c, ssoCookieName(secure)) ?? null;
    deleteCookie(c, ssoCookieName(secure), { path: "/", secure });
    const providerError = c.req.query("error");
    if (providerError !== undefined) {
      // OpenID Connect Core §3.1.2.6 / RFC 6749 §4.1.2.1: the provider declined; say what it said (escaped, shortened).
      const description = (c.req.query("error_description") ?? "").slice(0, 300);
      throw new ApiError(
        400,
        "bad_request",
        `Your identity provider did not sign you in (${providerError.slice(0, 60)}${description ? `: ${description}` : ""}). Start again from the sign-in page.`,
      );
    }
    const done = await completeSsoSignIn(svc, {
      state: c.req.query("state") ?? "",
      code: c.req.query("code") ?? "",
      // RFC 9207: the issuer the provider names in its answer (mix-up defence, D268).
      iss: c.req.query("iss") ?? null,
      browserValue,
      redirectUri: `${siteOrigin(c)}/sso/callback`,
      origin: requestOrigin(c.req.raw.headers, "dashboard", "single sign-on"),
    });
    const previous = c.get("signedIn");
    if (previous) await revokeSession(svc, previous);
    setCookie(c, sessionCookieName(secure), done.sessionId, { ...sessionCookieOptions(c), maxAge: 30 * 24 * 3600 });
    return c.redirect(safeNext(done.next) ?? "/dashboard", 303);
  });

  return r;
}
