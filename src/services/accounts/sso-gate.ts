// Single sign-on enforcement as the email-link sign-in sees it (docs/decisions.md D247): an address in
// a domain that a team verified for single sign-on, with enforcement on, gets no sign-in link; it signs
// in through the team's provider. The answer depends on the address's domain only (never on whether
// the address has an account), so the sign-in page reveals nothing the domain's own sign-in does not.
// The team's owner keeps the email link (so a broken provider cannot lock the team out). Does I/O (D1).
import { sql } from "drizzle-orm";
import type { Services } from "../../services";

export interface SsoGate {
  /** The provider's host, named on the page ("Your company signs you in through <host>"). */
  issuerHost: string;
  /** The address is the enforcing team's owner: the link is still mailed (the page looks the same). */
  ownerExempt: boolean;
}

const domainOf = (email: string) => email.slice(email.lastIndexOf("@") + 1).toLowerCase();

/** The enforcement that covers an address, or null when its domain signs in by email link. */
export async function ssoGateFor(svc: Services, email: string): Promise<SsoGate | null> {
  const rows = await svc.db.all<{ issuer: string; owner_email: string }>(sql`
    SELECT s.issuer AS issuer, t.owner_email AS owner_email
    FROM sso_domains d
    JOIN team_sso s ON s.team_id = d.team_id
    JOIN teams t ON t.id = d.team_id
    WHERE d.domain = ${domainOf(email)} AND d.verified_at IS NOT NULL AND s.enforced = 1
    LIMIT 1`);
  const row = rows[0];
  if (!row) return null;
  let issuerHost = row.issuer;
  try {
    issuerHost = new URL(row.issuer).host;
  } catch {
    // A stored issuer was checked as a URL when saved; keep the text if it ever is not.
  }
  return { issuerHost, ownerExempt: row.owner_email.toLowerCase() === email.toLowerCase() };
}

/** The refusal shown when a covered address tries an email link. */
export const ssoRequiredMessage = (issuerHost: string) => `Your company signs you in through ${issuerHost}: use Sign in with SSO.`;
