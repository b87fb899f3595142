// The one way to a team's webhook log object (docs/decisions.md D140): its name derives from the team's
// id alone, and the caller passes a team id it already holds, from an authenticated context or from a D1
// row it loaded (the event's team, the endpoint's team), so input never names an object. Also the floor
// of new delivery ids while D1 still holds legacy deliveries (D142). Does I/O (D1 for the floor).
import { sql } from "drizzle-orm";
import type { Services } from "../../services";

export const teamLog = (svc: Pick<Services, "env">, team: { id: number }) => svc.env.TEAM_WEBHOOKS.getByName(`team:${team.id}`);

/** How long an isolate trusts the floor it read while legacy_deliveries exists (the table only shrinks). */
const FLOOR_TTL_MS = 60_000;
let floor: { value: number; until: number } | null = null;

/**
 * The highest delivery id still in D1 (legacy_deliveries, or deliveries before migration 0010 ran): a new
 * delivery id stays above it, so a delivery moved later never collides (D142). Cached as 0 for good once
 * the table is gone.
 */
export async function deliveryIdFloor(svc: Pick<Services, "db">): Promise<number> {
  const now = Date.now();
  if (floor !== null && floor.until > now) return floor.value;
  const tables = await svc.db.all<{ name: string }>(sql`SELECT name FROM sqlite_master WHERE type = 'table' AND name IN ('legacy_deliveries', 'deliveries')`);
  const table = tables.some((t) => t.name === "legacy_deliveries") ? "legacy_deliveries" : tables[0]?.name;
  if (table === undefined) {
    floor = { value: 0, until: Number.POSITIVE_INFINITY };
    return 0;
  }
  const r = await svc.db.all<{ id: number | null }>(sql`SELECT MAX(id) AS id FROM ${sql.identifier(table)}`);
  const value = Number(r[0]?.id ?? 0);
  floor = { value, until: table === "legacy_deliveries" ? now + FLOOR_TTL_MS : now };
  return value;
}
