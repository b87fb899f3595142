// Fetch-or-throw for a domain in the caller's team: another team's id is a 404, never a 403. Does I/O (D1).
import { and, eq } from "drizzle-orm";
import { domains } from "../../db/schema";
import { notFound } from "../../lib/errors";
import type { Services } from "../../services";

export type DomainRow = typeof domains.$inferSelect;

export async function getDomainInTeam(svc: Services, teamId: number, domainId: number): Promise<DomainRow> {
  const row = await svc.db.query.domains.findFirst({ where: and(eq(domains.id, domainId), eq(domains.teamId, teamId)) });
  if (!row) throw notFound("Domain");
  return row;
}
