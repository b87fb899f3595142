/** @jsxImportSource hono/jsx */
// The current team: plan, members and their roles, invitations, leaving, deleting (owner only), and
// switching or creating teams. Every change goes through a verb of services/accounts. Removing a member
// or making an admin a viewer first shows what it revokes (docs/decisions.md D152).
import { type Context, Hono } from "hono";
import type { AppEnv } from "../context";
import { MEMBER_ROLES, type MemberRole } from "../db/schema";
import { PLAN_LIMITS } from "../lib/plans";
import { ApiError, notFound } from "../lib/errors";
import { inviteMember } from "../services/accounts/invitations";
import {
  cancelInvitation,
  changeRole,
  createOwnedTeam,
  deleteTeam,
  leaveTeam,
  listMembers,
  listPendingInvitations,
  memberCredentialsPreview,
  removeMember,
  teamOverview,
} from "../services/accounts/members";
import { switchTeam } from "../services/accounts/sessions";
import { clientOf } from "../middleware/failure-gate";
import { checkCsrf, readForm, signedInOrRedirect } from "./guard";
import { frameOf, siteOrigin } from "./frame";
import { CsrfField, Layout, Notice } from "./layout";
import { MemberConfirmPage } from "./member-confirm";
import { idParam } from "./params";

const NOTICES: Record<string, string> = {
  invited: "Invitation sent. The link works once and expires in 15 minutes.",
  role: "Role changed.",
  removed: "Member removed.",
  cancelled: "Invitation cancelled.",
  created: "Team created. You are its owner.",
};

const roleOf = (v: string | null): MemberRole => {
  if (v && (MEMBER_ROLES as readonly string[]).includes(v)) return v as MemberRole;
  throw new ApiError(422, "validation_failed", "Choose owner, admin or viewer.", { role: ["Must be owner, admin or viewer."] });
};

export function teamPages() {
  const r = new Hono<AppEnv>();

  r.get("/team", async (c) => {
    const s = signedInOrRedirect(c);
    if (s instanceof Response) return s;
    const svc = c.get("services");
    const [team, members, invites] = await Promise.all([teamOverview(svc, s), listMembers(svc, s), listPendingInvitations(svc, s)]);
    const frame = await frameOf(c);
    const owner = s.role === "owner";
    const limits = PLAN_LIMITS[team.plan];
    const notice = NOTICES[c.req.query("done") ?? ""];
    return c.html(
      <Layout title="Team" frame={frame} active="/team">
        <h1>{team.name}</h1>
        {notice && <Notice kind="ok">{notice}</Notice>}
        <section class="panel" aria-labelledby="plan">
          <h2 id="plan">Plan</h2>
          <p>
            <span class="badge">{team.plan}</span> {limits.requests_per_minute} requests a minute, {limits.requests_per_month.toLocaleString("en")} a month,{" "}
            {limits.domains} domains, {limits.webhook_endpoints} webhook endpoints. Owner notices go to <strong>{team.ownerEmail}</strong>.
          </p>
          <p class="small muted">Your role: {s.role}. Owners manage members; admins manage everything else; viewers read.</p>
        </section>
        <section class="panel" aria-labelledby="members">
          <h2 id="members">Members</h2>
          <div class="table-wrap">
            <table class="stack">
              <thead>
                <tr>
                  <th scope="col">Email</th>
                  <th scope="col">Role</th>
                  {owner && <th scope="col">Actions</th>}
                </tr>
              </thead>
              <tbody>
                {members.map((m) => (
                  <tr>
                    <td>{m.email}</td>
                    <td>{m.role}</td>
                    {owner && (
                      <td>
                        {m.userId !== s.user.id && (
                          <>
                            <form method="post" action={`/team/members/${m.userId}/role`} class="inline">
                              <CsrfField csrf={frame.csrf} />
                              <label class="inline-label" for={`role-${m.userId}`}>
                                Role for {m.email}
                              </label>
                              <select id={`role-${m.userId}`} name="role">
                                {MEMBER_ROLES.map((role) => (
                                  <option value={role} selected={role === m.role}>
                                    {role === "owner" ? "owner (hand over)" : role}
                                  </option>
                                ))}
                              </select>{" "}
                              <button type="submit" class="secondary">
                                Change
                              </button>
                            </form>{" "}
                            <form method="get" action={`/team/members/${m.userId}/remove`} class="inline">
                              <button type="submit" class="danger" aria-label={`Remove ${m.email}`}>
                                Remove
                              </button>
                            </form>
                          </>
                        )}
                      </td>
                    )}
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        </section>
        {owner && (
          <section class="panel" aria-labelledby="invite">
            <h2 id="invite">Invite someone</h2>
            <form method="post" action="/team/invite">
              <CsrfField csrf={frame.csrf} />
              <div class="row">
                <div>
                  <label for="invite-email">Email address</label>
                  <input id="invite-email" name="email" type="email" required maxlength={254} />
                </div>
                <div>
                  <label for="invite-role">Role</label>
                  <select id="invite-role" name="role">
                    <option value="viewer">viewer (read-only)</option>
                    <option value="admin">admin</option>
                  </select>
                </div>
                <div>
                  <button type="submit">Send invitation</button>
                </div>
              </div>
            </form>
            {invites.length > 0 && (
              <>
                <h3>Pending invitations</h3>
                <ul>
                  {invites.map((i) => (
                    <li>
                      {i.email} as {i.role}, until {i.expiresAt.toISOString().slice(11, 16)} UTC{" "}
                      <form method="post" action={`/team/invitations/${i.id}/cancel`} class="inline">
                        <CsrfField csrf={frame.csrf} />
                        <button type="submit" class="link">
                          cancel
                        </button>
                      </form>
                    </li>
                  ))}
                </ul>
              </>
            )}
          </section>
        )}
        <section class="panel" aria-labelledby="your-teams">
          <h2 id="your-teams">Your teams</h2>
          <form method="post" action="/teams">
            <CsrfField csrf={frame.csrf} />
            <div class="row">
              <div>
                <label for="new-team">New team name</label>
                <input id="new-team" name="name" type="text" required maxlength={100} />
              </div>
              <div>
                <button type="submit" class="secondary">
                  Create a team
                </button>
              </div>
            </div>
          </form>
          {!owner && (
            <form method="post" action="/team/leave" data-confirm="Leave this team?">
              <CsrfField csrf={frame.csrf} />
              <p>
                <button type="submit" class="danger">
                  Leave {team.name}
                </button>
              </p>
            </form>
          )}
          <form method="post" action="/sign-out/everywhere" data-confirm="Sign out on every device?">
            <CsrfField csrf={frame.csrf} />
            <p>
              <button type="submit" class="secondary">
                Sign out everywhere
              </button>
            </p>
          </form>
        </section>
        {owner && (
          <section class="panel" aria-labelledby="danger">
            <h2 id="danger">Delete this team</h2>
            <p>Deletes every domain, report, token and webhook of the team. This cannot be undone.</p>
            <form method="post" action="/team/delete">
              <CsrfField csrf={frame.csrf} />
              <label for="confirm-name">Type the team's name to confirm</label>
              <input id="confirm-name" name="confirm" type="text" required />
              <p>
                <button type="submit" class="danger">
                  Delete team
                </button>
              </p>
            </form>
          </section>
        )}
      </Layout>,
    );
  });

  const post = (path: string, act: (c: Context<AppEnv>, form: URLSearchParams) => Promise<Response>) =>
    r.post(path, async (c) => {
      const s = signedInOrRedirect(c);
      if (s instanceof Response) return s;
      const form = await readForm(c);
      checkCsrf(c, form.get("_csrf"));
      return act(c, form);
    });

  post("/team/invite", async (c, form) => {
    const s = c.get("signedIn");
    if (!s) throw notFound("Page");
    await inviteMember(c.get("services"), s, { email: form.get("email") ?? "", role: roleOf(form.get("role")), origin: siteOrigin(c), client: clientOf(c) });
    return c.redirect("/team?done=invited", 303);
  });
  // What removing a member revokes, before the owner confirms (the form posts to the route below).
  r.get("/team/members/:user/remove", async (c) => {
    const s = signedInOrRedirect(c);
    if (s instanceof Response) return s;
    const userId = idParam(c.req.param("user"));
    const preview = await memberCredentialsPreview(c.get("services"), s, userId);
    return c.html(<MemberConfirmPage frame={await frameOf(c)} action="remove" userId={userId} email={preview.email} credentials={preview.credentials} />);
  });
  post("/team/members/:user/role", async (c, form) => {
    const s = c.get("signedIn");
    if (!s) throw notFound("Page");
    const svc = c.get("services");
    const userId = idParam(c.req.param("user"));
    const role = roleOf(form.get("role"));
    if (role === "viewer" && form.get("confirmed") !== "yes") {
      // Making an admin a viewer revokes what they made: the owner sees how much first.
      const preview = await memberCredentialsPreview(svc, s, userId);
      if (preview.role !== "viewer") {
        return c.html(<MemberConfirmPage frame={await frameOf(c)} action="demote" userId={userId} email={preview.email} credentials={preview.credentials} />);
      }
    }
    await changeRole(svc, s, userId, role);
    return c.redirect("/team?done=role", 303);
  });
  post("/team/members/:user/remove", async (c) => {
    const s = c.get("signedIn");
    if (!s) throw notFound("Page");
    await removeMember(c.get("services"), s, idParam(c.req.param("user")));
    return c.redirect("/team?done=removed", 303);
  });
  post("/team/invitations/:id/cancel", async (c) => {
    const s = c.get("signedIn");
    if (!s) throw notFound("Page");
    await cancelInvitation(c.get("services"), s, idParam(c.req.param("id")));
    return c.redirect("/team?done=cancelled", 303);
  });
  post("/team/leave", async (c) => {
    const s = c.get("signedIn");
    if (!s) throw notFound("Page");
    await leaveTeam(c.get("services"), s);
    return c.redirect("/dashboard", 303);
  });
  post("/team/delete", async (c, form) => {
    const s = c.get("signedIn");
    if (!s) throw notFound("Page");
    await deleteTeam(c.get("services"), s, form.get("confirm") ?? "");
    return c.redirect("/dashboard", 303);
  });
  post("/teams", async (c, form) => {
    const s = c.get("signedIn");
    if (!s) throw notFound("Page");
    const name = (form.get("name") ?? "").trim();
    if (name.length < 1 || name.length > 100) throw new ApiError(422, "validation_failed", "Give the team a name of 1 to 100 characters.");
    const svc = c.get("services");
    const teamId = await createOwnedTeam(svc, s.user.id, s.user.email, name, s.ctx.origin);
    await switchTeam(svc, s, teamId);
    return c.redirect("/team?done=created", 303);
  });
  post("/teams/switch", async (c, form) => {
    const s = c.get("signedIn");
    if (!s) throw notFound("Page");
    if (!(await switchTeam(c.get("services"), s, idParam(form.get("team_id") ?? undefined)))) throw notFound("Team");
    return c.redirect("/dashboard", 303);
  });
  return r;
}
