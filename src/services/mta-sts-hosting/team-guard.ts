// Deleting a team drops its hosted_mta_sts rows by cascade: the custom hostname and the id record would stay
// in the operator's zone serving nothing, with no `mode: none` first, while senders still hold the old policy
// (RFC 8461 §8.3). Like deleting one domain (domains/delete-domain.ts), it waits until hosting is removed.
// Does I/O (one D1 read).
import { eq } from "drizzle-orm";
import { hostedMtaSts } from "../../db/schema";
import { conflict } from "../../lib/errors";
import type { Services } from "../../services";

/** Throws 409 while any domain of the team has MTA-STS hosting on or retiring. */
export async function refuseWhileTeamHosts(svc: Services, teamId: number): Promise<void> {
  const hosted = await svc.db
    .select({ name: hostedMtaSts.domainName, state: hostedMtaSts.state, safeToRemoveAt: hostedMtaSts.safeToRemoveAt })
    .from(hostedMtaSts)
    .where(eq(hostedMtaSts.teamId, teamId))
    .get();
  if (!hosted) return;
  throw conflict(
    hosted.state === "active"
      ? `${hosted.name} has MTA-STS hosting on: turn it off first (senders are then told, RFC 8461 §8.3), and delete the team once the hosting is removed.`
      : `The MTA-STS policy of ${hosted.name} is being retired until ${hosted.safeToRemoveAt?.toISOString() ?? "its old max_age ran out"} (RFC 8461 §8.3); delete the team after that.`,
  );
}
