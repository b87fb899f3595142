/** @jsxImportSource hono/jsx */
// The single sign-on settings page (docs/sso.md): the owner configures the OpenID provider, the email
// domains it covers (each with the TXT record that proves the team owns it), enforcement and auto-join;
// admins see the same page read-only, viewers are refused (docs/decisions.md D245). Forms carry the CSRF token.
import { type Context, Hono } from "hono";
import type { FC } from "hono/jsx";
import type { AppEnv } from "../context";
import { ApiError, forbidden } from "../lib/errors";
import type { SignedIn } from "../services/accounts/sessions";
import { addSsoDomain, removeSsoDomain, verifySsoDomain } from "../services/sso/domains";
import { configureSso, getSso, removeSso, setSsoOptions, type SsoView } from "../services/sso/settings";
import { checkCsrf, readForm, signedInOrRedirect } from "./guard";
import { when } from "./domain-format";
import { frameOf, siteOrigin } from "./frame";
import { CsrfField, type Frame, Layout, Notice } from "./layout";

const PATH = "/settings/sso";

const SsoSettingsPage: FC<{ frame: Frame; view: SsoView; owner: boolean; callback: string; email: string; saved?: string; problem?: string[] }> = ({
  frame,
  view,
  owner,
  callback,
  email,
  saved,
  problem,
}) => {
  const verified = view.domains.filter((d) => d.verified);
  const ownDomain = email.slice(email.lastIndexOf("@") + 1);
  return (
    <Layout title="Single sign-on" frame={frame}>
      <h1>Single sign-on</h1>
      {saved && <Notice kind="ok">{saved}</Notice>}
      {problem && problem.length > 0 && (
        <Notice kind="bad">
          {problem.map((p) => (
            <p>{p}</p>
          ))}
        </Notice>
      )}
      {!owner && <Notice kind="info">Only the team owner changes single sign-on; you see the settings read-only.</Notice>}
      <p>
        People whose address is in a verified domain below sign in through your company's OpenID provider. Register this service at the provider as a
        confidential client with the redirect URI <code class="break">{callback}</code>, the scopes <code>openid email profile</code>, and PKCE.
      </p>

      <section class="panel narrow">
        <h2>Provider</h2>
        {view.configured && (
          <dl>
            <dt>Issuer</dt>
            <dd class="break">{view.issuer}</dd>
            <dt>Client id</dt>
            <dd class="break">{view.client_id}</dd>
            <dt>Client secret</dt>
            <dd>{view.has_client_secret ? "stored (sealed; never shown again)" : "missing"}</dd>
            <dt>Token endpoint authentication</dt>
            <dd>{view.token_endpoint_auth}</dd>
            <dt>Discovery read</dt>
            <dd>{when(view.discovered_at)}</dd>
          </dl>
        )}
        {owner && (
          <form method="post" action={PATH}>
            <CsrfField csrf={frame.csrf} />
            <label for="issuer">Issuer URL</label>
            <input id="issuer" name="issuer" type="url" required maxlength={500} value={view.issuer ?? ""} placeholder="https://login.example.com" />
            <label for="client_id">Client id</label>
            <input id="client_id" name="client_id" type="text" required maxlength={255} value={view.client_id ?? ""} />
            <label for="client_secret">Client secret{view.has_client_secret ? " (leave blank to keep the stored one, for the same issuer)" : ""}</label>
            <input id="client_secret" name="client_secret" type="password" autocomplete="off" maxlength={1000} required={!view.has_client_secret} />
            <p>
              <button type="submit">{view.configured ? "Save and read discovery again" : "Save"}</button>
            </p>
          </form>
        )}
        {!view.configured && !owner && <p>No provider is configured.</p>}
      </section>

      <section class="panel">
        <h2>Email domains</h2>
        {view.domains.length === 0 ? (
          <p>No domain yet. Add the domain of your people's addresses, then publish its TXT record and verify it.</p>
        ) : (
          <table>
            <thead>
              <tr>
                <th>Domain</th>
                <th>State</th>
                <th>TXT record to publish</th>
                {owner && <th>Actions</th>}
              </tr>
            </thead>
            <tbody>
              {view.domains.map((d) => (
                <tr>
                  <td>{d.domain}</td>
                  <td>{d.verified ? `verified ${d.verified_at?.slice(0, 10)}` : "not verified"}</td>
                  <td class="break">
                    <code>{d.txt.host}</code> TXT <code>{d.txt.value}</code>
                  </td>
                  {owner && (
                    <td>
                      {!d.verified && (
                        <form method="post" action={`${PATH}/domains/${encodeURIComponent(d.domain)}/verify`}>
                          <CsrfField csrf={frame.csrf} />
                          <button type="submit" class="small-button">
                            Verify {d.domain}
                          </button>
                        </form>
                      )}
                      <form method="post" action={`${PATH}/domains/${encodeURIComponent(d.domain)}/delete`}>
                        <CsrfField csrf={frame.csrf} />
                        <button type="submit" class="secondary small-button">
                          Remove {d.domain}
                        </button>
                      </form>
                    </td>
                  )}
                </tr>
              ))}
            </tbody>
          </table>
        )}
        {owner && (
          <form method="post" action={`${PATH}/domains`}>
            <CsrfField csrf={frame.csrf} />
            <label for="domain">Add a domain</label>
            <input id="domain" name="domain" type="text" required maxlength={253} placeholder="example.com" />
            <p>
              <button type="submit">Add domain</button>
            </p>
          </form>
        )}
      </section>

      <section class="panel narrow">
        <h2>Enforcement</h2>
        <p>
          Enforced: <strong>{view.enforced ? "on" : "off"}</strong>. Auto-join: <strong>{view.auto_join ? "on" : "off"}</strong>.
        </p>
        <p class="small">
          When enforced, addresses in the verified domains get no email sign-in link; they sign in through the provider. The team owner still receives an email
          link, so a provider outage cannot lock the team out. With auto-join, a new person from a verified domain joins as a viewer on their first sign-in;
          without it they must be invited.
        </p>
        {owner && view.configured && (
          <form method="post" action={`${PATH}/options`}>
            <CsrfField csrf={frame.csrf} />
            <label>
              <input type="checkbox" name="enforced" value="on" checked={view.enforced} disabled={verified.length === 0 && !view.enforced} /> Enforce single
              sign-on {verified.length === 0 ? "(verify a domain first)" : ""}
            </label>
            <label>
              <input type="checkbox" name="auto_join" value="on" checked={view.auto_join} /> Auto-join new people as viewers
            </label>
            <p>
              <button type="submit">Save enforcement</button>
            </p>
          </form>
        )}
      </section>

      {owner && (view.configured || view.domains.length > 0) && (
        <section class="panel narrow">
          <h2>Remove single sign-on</h2>
          <p class="small">Removes the provider, its secret and the domains; everyone signs in with email links again.</p>
          <form method="post" action={`${PATH}/remove`}>
            <CsrfField csrf={frame.csrf} />
            <button type="submit" class="secondary">
              Remove single sign-on
            </button>
          </form>
        </section>
      )}

      {view.configured && verified.length > 0 && (
        <section class="panel narrow">
          <h2>Test sign-in</h2>
          {verified.some((d) => d.domain === ownDomain) ? (
            <p>
              <a href={`/sso/start?email=${encodeURIComponent(email)}&next=${encodeURIComponent(PATH)}`}>Sign in through the provider as {email}</a>
            </p>
          ) : (
            <p>
              Open <a href="/sso/start">Sign in with SSO</a> in a private window with an address in {verified.map((d) => d.domain).join(", ")}.
            </p>
          )}
        </section>
      )}
    </Layout>
  );
};

function readerOrRefuse(s: SignedIn): void {
  if (s.role === "viewer") throw forbidden("Only the team's owner and admins see its single sign-on settings.");
}

/** A refused change is shown on the page with what was wrong (field errors in words), not as a bare error page. */
async function render(c: Context<AppEnv>, s: SignedIn, extra: { saved?: string; problem?: string[] } = {}, status: 200 | 409 | 422 | 503 = 200) {
  const svc = c.get("services");
  const view = await getSso(svc, s.ctx);
  return c.html(
    <SsoSettingsPage
      frame={await frameOf(c)}
      view={view}
      owner={s.role === "owner"}
      callback={`${siteOrigin(c)}/sso/callback`}
      email={s.user.email}
      {...extra}
    />,
    status,
  );
}

async function attempt(c: Context<AppEnv>, s: SignedIn, action: () => Promise<string>) {
  try {
    const saved = await action();
    return render(c, s, { saved });
  } catch (e) {
    if (e instanceof ApiError && (e.status === 409 || e.status === 422 || e.status === 503)) {
      const problem = e.errors ? Object.values(e.errors).flat() : [e.message];
      return render(c, s, { problem }, e.status);
    }
    throw e;
  }
}

export function ssoSettingsPages() {
  const r = new Hono<AppEnv>();

  r.get(PATH, async (c) => {
    const s = signedInOrRedirect(c);
    if (s instanceof Response) return s;
    readerOrRefuse(s);
    return render(c, s);
  });

  r.post(PATH, async (c) => {
    const s = signedInOrRedirect(c);
    if (s instanceof Response) return s;
    const form = await readForm(c);
    checkCsrf(c, form.get("_csrf"));
    return attempt(c, s, async () => {
      await configureSso(c.get("services"), s, {
        issuer: form.get("issuer") ?? "",
        client_id: form.get("client_id") ?? "",
        client_secret: form.get("client_secret"),
      });
      return "Provider saved: its discovery document was read and checked.";
    });
  });

  r.post(`${PATH}/options`, async (c) => {
    const s = signedInOrRedirect(c);
    if (s instanceof Response) return s;
    const form = await readForm(c);
    checkCsrf(c, form.get("_csrf"));
    return attempt(c, s, async () => {
      await setSsoOptions(c.get("services"), s, { enforced: form.get("enforced") === "on", auto_join: form.get("auto_join") === "on" });
      return "Enforcement saved.";
    });
  });

  r.post(`${PATH}/domains`, async (c) => {
    const s = signedInOrRedirect(c);
    if (s instanceof Response) return s;
    const form = await readForm(c);
    checkCsrf(c, form.get("_csrf"));
    return attempt(c, s, async () => {
      const d = await addSsoDomain(c.get("services"), s, { domain: form.get("domain") ?? "" });
      return `${d.domain} added: publish its TXT record, then verify it.`;
    });
  });

  r.post(`${PATH}/domains/:domain/verify`, async (c) => {
    const s = signedInOrRedirect(c);
    if (s instanceof Response) return s;
    const form = await readForm(c);
    checkCsrf(c, form.get("_csrf"));
    const svc = c.get("services");
    try {
      const out = await verifySsoDomain(svc, s, c.req.param("domain"));
      return out.verified ? render(c, s, { saved: `${out.domain.domain} verified.` }) : render(c, s, { problem: [`Not verified yet: ${out.reason}.`] });
    } catch (e) {
      if (e instanceof ApiError && (e.status === 409 || e.status === 503)) return render(c, s, { problem: [e.message] }, e.status);
      throw e;
    }
  });

  r.post(`${PATH}/remove`, async (c) => {
    const s = signedInOrRedirect(c);
    if (s instanceof Response) return s;
    const form = await readForm(c);
    checkCsrf(c, form.get("_csrf"));
    await removeSso(c.get("services"), s);
    return render(c, s, { saved: "Single sign-on removed: everyone signs in with email links again." });
  });

  r.post(`${PATH}/domains/:domain/delete`, async (c) => {
    const s = signedInOrRedirect(c);
    if (s instanceof Response) return s;
    const form = await readForm(c);
    checkCsrf(c, form.get("_csrf"));
    const domain = c.req.param("domain");
    await removeSsoDomain(c.get("services"), s, domain);
    return render(c, s, { saved: `${domain} removed.` });
  });

  return r;
}
