/** @jsxImportSource hono/jsx */
// API tokens of the current team: list, create (shown once, with a copy button and a curl line to try
// it) and revoke (effective at once). Each token says who made it: a member, the operator (admin API) or
// unknown (docs/decisions.md D151). Viewers see the list without the controls; the verbs refuse them too.
import { Hono } from "hono";
import type { FC } from "hono/jsx";
import type { AppEnv } from "../context";
import type { TokenScope } from "../db/schema";
import { createTeamToken, listTeamTokens, revokeTeamToken } from "../services/teams/team-tokens";
import type { IssuedToken } from "../services/teams/tokens";
import { checkCsrf, readForm, signedInOrRedirect } from "./guard";
import { type Frame, CsrfField, Layout, Notice } from "./layout";
import { frameOf, siteOrigin } from "./frame";
import { idParam } from "./params";

const when = (d: Date | null) => (d ? d.toISOString().replace("T", " ").slice(0, 16) : "never");

const TokensPage: FC<{ frame: Frame; rows: Awaited<ReturnType<typeof listTeamTokens>>; issued?: IssuedToken; origin: string; revoked?: boolean }> = ({
  frame,
  rows,
  issued,
  origin,
  revoked,
}) => {
  const canWrite = frame.signedIn?.ctx.scope === "full";
  const curl = issued ? `curl -H "Authorization: Bearer ${issued.token}" ${origin}/api/v1/me` : "";
  return (
    <Layout title="API tokens" frame={frame} active="/tokens">
      <h1>API tokens</h1>
      {revoked && <Notice kind="ok">The token was revoked. Requests that present it now get 401.</Notice>}
      {issued && (
        <section class="panel" aria-labelledby="new-token">
          <h2 id="new-token">Your new token</h2>
          <Notice kind="info">Copy it now: it is shown only once and stored only as a hash.</Notice>
          <div class="secret">
            <code id="token-value">{issued.token}</code>
            <button type="button" class="secondary" data-copy={issued.token}>
              Copy token
            </button>
          </div>
          <p>Try it:</p>
          <pre id="token-curl">{curl}</pre>
          <button type="button" class="secondary" data-copy={curl}>
            Copy curl command
          </button>
        </section>
      )}
      {canWrite && (
        <section class="panel" aria-labelledby="create-token">
          <h2 id="create-token">Create a token</h2>
          <form method="post" action="/tokens">
            <CsrfField csrf={frame.csrf} />
            <div class="row">
              <div>
                <label for="token-name">Name</label>
                <input id="token-name" name="name" type="text" required maxlength={100} placeholder="CI pipeline" />
              </div>
              <div>
                <label for="token-scope">Scope</label>
                <select id="token-scope" name="scope">
                  <option value="full">Full access</option>
                  <option value="read_only">Read-only</option>
                </select>
              </div>
              <div>
                <button type="submit">Create token</button>
              </div>
            </div>
          </form>
        </section>
      )}
      <section class="panel" aria-labelledby="token-list">
        <h2 id="token-list">Tokens</h2>
        <div class="table-wrap">
          <table class="stack">
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Scope</th>
                <th scope="col">Prefix</th>
                <th scope="col">Created</th>
                <th scope="col">Made by</th>
                <th scope="col">Last used</th>
                <th scope="col">Status</th>
              </tr>
            </thead>
            <tbody>
              {rows.map((t) => (
                <tr>
                  <td>{t.name}</td>
                  <td>{t.scope === "full" ? "Full" : "Read-only"}</td>
                  <td class="mono">{t.prefix}…</td>
                  <td>{when(t.createdAt)}</td>
                  <td class="token-maker">{t.createdBy}</td>
                  <td>{when(t.lastUsedAt)}</td>
                  <td>
                    {t.revokedAt ? (
                      <span class="badge bad">revoked</span>
                    ) : canWrite ? (
                      <form
                        method="post"
                        action={`/tokens/${t.id}/revoke`}
                        class="inline"
                        data-confirm={`Revoke "${t.name}"? Requests using it will fail at once.`}
                      >
                        <CsrfField csrf={frame.csrf} />
                        <button type="submit" class="danger" aria-label={`Revoke ${t.name}`}>
                          Revoke
                        </button>
                      </form>
                    ) : (
                      <span class="badge ok">active</span>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
        {rows.length === 0 && <p class="muted">No tokens yet.</p>}
      </section>
    </Layout>
  );
};

export function tokenPages() {
  const r = new Hono<AppEnv>();

  r.get("/tokens", async (c) => {
    const s = signedInOrRedirect(c);
    if (s instanceof Response) return s;
    const rows = await listTeamTokens(c.get("services"), s.ctx);
    return c.html(<TokensPage frame={await frameOf(c)} rows={rows} origin={siteOrigin(c)} revoked={c.req.query("revoked") === "1"} />);
  });

  r.post("/tokens", async (c) => {
    const s = signedInOrRedirect(c);
    if (s instanceof Response) return s;
    const form = await readForm(c);
    checkCsrf(c, form.get("_csrf"));
    const scope: TokenScope = form.get("scope") === "read_only" ? "read_only" : "full";
    const svc = c.get("services");
    // Before the token exists: it is shown once, so a page that cannot be drawn must not issue it (D148).
    const origin = siteOrigin(c);
    const issued = await createTeamToken(svc, s.ctx, { name: form.get("name") ?? "", scope });
    const rows = await listTeamTokens(svc, s.ctx);
    return c.html(<TokensPage frame={await frameOf(c)} rows={rows} issued={issued} origin={origin} />, 201);
  });

  r.post("/tokens/:id/revoke", async (c) => {
    const s = signedInOrRedirect(c);
    if (s instanceof Response) return s;
    const form = await readForm(c);
    checkCsrf(c, form.get("_csrf"));
    await revokeTeamToken(c.get("services"), s.ctx, idParam(c.req.param("id")));
    return c.redirect("/tokens?revoked=1", 303);
  });
  return r;
}
