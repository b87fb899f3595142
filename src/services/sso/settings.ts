// A team's OpenID Connect single sign-on settings (docs/sso.md): the provider (issuer, client id,
// sealed secret, the endpoints its discovery document named), and enforcement and auto-join. Owners
// change them in the dashboard only; owners and admins (and full tokens) read them without the secret
// (docs/decisions.md D245). Every change is audited in its own batch. Does I/O (D1, DNS, HTTPS).
import { and, asc, eq, isNotNull, isNull, sql } from "drizzle-orm";
import type { ProviderEndpoints } from "../../core/sso/discovery";
import { sessions, ssoDomains, ssoLogins, teamSso } from "../../db/schema";
import { conflict, forbidden, validationFailed } from "../../lib/errors";
import type { Services } from "../../services";
import type { SignedIn } from "../accounts/sessions";
import { audit } from "../audit-when";
import { commit } from "../commit";
import { requireWrite, type ServiceContext } from "../context";
import { verificationRecord } from "../domains/views";
import { discoverProvider } from "./provider";
import { sealClientSecret } from "./secret";

export type SsoRow = typeof teamSso.$inferSelect;
export type SsoDomainRow = typeof ssoDomains.$inferSelect;

export const MAX_ISSUER_LENGTH = 500;
export const MAX_CLIENT_ID_LENGTH = 255;
export const MAX_CLIENT_SECRET_LENGTH = 1000;

/** Only the owner changes how the team's people sign in (D245): a compromised admin or token must not redirect it. */
export function requireSsoOwner(signedIn: Pick<SignedIn, "role" | "ctx">): void {
  requireWrite(signedIn.ctx);
  if (signedIn.role !== "owner") throw forbidden("Only the team owner changes single sign-on.");
}

/** Reading the settings is for owners and admins (full scope); viewers and read-only tokens are refused. */
function requireSsoReader(ctx: ServiceContext): void {
  if (ctx.scope !== "full") throw forbidden("Only the team's owner and admins see its single sign-on settings.");
}

export const endpointsOf = (row: Pick<SsoRow, "discovery">): ProviderEndpoints => JSON.parse(row.discovery) as ProviderEndpoints;

export interface SsoDomainView {
  domain: string;
  verified: boolean;
  verified_at: string | null;
  /** The TXT record that proves the team owns the domain (the same record as a monitored domain's). */
  txt: { host: string; type: "TXT"; value: string };
}

export interface SsoView {
  configured: boolean;
  issuer: string | null;
  client_id: string | null;
  has_client_secret: boolean;
  token_endpoint_auth: ProviderEndpoints["token_auth"] | null;
  authorization_endpoint: string | null;
  discovered_at: string | null;
  enforced: boolean;
  auto_join: boolean;
  domains: SsoDomainView[];
}

export const domainView = (d: SsoDomainRow): SsoDomainView => ({
  domain: d.domain,
  verified: d.verifiedAt !== null,
  verified_at: d.verifiedAt?.toISOString() ?? null,
  txt: verificationRecord({ name: d.domain, verificationToken: d.verificationToken }),
});

export async function loadSso(svc: Services, teamId: number): Promise<SsoRow | null> {
  return (await svc.db.query.teamSso.findFirst({ where: eq(teamSso.teamId, teamId) })) ?? null;
}

export async function listSsoDomains(svc: Services, teamId: number): Promise<SsoDomainRow[]> {
  return svc.db.select().from(ssoDomains).where(eq(ssoDomains.teamId, teamId)).orderBy(asc(ssoDomains.domain));
}

/** The team's verified covered domains (lower case). */
export async function verifiedSsoDomains(svc: Services, teamId: number): Promise<string[]> {
  const rows = await svc.db
    .select({ domain: ssoDomains.domain })
    .from(ssoDomains)
    .where(and(eq(ssoDomains.teamId, teamId), isNotNull(ssoDomains.verifiedAt)));
  return rows.map((r) => r.domain);
}

export async function getSso(svc: Services, ctx: ServiceContext): Promise<SsoView> {
  requireSsoReader(ctx);
  const [row, domains] = await Promise.all([loadSso(svc, ctx.teamId), listSsoDomains(svc, ctx.teamId)]);
  const endpoints = row ? endpointsOf(row) : null;
  return {
    configured: row !== null,
    issuer: row?.issuer ?? null,
    client_id: row?.clientId ?? null,
    has_client_secret: Boolean(row?.clientSecretEnc),
    token_endpoint_auth: endpoints?.token_auth ?? null,
    authorization_endpoint: endpoints?.authorization_endpoint ?? null,
    discovered_at: row?.discoveredAt.toISOString() ?? null,
    enforced: row?.enforced ?? false,
    auto_join: row?.autoJoin ?? false,
    domains: domains.map(domainView),
  };
}

export interface ConfigureSsoInput {
  issuer: string;
  client_id: string;
  /** Blank keeps the stored secret (it is never shown again). */
  client_secret?: string | null;
}

/** Saves the provider after reading its discovery document; the secret is sealed before it is stored. */
export async function configureSso(svc: Services, signedIn: Pick<SignedIn, "role" | "ctx">, input: ConfigureSsoInput): Promise<SsoView> {
  requireSsoOwner(signedIn);
  const { teamId } = signedIn.ctx;
  const issuer = input.issuer.trim();
  const clientId = input.client_id.trim();
  const secret = input.client_secret?.trim() ?? "";
  const fields: Record<string, string[]> = {};
  if (issuer === "" || issuer.length > MAX_ISSUER_LENGTH) fields.issuer = [`Enter the provider's issuer URL (at most ${MAX_ISSUER_LENGTH} characters).`];
  if (clientId === "" || clientId.length > MAX_CLIENT_ID_LENGTH) fields.client_id = [`Enter the client id (at most ${MAX_CLIENT_ID_LENGTH} characters).`];
  if (secret.length > MAX_CLIENT_SECRET_LENGTH) fields.client_secret = [`At most ${MAX_CLIENT_SECRET_LENGTH} characters.`];
  const existing = await loadSso(svc, teamId);
  if (secret === "" && !existing?.clientSecretEnc) fields.client_secret = ["Enter the client secret the provider issued."];
  // The stored secret is never shown again, so it goes only to the provider it was entered for: kept for
  // another issuer, the next sign-in would send it to that issuer's token endpoint (docs/decisions.md D269).
  else if (secret === "" && existing && existing.issuer !== issuer) {
    fields.client_secret = ["Enter the client secret again: the issuer changed, and a stored secret is only sent to the provider it was entered for."];
  }
  if (Object.keys(fields).length > 0) throw validationFailed(fields);

  const endpoints = await discoverProvider(svc, issuer);
  const sealed = secret === "" ? (existing?.clientSecretEnc ?? null) : await sealClientSecret(svc, secret, teamId);
  const now = svc.clock.now();
  const values = { issuer, clientId, clientSecretEnc: sealed, discovery: JSON.stringify(endpoints), discoveredAt: now, updatedAt: now };
  await commit(svc, [
    svc.db
      .insert(teamSso)
      .values({ teamId, ...values, createdAt: now })
      .onConflictDoUpdate({ target: teamSso.teamId, set: values }),
    audit(svc, signedIn.ctx, {
      verb: "sso.configure",
      target: { type: "sso", id: teamId },
      summary: `issuer=${issuer} client_id=${clientId} client_secret=${secret === "" ? "kept" : "replaced"} token_auth=${endpoints.token_auth}`,
    }),
  ]);
  return getSso(svc, signedIn.ctx);
}

export interface SsoOptionsInput {
  enforced: boolean;
  auto_join: boolean;
}

/**
 * Turns enforcement and auto-join on or off. Enforcement needs a provider and at least one verified
 * domain; the owner is never locked out: their own email link keeps working (D247).
 */
export async function setSsoOptions(svc: Services, signedIn: Pick<SignedIn, "role" | "ctx">, input: SsoOptionsInput): Promise<SsoView> {
  requireSsoOwner(signedIn);
  const { teamId } = signedIn.ctx;
  const row = await loadSso(svc, teamId);
  if (!row) throw conflict("Configure the OpenID provider first.");
  if (input.enforced && (await verifiedSsoDomains(svc, teamId)).length === 0) {
    throw conflict("Verify at least one email domain before enforcing single sign-on.");
  }
  const now = svc.clock.now();
  const turningOn = input.enforced && !row.enforced;
  await commit(svc, [
    svc.db.update(teamSso).set({ enforced: input.enforced, autoJoin: input.auto_join, updatedAt: now }).where(eq(teamSso.teamId, teamId)),
    ...(turningOn ? [endCoveredSessions(svc, teamId, now)] : []),
    audit(svc, signedIn.ctx, {
      verb: "sso.enforce",
      target: { type: "sso", id: teamId },
      summary: `enforced=${input.enforced ? "on" : "off"} auto_join=${input.auto_join ? "on" : "off"} (was enforced=${row.enforced ? "on" : "off"} auto_join=${row.autoJoin ? "on" : "off"})${turningOn ? "; covered sessions ended" : ""}`,
    }),
  ]);
  return getSso(svc, signedIn.ctx);
}

/**
 * When enforcement turns on: the open sessions of this team's members whose address is in a verified
 * domain end, except the owner's (who keeps an email link, D247). A session opened by an email link
 * before would otherwise keep someone in for up to 30 days whom the provider no longer lets in; the
 * provider signs them in again (docs/decisions.md D270 addendum). Addresses have exactly one "@".
 */
function endCoveredSessions(svc: Services, teamId: number, now: Date) {
  return svc.db
    .update(sessions)
    .set({ revokedAt: now })
    .where(
      and(
        isNull(sessions.revokedAt),
        sql`${sessions.userId} IN (SELECT u.id FROM users u JOIN memberships m ON m.user_id = u.id AND m.team_id = ${teamId}
          JOIN teams t ON t.id = m.team_id
          WHERE lower(u.email) <> lower(t.owner_email)
            AND substr(u.email, instr(u.email, '@') + 1) IN (SELECT domain FROM sso_domains WHERE team_id = ${teamId} AND verified_at IS NOT NULL))`,
      ),
    );
}

/**
 * Removes single sign-on from the team: the provider, its sealed secret, the covered domains (freeing them
 * for another team) and any sign-in in flight. Email links work again for everyone at once.
 */
export async function removeSso(svc: Services, signedIn: Pick<SignedIn, "role" | "ctx">): Promise<void> {
  requireSsoOwner(signedIn);
  const { teamId } = signedIn.ctx;
  const row = await loadSso(svc, teamId);
  const domains = await listSsoDomains(svc, teamId);
  if (!row && domains.length === 0) return;
  await commit(svc, [
    svc.db.delete(teamSso).where(eq(teamSso.teamId, teamId)),
    svc.db.delete(ssoDomains).where(eq(ssoDomains.teamId, teamId)),
    svc.db.delete(ssoLogins).where(eq(ssoLogins.teamId, teamId)),
    audit(svc, signedIn.ctx, {
      verb: "sso.remove",
      target: { type: "sso", id: teamId },
      summary: `issuer=${row?.issuer ?? "none"} domains=${domains.map((d) => d.domain).join(",") || "none"} was_enforced=${row?.enforced ? "yes" : "no"}`,
    }),
  ]);
}
