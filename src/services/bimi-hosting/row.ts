// The hosted BIMI row of a domain and selector, read within the caller's team, and the rules on the
// selector and the domain that every verb shares. Does I/O (D1).
import { and, eq } from "drizzle-orm";
import { hostedBimi } from "../../db/schema";
import { conflict, notFound, validationFailed } from "../../lib/errors";
import type { Services } from "../../services";
import type { ServiceContext } from "../context";
import { type DomainRow, getDomainInTeam } from "../domains/get-domain";

export type HostedBimiRow = typeof hostedBimi.$inferSelect;

/** The selector receivers ask for when a message names none (BIMI draft §4.2: "default"). */
export const DEFAULT_SELECTOR = "default";

// A selector is one or more DNS labels (BIMI draft §4.2, the `selector` ABNF is a sub-domain): it becomes
// `<selector>._bimi.<domain>` and a file name in the served URL, so letters, digits and inner hyphens only.
const LABEL = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;
const SELECTOR_MAX = 63;

/** The selector lower-cased, or a 422 naming the rule. */
export function normalizeSelector(input: string | undefined | null): string {
  const s = (input ?? DEFAULT_SELECTOR).trim().toLowerCase();
  if (s.length === 0 || s.length > SELECTOR_MAX || !s.split(".").every((l) => LABEL.test(l)))
    throw validationFailed({ selector: [`must be DNS labels of letters, digits and inner hyphens, at most ${SELECTOR_MAX} characters`] });
  return s;
}

/** The domain in the caller's team (404 otherwise), verified before anything is hosted for it (409). */
export async function hostableDomain(svc: Services, ctx: ServiceContext, domainId: number): Promise<DomainRow> {
  const domain = await getDomainInTeam(svc, ctx.teamId, domainId);
  if (!domain.verified) throw conflict("Verify the domain's ownership record before hosting its BIMI logo.", "domain_not_verified");
  return domain;
}

export async function findHosted(svc: Services, teamId: number, domainId: number, selector: string): Promise<HostedBimiRow | undefined> {
  return svc.db
    .select()
    .from(hostedBimi)
    .where(and(eq(hostedBimi.teamId, teamId), eq(hostedBimi.domainId, domainId), eq(hostedBimi.selector, selector)))
    .get();
}

/** One team serves a (name, selector): another team's row for the same name is a 409, never a takeover. */
export async function assertNameFree(svc: Services, domain: DomainRow, selector: string): Promise<void> {
  const other = await svc.db
    .select({ teamId: hostedBimi.teamId, domainId: hostedBimi.domainId })
    .from(hostedBimi)
    .where(and(eq(hostedBimi.domainName, domain.name), eq(hostedBimi.selector, selector)))
    .get();
  if (other && other.domainId !== domain.id) throw nameTaken(domain.name, selector);
}

export const nameTaken = (name: string, selector: string) => conflict(`Another team already hosts the BIMI logo of ${name} (selector ${selector}).`);

/** D1 reports the unique index as a constraint failure: the race between two teams' first uploads. */
export const isUniqueViolation = (e: unknown) => String(e instanceof Error ? (e.cause ?? e.message) : e).includes("UNIQUE constraint failed");

export async function requireHosted(svc: Services, teamId: number, domainId: number, selector: string): Promise<HostedBimiRow> {
  const row = await findHosted(svc, teamId, domainId, selector);
  if (!row) throw notFound("Hosted BIMI logo");
  return row;
}
