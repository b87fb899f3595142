// One factory per entity for tests that build data directly in D1 (the API-level ones are in api.ts:
// makeTeam, and monitoring.ts: addDomain). Unique values: storage is shared within a test file.
import { env } from "cloudflare:workers";
import { domains } from "../../src/db/schema";
import { randomBase62 } from "../../src/lib/crypto";
import { createServices } from "../../src/services";
import type { DomainRow } from "../../src/services/domains/get-domain";
import { unique } from "./api";

/** The report domain the tests run with (vitest.config.ts REPORT_DOMAIN). */
export const REPORT_DOMAIN = "reports.test";

export interface TestDomain extends DomainRow {
  /** The domain's DMARC report address. */
  address: string;
}

/** A domain row of a team, verified unless said otherwise, with its report address. */
export async function insertDomain(teamId: number, o: { name?: string; verified?: boolean } = {}): Promise<TestDomain> {
  const name = o.name ?? `${unique("d").toLowerCase()}.example`;
  const verified = o.verified ?? true;
  const [row] = await createServices(env)
    .db.insert(domains)
    .values({
      teamId,
      name,
      verified,
      verifiedAt: verified ? new Date() : null,
      verificationToken: randomBase62(24),
      reportToken: randomBase62(20).toLowerCase(),
    })
    .returning();
  if (!row) throw new Error("domain insert failed");
  return { ...row, address: `${row.reportToken}@${REPORT_DOMAIN}` };
}

/** A person who is a member of the team with the role given (no session: tests that need one sign in through the pages). */
export async function insertMember(teamId: number, role: "owner" | "admin" | "viewer" = "admin", email?: string): Promise<{ id: number; email: string }> {
  const address = (email ?? `${unique("member")}@example.com`).toLowerCase();
  const user = await env.DB.prepare("INSERT INTO users (email, created_at) VALUES (?, ?) RETURNING id").bind(address, Date.now()).first<{ id: number }>();
  if (!user) throw new Error("user insert failed");
  await env.DB.prepare("INSERT INTO memberships (team_id, user_id, role, created_at) VALUES (?, ?, ?, ?)").bind(teamId, user.id, role, Date.now()).run();
  return { id: user.id, email: address };
}
