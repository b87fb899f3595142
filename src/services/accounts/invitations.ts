// Inviting a person to the signed-in owner's team, by the same one-time link as sign-in. Does I/O (D1, email).
import { and, eq } from "drizzle-orm";
import { type MemberRole, memberships, users } from "../../db/schema";
import { ApiError, forbidden } from "../../lib/errors";
import type { Services } from "../../services";
import { audit } from "../audit-when";
import { mailInvitation, normalizeEmail } from "./links";
import type { SignedIn } from "./sessions";

export async function inviteMember(
  svc: Services,
  signedIn: SignedIn,
  input: { email: string; role: MemberRole; origin: string; client: string },
): Promise<void> {
  if (signedIn.role !== "owner") throw forbidden("Only the team owner invites members.");
  const email = normalizeEmail(input.email);
  if (!email) throw new ApiError(422, "validation_failed", "Enter a valid email address.", { email: ["Enter a valid email address."] });
  if (input.role === "owner")
    throw new ApiError(422, "validation_failed", "Invite as admin or viewer; hand over ownership once they have joined.", {
      role: ["Must be admin or viewer."],
    });
  const [existing] = await svc.db
    .select({ userId: users.id })
    .from(users)
    .innerJoin(memberships, and(eq(memberships.userId, users.id), eq(memberships.teamId, signedIn.teamId)))
    .where(eq(users.email, email))
    .limit(1);
  if (existing) throw new ApiError(409, "conflict", `${email} is already a member of this team.`);
  await mailInvitation(
    svc,
    {
      email,
      teamId: signedIn.teamId,
      teamName: signedIn.teamName,
      role: input.role,
      invitedBy: signedIn.user.id,
      inviterEmail: signedIn.user.email,
      origin: input.origin,
      client: input.client,
    },
    audit(svc, signedIn.ctx, { verb: "member.invite", target: { type: "member", id: email }, summary: `${email} invited as ${input.role}` }),
  );
}
