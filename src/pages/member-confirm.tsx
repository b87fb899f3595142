/** @jsxImportSource hono/jsx */
// The owner's confirmation before removing a member or making an admin a viewer: it says how many API
// tokens and agent grants the member made for the team, because the change revokes them (docs/decisions.md D152).
import type { FC } from "hono/jsx";
import type { MemberCredentials } from "../services/credentials/member-credentials";
import { CsrfField, type Frame, Layout } from "./layout";

const counted = (n: number, one: string) => `${n} ${one}${n === 1 ? "" : "s"}`;

/** "This also revokes 3 API tokens and 1 agent grant they created." or that there is nothing to revoke. */
export function revocationSentence(c: MemberCredentials): string {
  if (c.tokens === 0 && c.grants === 0) return "They created no API tokens or agent grants on this team, so nothing else is revoked.";
  return `This also revokes ${counted(c.tokens, "API token")} and ${counted(c.grants, "agent grant")} they created.`;
}

export const MemberConfirmPage: FC<{
  frame: Frame;
  action: "remove" | "demote";
  userId: number;
  email: string;
  credentials: MemberCredentials;
}> = ({ frame, action, userId, email, credentials }) => {
  const title = action === "remove" ? `Remove ${email}?` : `Make ${email} a viewer?`;
  return (
    <Layout title={title} frame={frame} active="/team">
      <div class="panel narrow">
        <h1>{title}</h1>
        <p>
          {action === "remove"
            ? "They lose access to the team at once."
            : "They keep reading the team but can no longer change anything, make tokens or give agents full access."}
        </p>
        <p id="revokes">
          <strong>{revocationSentence(credentials)}</strong>
        </p>
        <form method="post" action={action === "remove" ? `/team/members/${userId}/remove` : `/team/members/${userId}/role`}>
          <CsrfField csrf={frame.csrf} />
          {action === "demote" && (
            <>
              <input type="hidden" name="role" value="viewer" />
              <input type="hidden" name="confirmed" value="yes" />
            </>
          )}
          <p>
            <button type="submit" class="danger">
              {action === "remove" ? "Remove" : "Make viewer"}
            </button>{" "}
            <a href="/team">Cancel</a>
          </p>
        </form>
      </div>
    </Layout>
  );
};
