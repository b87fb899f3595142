// One team's webhook log (docs/decisions.md D140): a SQLite-backed Durable Object per team holding the
// events fanned out to the team, their deliveries with each last attempt, and the endpoints' failure
// streaks. D1 keeps only the outbox. Reached only through services/webhooks/team-log.ts, for a team id
// the caller holds from an authenticated context or a D1 row (D140).
// Does I/O: its own SQLite storage (drizzle durable-sqlite, its own migrations), its alarm, and the
// deliveries queue (the alarm's retry sweep, D144).
import { DurableObject } from "cloudflare:workers";
import { drizzle } from "drizzle-orm/durable-sqlite";
import { migrate } from "drizzle-orm/durable-sqlite/migrator";
import type { DeliveryMessage } from "../../services/messages";
import { claim, recordOutcome, resetForRedeliver } from "./attempts";
import { rememberTeam, type TeamDb } from "./db";
import { counts, importLegacy } from "./legacy";
import * as log from "./log";
import { isEmpty, nextPurgeAt, nextSweepAt, purge, RETRY_GRACE_MS, sweepRetries } from "./maintenance";
import migrations from "./migrations";
import * as schema from "./schema";
import { changeStreak } from "./streaks";
import type {
  ClaimInput,
  ClaimResult,
  DeliveryListQuery,
  DeliveryRecord,
  FanOutInput,
  FanOutResult,
  LegacyDelivery,
  OutcomeInput,
  OutcomeResult,
  StreakSeed,
  StreakState,
  TestDeliveryInput,
} from "./types";

/** What the object needs of the Worker's bindings (not the whole Env: that module imports this one). */
interface TeamWebhooksEnv {
  DELIVERIES_QUEUE: Queue;
}

/** sendBatch takes at most 100 messages per call. */
const SEND_BATCH_MAX = 100;

export class TeamWebhooks extends DurableObject<TeamWebhooksEnv> {
  private readonly db: TeamDb;

  constructor(ctx: DurableObjectState, env: TeamWebhooksEnv) {
    super(ctx, env);
    this.db = drizzle(ctx.storage, { schema });
    // Every request waits for the object's schema to be current (migrations from empty on first use).
    void ctx.blockConcurrencyWhile(async () => {
      await migrate(this.db, migrations);
    });
  }

  private get kv(): SyncKvStorage {
    return this.ctx.storage.kv;
  }

  /** Fan-out of one outbox event (D141): the event, one delivery per endpoint, the ids still to send. */
  async fanOut(input: FanOutInput): Promise<FanOutResult> {
    const out = this.ctx.storage.transactionSync(() => {
      rememberTeam(this.kv, input.teamId);
      return log.fanOut(this.db, this.kv, input);
    });
    await this.ensureAlarm(out.pending.length > 0 ? input.nowMs : null);
    return out;
  }

  /** POST /webhooks/{id}/test: the webhook.test event and its one delivery. */
  async testDelivery(input: TestDeliveryInput): Promise<DeliveryRecord> {
    const out = this.ctx.storage.transactionSync(() => {
      rememberTeam(this.kv, input.teamId);
      return log.testDelivery(this.db, this.kv, input);
    });
    await this.ensureAlarm(input.nowMs);
    return out;
  }

  async claim(input: ClaimInput): Promise<ClaimResult> {
    const out = this.ctx.storage.transactionSync(() => {
      rememberTeam(this.kv, input.teamId);
      return claim(this.db, input);
    });
    // A claimed delivery is due again when its lease ends (a crashed attempt is re-sent after it).
    await this.ensureAlarm(out.kind === "claimed" ? out.row.nextRetryAt : null);
    return out;
  }

  /** The claims of one queue batch's deliveries of this team, in one transaction (one call instead of many). */
  async claimMany(inputs: ClaimInput[]): Promise<ClaimResult[]> {
    const out = this.ctx.storage.transactionSync(() => {
      if (inputs[0]) rememberTeam(this.kv, inputs[0].teamId);
      return inputs.map((input) => claim(this.db, input));
    });
    const leases = out.flatMap((r) => (r.kind === "claimed" && r.row.nextRetryAt !== null ? [r.row.nextRetryAt] : []));
    await this.ensureAlarm(leases.length > 0 ? Math.min(...leases) : null);
    return out;
  }

  async recordOutcome(input: OutcomeInput): Promise<OutcomeResult> {
    const out = this.ctx.storage.transactionSync(() => {
      rememberTeam(this.kv, input.teamId);
      return recordOutcome(this.db, input);
    });
    await this.ensureAlarm(out.row?.status === "pending" ? out.row.nextRetryAt : null);
    return out;
  }

  async resetForRedeliver(endpointId: number, deliveryId: number, nowMs: number) {
    const out = this.ctx.storage.transactionSync(() => resetForRedeliver(this.db, endpointId, deliveryId, nowMs));
    await this.ensureAlarm(out !== null && !out.busy ? nowMs : null);
    return out;
  }

  /** PATCH enabled=true: the streak starts afresh (D143); the caller then writes D1. */
  resetStreak(endpointId: number, seed: StreakSeed, nowMs: number): StreakState {
    return this.ctx.storage.transactionSync(() => changeStreak(this.db, endpointId, "reset", seed, nowMs));
  }

  listDeliveries(q: DeliveryListQuery): { rows: DeliveryRecord[]; total: number } {
    return log.listDeliveries(this.db, q);
  }

  getDelivery(endpointId: number, deliveryId: number): { row: DeliveryRecord; payload: string | null } | null {
    return log.getDelivery(this.db, endpointId, deliveryId);
  }

  /** The endpoint was deleted: its deliveries and streak go (D140). */
  deleteEndpoint(endpointId: number): number {
    return this.ctx.storage.transactionSync(() => log.deleteEndpoint(this.db, endpointId));
  }

  /** Deliveries moved from D1 (D145). */
  async importLegacy(teamId: number, rows: LegacyDelivery[]): Promise<{ inserted: number }> {
    const out = this.ctx.storage.transactionSync(() => {
      rememberTeam(this.kv, teamId);
      return importLegacy(this.db, this.kv, rows);
    });
    const due = rows.filter((r) => r.status === "pending").map((r) => r.nextRetryAt ?? r.updatedAt);
    await this.ensureAlarm(due.length > 0 ? Math.min(...due) : null);
    return out;
  }

  /** What the object holds (tests, the mover's logs). */
  stats(): { events: number; deliveries: number; pending: number } {
    return counts(this.db);
  }

  /** The retry sweep, and the daily purge when its time has come (D144). */
  override async alarm(): Promise<void> {
    const now = Date.now();
    const { swept, more } = this.ctx.storage.transactionSync(() => sweepRetries(this.db, now));
    if (swept.length > 0) await this.resend(swept);
    let purgeMore = false;
    const purgeAt = this.kv.get<number>("purge_at");
    if (purgeAt !== undefined && purgeAt <= now) {
      const out = this.ctx.storage.transactionSync(() => purge(this.db, now));
      purgeMore = out.more;
      if (!out.more) this.kv.put("purge_at", nextPurgeAt(now));
      if (out.deliveries + out.events > 0) {
        console.log(JSON.stringify({ level: "info", msg: "webhook log purge", team_id: this.kv.get<number>("team_id") ?? null, ...out }));
      }
    }
    await this.schedule(more || purgeMore ? now + 1000 : null);
  }

  /** The team was deleted: every byte of its log goes, and its alarm (D140, like D124). */
  async destroy(): Promise<void> {
    await this.ctx.storage.deleteAlarm();
    await this.ctx.storage.deleteAll();
  }

  private async resend(swept: Array<{ id: number; endpointId: number }>): Promise<void> {
    const teamId = this.kv.get<number>("team_id");
    if (teamId === undefined) return; // never written by a team: nothing can be pending
    const bodies: DeliveryMessage[] = swept.map((d) => ({ kind: "deliver", team_id: teamId, endpoint_id: d.endpointId, delivery_id: d.id }));
    try {
      for (let i = 0; i < bodies.length; i += SEND_BATCH_MAX) {
        await this.env.DELIVERIES_QUEUE.sendBatch(bodies.slice(i, i + SEND_BATCH_MAX).map((body) => ({ body })));
      }
    } catch (error) {
      // Marked due now: the next sweep, 5 minutes on, sends them again.
      console.warn(JSON.stringify({ level: "warn", msg: "retry sweep enqueue failed; the next sweep resends", team_id: teamId, error: String(error) }));
    }
  }

  /**
   * After a write: the alarm is moved earlier when the row just written needs it sooner (`dueAt`: when a
   * pending delivery is due, so the sweep looks at it 5 minutes later), or set at the next purge for a log
   * that had none. Never later, and without reading the table: every write of a busy log stays O(1); an
   * alarm that finds nothing due sets the exact next time itself.
   */
  private async ensureAlarm(dueAt: number | null): Promise<void> {
    const wanted = Math.min(this.purgeAt(), dueAt === null ? Number.POSITIVE_INFINITY : dueAt + RETRY_GRACE_MS);
    const current = await this.ctx.storage.getAlarm();
    if (current === null || wanted < current) await this.ctx.storage.setAlarm(wanted);
  }

  private purgeAt(): number {
    let at = this.kv.get<number>("purge_at");
    if (at === undefined) {
      at = nextPurgeAt(Date.now());
      this.kv.put("purge_at", at);
    }
    return at;
  }

  /** Sets the alarm to exactly when it is next needed, or clears it for an empty log. */
  private async schedule(soon: number | null): Promise<void> {
    const wanted = this.wantedAlarm(soon);
    if (wanted === null) await this.ctx.storage.deleteAlarm();
    else await this.ctx.storage.setAlarm(wanted);
  }

  private wantedAlarm(soon: number | null): number | null {
    if (isEmpty(this.db)) return soon;
    const sweepAt = nextSweepAt(this.db);
    return Math.min(this.purgeAt(), sweepAt ?? Number.POSITIVE_INFINITY, soon ?? Number.POSITIVE_INFINITY);
  }
}
