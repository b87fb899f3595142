// Adds a domain to a team: normalized name, random ownership and report tokens, domain.created in the same batch. Does I/O (D1).
import { and, eq, getTableColumns, sql } from "drizzle-orm";
import { normalizeDomainName } from "../../core/dns/names";
import { domains, teams } from "../../db/schema";
import { PLAN_LIMITS } from "../../lib/plans";
import { randomBase62 } from "../../lib/crypto";
import { conflict, notFound, validationFailed } from "../../lib/errors";
import type { Services } from "../../services";
import { buildConditionalEvent } from "../alerts/conditional-event";
import { auditWhen } from "../audit-when";
import { commit } from "../commit";
import type { DomainRow } from "./get-domain";
import { type ServiceContext, requireWrite } from "../context";

export interface CreateDomainInput {
  name: string;
  client_id?: number | null;
}

const isUniqueViolation = (e: unknown) =>
  /UNIQUE constraint failed: domains\.team_id, domains\.name/.test(String(e instanceof Error ? `${e.message} ${String(e.cause)}` : e));

export async function createDomain(svc: Services, ctx: ServiceContext, input: CreateDomainInput): Promise<DomainRow> {
  requireWrite(ctx);
  const { teamId } = ctx;
  const name = normalizeDomainName(input.name);
  if (!name.ok) throw validationFailed({ name: [name.error] });
  const exists = await svc.db
    .select({ id: domains.id })
    .from(domains)
    .where(and(eq(domains.teamId, teamId), eq(domains.name, name.value)))
    .get();
  if (exists) throw conflict(`${name.value} is already in this team.`);
  const team = await svc.db.select({ plan: teams.plan }).from(teams).where(eq(teams.id, teamId)).get();
  if (!team) throw notFound("Team");
  const limit = PLAN_LIMITS[team.plan].domains;

  const now = svc.clock.now();
  const values = {
    name: name.value,
    client: input.client_id == null ? null : String(input.client_id),
    verificationToken: randomBase62(32),
    reportToken: randomBase62(20).toLowerCase(),
  };
  // The allowance is checked inside the insert (INSERT ... SELECT ... WHERE count < limit), so concurrent
  // adds cannot pass them together. drizzle names every column of the schema in order; unset ones are NULL.
  const provided: Record<string, unknown> = {
    teamId,
    name: values.name,
    client: values.client,
    verified: 0,
    verificationToken: values.verificationToken,
    reportToken: values.reportToken,
    createdAt: now.getTime(),
  };
  const selectList = sql.join(
    Object.keys(getTableColumns(domains)).map((k) => (k in provided ? sql`${provided[k]}` : sql`NULL`)),
    sql`, `,
  );
  const insert = svc.db
    .insert(domains)
    .select(sql`SELECT ${selectList}
    WHERE (SELECT COUNT(*) FROM domains WHERE team_id = ${teamId}) < ${limit}`)
    .returning();
  // The event needs the new id: it selects the row within the same transaction.
  const event = buildConditionalEvent(svc.db, { type: "domain.created", teamId, domain: { id: 0, name: name.value }, data: {} }, now, {
    from: sql`domains`,
    where: sql`domains.team_id = ${teamId} AND domains.name = ${name.value}`,
    patch: { path: "$.data.domain.id", value: sql`domains.id` },
    domainId: sql`domains.id`,
  });
  let row: DomainRow | undefined;
  try {
    // The entry right after the insert, written only when it inserted (the allowance may have refused it).
    const entry = auditWhen(
      svc,
      ctx,
      { verb: "domain.create", target: { type: "domain", id: 0 }, summary: `added ${name.value}${values.client ? ` (client ${values.client})` : ""}` },
      { when: sql`changes() > 0`, targetId: sql`last_insert_rowid()` },
    );
    const [inserted] = await commit(svc, [insert, entry, event.statement], ([rows]) => (rows.length > 0 ? [event.id] : []));
    row = inserted[0];
  } catch (e) {
    if (isUniqueViolation(e)) throw conflict(`${name.value} is already in this team.`);
    throw e;
  }
  if (!row) throw conflict(`The plan allows ${limit} domains; delete one or upgrade the plan.`);
  return row;
}
