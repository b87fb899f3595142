// Reading a team's audit entries straight from D1 for the audit wiring tests (test/services/audit-wiring*.test.ts,
// test/routes/audit-wiring*.test.ts): the rows as stored, in seq order.
import { env } from "cloudflare:workers";

export interface EntryRow {
  seq: number;
  at: number;
  actor_kind: string;
  actor_id: string;
  actor_label: string;
  face: string;
  verb: string;
  target_type: string | null;
  target_id: string | null;
  summary: string;
  ip: string | null;
  user_agent: string | null;
  hash: string | null;
}

/** A team's entries, oldest first; only one verb's when given. */
export async function entriesOf(teamId: number, verb?: string): Promise<EntryRow[]> {
  const q = verb
    ? env.DB.prepare("SELECT * FROM audit_entries WHERE team_id = ? AND verb = ? ORDER BY seq").bind(teamId, verb)
    : env.DB.prepare("SELECT * FROM audit_entries WHERE team_id = ? ORDER BY seq").bind(teamId);
  return (await q.all<EntryRow>()).results;
}
