/** @jsxImportSource hono/jsx */
// /settings/agents: how to connect an AI agent to the agent endpoint (its URL, OAuth for desktop
// assistants, a team token for the rest), and the OAuth grants on the current team, each revocable at
// once (docs/decisions.md D45): an owner or admin sees and revokes every member's, a viewer their own (D154).
import { type Context, Hono } from "hono";
import type { FC } from "hono/jsx";
import type { AppEnv } from "../context";
import { ApiError } from "../lib/errors";
import { type AgentGrantView, listAgentGrants, revokeAgentGrant } from "../services/agents/grants";
import { frameOf, siteOrigin } from "./frame";
import { checkCsrf, readForm, signedInOrRedirect } from "./guard";
import { CsrfField, type Frame, Layout, Notice } from "./layout";

const PATH = "/settings/agents";
const when = (d: Date | null) => (d ? d.toISOString().replace("T", " ").slice(0, 16) : "never");

function providerOf(c: Context<AppEnv>) {
  const oauth = c.env.OAUTH_PROVIDER;
  if (!oauth) throw new ApiError(404, "not_found", "Page not found.");
  return oauth;
}

const AgentsPage: FC<{ frame: Frame; grants: AgentGrantView[]; mcpUrl: string; revoked: boolean }> = ({ frame, grants, mcpUrl, revoked }) => {
  const everyone = frame.signedIn?.role !== "viewer";
  const desktop = JSON.stringify({ mcpServers: { emailauth: { url: mcpUrl } } }, null, 2);
  const tokenBased = JSON.stringify({ mcpServers: { emailauth: { url: mcpUrl, headers: { Authorization: "Bearer eam_..." } } } }, null, 2);
  return (
    <Layout title="Agents" frame={frame} active={PATH}>
      <h1>Agents</h1>
      {revoked && <Notice kind="ok">Access was revoked. The agent's tokens stop working at once.</Notice>}
      <section class="panel" aria-labelledby="connect">
        <h2 id="connect">Connect an agent</h2>
        <p>
          The agent endpoint speaks the Model Context Protocol at <code id="mcp-url">{mcpUrl}</code>. Agents work with the same team, plan and limits as the
          API: every tool call counts against the team's per-minute limit and monthly quota.
        </p>
        <h3>Desktop assistant (sign in with OAuth)</h3>
        <p>Add the endpoint as a remote MCP server; the assistant opens this site to ask which team and which access to allow.</p>
        <pre>{desktop}</pre>
        <h3>Token-based agent</h3>
        <p>
          Send a team token from <a href="/tokens">API tokens</a> as a bearer header. A read-only token may read and use the lookup tools only.
        </p>
        <pre>{tokenBased}</pre>
      </section>
      <section class="panel" aria-labelledby="grants">
        <h2 id="grants">
          {everyone ? "Agents allowed" : "Agents you allowed"} on {frame.signedIn?.teamName}
        </h2>
        <div class="table-wrap">
          <table class="stack">
            <thead>
              <tr>
                <th scope="col">App</th>
                <th scope="col">Access</th>
                <th scope="col">Allowed by</th>
                <th scope="col">Allowed</th>
                <th scope="col">Expires if unused</th>
                <th scope="col">
                  <span class="visually-hidden">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {grants.map((g) => (
                <tr>
                  <td>{g.clientName}</td>
                  <td>{g.scope === "full" ? "Full" : "Read-only"}</td>
                  <td class="grant-maker">{g.grantedBy}</td>
                  <td>{when(g.createdAt)}</td>
                  <td>{when(g.expiresAt)}</td>
                  <td>
                    <form
                      method="post"
                      action={`${PATH}/${encodeURIComponent(g.id)}/revoke`}
                      class="inline"
                      data-confirm={`Revoke access for ${g.clientName}?`}
                    >
                      <CsrfField csrf={frame.csrf} />
                      <button type="submit" class="danger" aria-label={`Revoke ${g.clientName}`}>
                        Revoke
                      </button>
                    </form>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
        {grants.length === 0 && <p class="muted">No agent has been allowed on this team yet.</p>}
      </section>
    </Layout>
  );
};

export function agentAccessPages() {
  const r = new Hono<AppEnv>();
  r.get(PATH, async (c) => {
    const s = signedInOrRedirect(c);
    if (s instanceof Response) return s;
    const grants = await listAgentGrants(c.get("services"), providerOf(c), s);
    return c.html(<AgentsPage frame={await frameOf(c)} grants={grants} mcpUrl={`${siteOrigin(c)}/mcp`} revoked={c.req.query("revoked") === "1"} />);
  });
  r.post(`${PATH}/:grant/revoke`, async (c) => {
    const s = signedInOrRedirect(c);
    if (s instanceof Response) return s;
    const form = await readForm(c);
    checkCsrf(c, form.get("_csrf"));
    const grant = c.req.param("grant");
    if (!/^[0-9A-Za-z_-]{1,128}$/.test(grant)) throw new ApiError(404, "not_found", "Grant not found.");
    await revokeAgentGrant(c.get("services"), providerOf(c), s, grant);
    return c.redirect(`${PATH}?revoked=1`, 303);
  });
  return r;
}
