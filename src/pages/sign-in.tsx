/** @jsxImportSource hono/jsx */
// Sign-in by email link: ask for an address, mail a one-time link, confirm it with a button (a GET
// never signs anyone in, so mail scanners that open links cannot spend them), open a session.
import { Hono } from "hono";
import { deleteCookie, setCookie } from "hono/cookie";
import type { AppEnv } from "../context";
import { safeNext, requestSignInLink, peekLink } from "../services/accounts/links";
import { completeLink } from "../services/accounts/members";
import { openSession, revokeAllSessions, revokeSession, sessionCookieName } from "../services/accounts/sessions";
import { requestOrigin } from "../services/audit/origin";
import { clientOf } from "../middleware/failure-gate";
import { checkCsrf, isSecure, readForm, sessionCookieOptions } from "./guard";
import { frameOf, siteOrigin } from "./frame";
import { CsrfField, Layout, Notice } from "./layout";
import { SsoStartForm } from "./sso";
import { ssoRequiredMessage } from "../services/accounts/sso-gate";

export function signInPages() {
  const r = new Hono<AppEnv>();

  r.get("/sign-in", async (c) => {
    const next = safeNext(c.req.query("next"));
    if (c.get("signedIn")) return c.redirect(next ?? "/dashboard", 303);
    const frame = await frameOf(c);
    const expired = c.req.query("expired") === "1";
    return c.html(
      <Layout title="Sign in" frame={frame}>
        <div class="panel narrow">
          <h1>Sign in</h1>
          {expired && <Notice kind="bad">That link was already used or has expired. Ask for a new one.</Notice>}
          <p>Enter your email address and we will send you a link that signs you in. No password needed; a new address gets its own team.</p>
          <form method="post" action="/sign-in">
            <CsrfField csrf={frame.csrf} />
            {next && <input type="hidden" name="next" value={next} />}
            <label for="email">Email address</label>
            <input id="email" name="email" type="email" autocomplete="email" required maxlength={254} />
            <p>
              <button type="submit">Email me a sign-in link</button>
            </p>
          </form>
          <h2>Your company uses single sign-on?</h2>
          <SsoStartForm csrf={frame.csrf} next={next} />
        </div>
      </Layout>,
    );
  });

  r.post("/sign-in", async (c) => {
    const form = await readForm(c);
    checkCsrf(c, form.get("_csrf"));
    const svc = c.get("services");
    const sent = await requestSignInLink(svc, { email: form.get("email") ?? "", client: clientOf(c), origin: siteOrigin(c), next: form.get("next") });
    const frame = await frameOf(c);
    const email = (form.get("email") ?? "").trim().slice(0, 254);
    const next = safeNext(form.get("next"));
    if (sent.ssoIssuerHost) {
      // The same page for every address of an enforcing domain (docs/decisions.md D247).
      return c.html(
        <Layout title="Sign in with SSO" frame={frame}>
          <div class="panel narrow">
            <h1>Sign in with SSO</h1>
            <Notice kind="info">{ssoRequiredMessage(sent.ssoIssuerHost)}</Notice>
            <SsoStartForm csrf={frame.csrf} email={email} next={next} button="Sign in with SSO" />
            <p class="small">Email links are turned off for this domain. Only the team owner still receives one, in case the provider is unreachable.</p>
          </div>
        </Layout>,
      );
    }
    // The same answer for every address: whether it has an account is never revealed.
    return c.html(
      <Layout title="Check your email" frame={frame}>
        <div class="panel narrow">
          <h1>Check your email</h1>
          <p>
            We sent a sign-in link to <strong class="break">{email}</strong>. It works once and expires in 15 minutes.
          </p>
          {/* Resending goes through the same throttled request as the first link. */}
          <form method="post" action="/sign-in">
            <CsrfField csrf={frame.csrf} />
            <input type="hidden" name="email" value={email} />
            {next && <input type="hidden" name="next" value={next} />}
            <p class="small">
              Nothing after a few minutes? Check your spam folder, or{" "}
              <button type="submit" class="secondary small-button">
                send the link again
              </button>
            </p>
          </form>
          <p class="small">
            <a href="/sign-in">Use a different address</a>
          </p>
          {svc.config.devOutbox && (
            <Notice kind="info">
              Local development: the message is in the <a href="/dev/outbox">dev outbox</a>.
            </Notice>
          )}
        </div>
      </Layout>,
    );
  });

  r.get("/auth/link", async (c) => {
    const token = c.req.query("token") ?? "";
    const link = await peekLink(c.get("services"), token);
    if (!link) return c.redirect("/sign-in?expired=1", 303);
    const frame = await frameOf(c);
    c.header("Referrer-Policy", "no-referrer");
    return c.html(
      <Layout title="Confirm sign-in" frame={frame}>
        <div class="panel narrow">
          <h1>{link.purpose === "invite" ? "Accept the invitation" : "Confirm sign-in"}</h1>
          <p>
            Continue as <strong>{link.email}</strong>.
          </p>
          <form method="post" action="/auth/link">
            <CsrfField csrf={frame.csrf} />
            <input type="hidden" name="token" value={token} />
            <button type="submit">{link.purpose === "invite" ? "Accept and sign in" : "Sign in"}</button>
          </form>
        </div>
      </Layout>,
    );
  });

  r.post("/auth/link", async (c) => {
    const form = await readForm(c);
    checkCsrf(c, form.get("_csrf"));
    const svc = c.get("services");
    const done = await completeLink(svc, form.get("token") ?? "", requestOrigin(c.req.raw.headers, "dashboard", "email link"));
    if (!done) return c.redirect("/sign-in?expired=1", 303);
    const previous = c.get("signedIn");
    if (previous) await revokeSession(svc, previous);
    const id = await openSession(svc, done.userId, done.teamId, requestOrigin(c.req.raw.headers, "dashboard", "email link"));
    setCookie(c, sessionCookieName(isSecure(c)), id, { ...sessionCookieOptions(c), maxAge: 30 * 24 * 3600 });
    return c.redirect(safeNext(done.next) ?? "/dashboard", 303);
  });

  r.post("/sign-out", async (c) => {
    const form = await readForm(c);
    checkCsrf(c, form.get("_csrf"));
    const s = c.get("signedIn");
    if (s) await revokeSession(c.get("services"), s, "sign_out");
    deleteCookie(c, sessionCookieName(isSecure(c)), sessionCookieOptions(c));
    return c.redirect("/sign-in", 303);
  });

  r.post("/sign-out/everywhere", async (c) => {
    const form = await readForm(c);
    checkCsrf(c, form.get("_csrf"));
    const s = c.get("signedIn");
    if (s) await revokeAllSessions(c.get("services"), s);
    deleteCookie(c, sessionCookieName(isSecure(c)), sessionCookieOptions(c));
    return c.redirect("/sign-in", 303);
  });

  return r;
}
