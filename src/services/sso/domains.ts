// The email domains a team's provider covers. Each is proven with the same TXT record as a monitored
// domain (_emailauth-verify.<domain> "emailauth-verify=<token>", src/services/domains/verify-domain.ts),
// and a domain is verified for one team at a time: two teams cannot both decide how its people sign in
// (docs/decisions.md D248). Owner only, audited. Does I/O (D1, DNS).
import { and, eq, sql } from "drizzle-orm";
import { normalizeDomainName } from "../../core/dns/names";
import { ssoDomains } from "../../db/schema";
import { randomBase62 } from "../../lib/crypto";
import { conflict, dependencyUnavailable, notFound, validationFailed } from "../../lib/errors";
import type { Services } from "../../services";
import type { SignedIn } from "../accounts/sessions";
import { audit, auditWhen } from "../audit-when";
import { commit } from "../commit";
import { verificationRecord } from "../domains/views";
import { domainView, requireSsoOwner, type SsoDomainView } from "./settings";

/** Covered domains a team may list (docs/limits.md). */
export const MAX_SSO_DOMAINS = 20;

type Owner = Pick<SignedIn, "role" | "ctx">;

async function findDomain(svc: Services, teamId: number, domain: string) {
  const name = normalizeDomainName(domain);
  if (!name.ok) throw notFound("Domain");
  const row = await svc.db.query.ssoDomains.findFirst({ where: and(eq(ssoDomains.teamId, teamId), eq(ssoDomains.domain, name.value)) });
  if (!row) throw notFound("Domain");
  return row;
}

export async function addSsoDomain(svc: Services, owner: Owner, input: { domain: string }): Promise<SsoDomainView> {
  requireSsoOwner(owner);
  const { teamId } = owner.ctx;
  const name = normalizeDomainName(input.domain);
  if (!name.ok) throw validationFailed({ domain: [name.error] });
  const existing = await svc.db.select({ domain: ssoDomains.domain }).from(ssoDomains).where(eq(ssoDomains.teamId, teamId));
  if (existing.some((d) => d.domain === name.value)) throw conflict(`${name.value} is already listed.`);
  if (existing.length >= MAX_SSO_DOMAINS) throw conflict(`A team may list at most ${MAX_SSO_DOMAINS} single sign-on domains.`);
  const now = svc.clock.now();
  const values = { teamId, domain: name.value, verificationToken: randomBase62(32), verifiedAt: null, createdAt: now };
  try {
    await commit(svc, [
      svc.db.insert(ssoDomains).values(values),
      audit(svc, owner.ctx, { verb: "sso.domain_add", target: { type: "sso_domain", id: values.domain }, summary: `domain=${values.domain}` }),
    ]);
  } catch (e) {
    // Two adds of the same name at once: the primary key refuses the second, and its batch (audit entry included) rolls back.
    if (/UNIQUE constraint failed/.test(String(e instanceof Error ? `${e.message} ${String(e.cause)}` : e)))
      throw conflict(`${values.domain} is already listed.`);
    throw e;
  }
  return domainView(values);
}

export interface SsoVerifyOutcome {
  verified: boolean;
  domain: SsoDomainView;
  reason: string;
}

/** Looks up the ownership TXT record now; on a match marks the domain verified for this team. */
export async function verifySsoDomain(svc: Services, owner: Owner, domain: string): Promise<SsoVerifyOutcome> {
  requireSsoOwner(owner);
  const { teamId } = owner.ctx;
  const row = await findDomain(svc, teamId, domain);
  if (row.verifiedAt) return { verified: true, domain: domainView(row), reason: "already verified" };
  const expected = verificationRecord({ name: row.domain, verificationToken: row.verificationToken });
  const answer = await svc.createResolver().query(expected.host, "TXT");
  // A temperror is "unknown", never "not found" (as for monitored domains).
  if (answer.kind === "temperror") throw dependencyUnavailable();
  const texts = answer.kind === "records" ? answer.records.map((t) => t.trim()) : [];
  if (!texts.includes(expected.value)) {
    const reason = texts.length === 0 ? `no TXT record at ${expected.host}` : `TXT record at ${expected.host} does not contain ${expected.value}`;
    return { verified: false, domain: domainView(row), reason };
  }
  const taken = await svc.db.run(sql`SELECT 1 FROM sso_domains WHERE domain = ${row.domain} AND team_id <> ${teamId} AND verified_at IS NOT NULL LIMIT 1`);
  if (taken.results.length > 0) throw conflict(`${row.domain} is already verified for single sign-on by another team.`);
  const now = svc.clock.now();
  // One statement decides: verified here only if no other team holds the domain verified (D248).
  const [updated] = await commit(svc, [
    svc.db
      .update(ssoDomains)
      .set({ verifiedAt: now })
      .where(
        and(
          eq(ssoDomains.teamId, teamId),
          eq(ssoDomains.domain, row.domain),
          sql`${ssoDomains.verifiedAt} IS NULL`,
          sql`NOT EXISTS (SELECT 1 FROM sso_domains other WHERE other.domain = ${row.domain} AND other.team_id <> ${teamId} AND other.verified_at IS NOT NULL)`,
        ),
      )
      .returning(),
    // Recorded only when the update above happened: a request that lost the race leaves no entry.
    auditWhen(
      svc,
      owner.ctx,
      { verb: "sso.domain_verify", target: { type: "sso_domain", id: row.domain }, summary: `domain=${row.domain}` },
      { when: sql`changes() > 0` },
    ),
  ]);
  const done = updated[0];
  if (!done) {
    // Another team verified it between the check above and this batch.
    throw conflict(`${row.domain} is already verified for single sign-on by another team.`);
  }
  return { verified: true, domain: domainView(done), reason: "ownership record found" };
}

export async function removeSsoDomain(svc: Services, owner: Owner, domain: string): Promise<void> {
  requireSsoOwner(owner);
  const { teamId } = owner.ctx;
  const row = await findDomain(svc, teamId, domain);
  await commit(svc, [
    svc.db.delete(ssoDomains).where(and(eq(ssoDomains.teamId, teamId), eq(ssoDomains.domain, row.domain))),
    audit(svc, owner.ctx, {
      verb: "sso.domain_remove",
      target: { type: "sso_domain", id: row.domain },
      summary: `domain=${row.domain} was_verified=${row.verifiedAt ? "yes" : "no"}`,
    }),
  ]);
}
