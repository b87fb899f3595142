// Per-isolate leases on a team's rate limit and monthly quota (docs/decisions.md D55). The isolate asks
// the team's RateLimiter object for a batch of permits and spends them with no await, so most requests
// cost no Durable Object call. The object counts a batch when it grants it and never grants more than
// remains, so all isolates together never admit more than the limit; in one isolate a parallel burst
// is admitted exactly as the object alone would (one refill at a time, shared by every waiting request).
import type { LeaseGrant, LeaseRequest, RateDecision, RateLimits, UnusedPermits } from "./rate-limiter";

export type FetchLease = (request: LeaseRequest) => Promise<LeaseGrant>;

/** A lease is at most this share of the per-minute limit (at least 1), so what other isolates hold back is bounded. */
export const LEASE_SHARE = 0.1;
/** Unused permits waiting to go back with the next refill; past this many the oldest are dropped (counted, never refunded). */
const MAX_UNUSED = 8;
/** Teams whose lease an isolate keeps at once; past this the oldest is dropped (its permits wait to be given back). */
const MAX_TEAMS = 2_000;

export const leaseCap = (limits: RateLimits) => Math.max(1, Math.floor(limits.perMinute * LEASE_SHARE));

interface TeamLease {
  teamId: number;
  limitsKey: string;
  limits: RateLimits;
  /** Permits left to spend in this isolate. */
  permits: number;
  /** Permits of the current grant and how many of them were spent. */
  granted: number;
  spent: number;
  /** What the object reported after the grant (counts include every permit it handed out). */
  minuteCount: number;
  quotaUsed: number;
  /** The refusal the object gave, held until the window ends (no permits were granted). */
  refusal: RateDecision | null;
  /** On this isolate's clock: when the window ends (never later than the object's end) and when the month ends. */
  expiresAt: number;
  refusalUntil: number;
  windowStart: number;
  month: string;
  /** Size of the next request for permits: doubles while leases run out inside a window, falls back to what was used. */
  want: number;
  unused: UnusedPermits[];
  refill: Promise<void> | null;
  /** Requests waiting on the refill. */
  waiting: number;
}

const limitsKeyOf = (l: RateLimits) => `${l.perMinute}/${l.perMonth}`;

export class RateLeases {
  private readonly teams = new Map<number, TeamLease>();

  constructor(private readonly clock: () => number = () => Date.now()) {}

  /** Admits one request for the team (or refuses it), asking the object only when this isolate holds no permit. */
  async hit(teamId: number, limits: RateLimits, fetchLease: FetchLease): Promise<RateDecision> {
    const lease = this.leaseOf(teamId, limits);
    for (;;) {
      const now = this.clock();
      if (now >= lease.expiresAt) this.retire(lease);
      if (lease.permits > 0) {
        lease.permits -= 1;
        lease.spent += 1;
        return this.admitted(lease, now);
      }
      if (lease.refusal && now < lease.expiresAt) return this.refused(lease, now);
      // One refill at a time per team: every request that finds the lease empty waits for the same one.
      lease.refill ??= this.refill(lease, fetchLease).finally(() => {
        lease.refill = null;
      });
      // A lease dropped meanwhile (a plan change) still serves the requests waiting on it, and only them,
      // so that requests under old and new limits never send each other round again.
      lease.waiting += 1;
      try {
        await lease.refill;
      } finally {
        lease.waiting -= 1;
      }
    }
  }

  /** Permits this isolate holds for the team and has not spent (counted by the object as used). */
  held(teamId: number): number {
    const lease = this.teams.get(teamId);
    return lease && this.clock() < lease.expiresAt ? lease.permits : 0;
  }

  /**
   * Drops the team's lease (a plan change, docs/decisions.md D51): the next request asks the object
   * again under the new limits, and gives back what this isolate had not spent.
   */
  drop(teamId: number): void {
    const lease = this.teams.get(teamId);
    if (!lease) return;
    this.teams.delete(teamId);
    this.retire(lease);
    for (const u of lease.unused) this.giveBackLater(teamId, u);
    lease.unused = [];
  }

  /** Unused permits of dropped leases, sent with the team's next refill. */
  private readonly pendingUnused = new Map<number, UnusedPermits[]>();

  private giveBackLater(teamId: number, unused: UnusedPermits): void {
    const list = this.teams.get(teamId)?.unused ?? this.pendingUnused.get(teamId) ?? [];
    list.push(unused);
    if (list.length > MAX_UNUSED) list.shift();
    if (!this.teams.has(teamId)) {
      // Bounded: past the cap the oldest refunds are forgotten (those permits stay counted, never over-admitted).
      if (this.pendingUnused.size >= MAX_TEAMS) this.pendingUnused.delete(this.pendingUnused.keys().next().value as number);
      this.pendingUnused.set(teamId, list);
    }
  }

  private leaseOf(teamId: number, limits: RateLimits): TeamLease {
    const key = limitsKeyOf(limits);
    const found = this.teams.get(teamId);
    if (found && found.limitsKey === key) return found;
    if (found) this.drop(teamId);
    if (this.teams.size >= MAX_TEAMS) {
      const oldest = this.teams.keys().next().value as number;
      this.drop(oldest);
    }
    const lease: TeamLease = {
      teamId,
      limitsKey: key,
      limits,
      permits: 0,
      granted: 0,
      spent: 0,
      minuteCount: 0,
      quotaUsed: 0,
      refusal: null,
      expiresAt: 0,
      refusalUntil: 0,
      windowStart: 0,
      month: "",
      want: 1,
      unused: this.pendingUnused.get(teamId) ?? [],
      refill: null,
      waiting: 0,
    };
    this.pendingUnused.delete(teamId);
    this.teams.set(teamId, lease);
    return lease;
  }

  /** Ends the current grant: its unspent permits wait to be given back, and the next grant is sized by use. */
  private retire(lease: TeamLease): void {
    if (lease.permits > 0) {
      lease.unused.push({ windowStart: lease.windowStart, month: lease.month, count: lease.permits });
      if (lease.unused.length > MAX_UNUSED) lease.unused.shift();
      lease.want = Math.max(1, lease.spent);
    }
    lease.permits = 0;
    lease.granted = 0;
    lease.spent = 0;
    lease.refusal = null;
    lease.expiresAt = 0;
  }

  private async refill(lease: TeamLease, fetchLease: FetchLease): Promise<void> {
    const cap = leaseCap(lease.limits);
    // A grant spent to the end inside its window means demand: ask for twice as much next time.
    if (lease.granted > 0 && lease.spent >= lease.granted) lease.want = Math.min(cap, lease.granted * 2);
    const unused = lease.unused;
    lease.unused = []; // sent once: lost on a failed call (over-counted, never under-counted)
    const sentAt = this.clock();
    const grant = await fetchLease({ limits: lease.limits, want: Math.min(cap, lease.want), unused });
    let granted = grant.granted;
    if (this.teams.get(lease.teamId) !== lease && granted > lease.waiting) {
      // Dropped while asking: it keeps one permit per waiting request; the rest go back with the team's next refill.
      this.giveBackLater(lease.teamId, { windowStart: grant.windowStart, month: grant.month, count: granted - lease.waiting });
      granted = lease.waiting;
    }
    // The window's end on this isolate's clock, measured from when the request left: never later than the object's end.
    lease.expiresAt = sentAt + (grant.windowEnd - grant.now);
    lease.windowStart = grant.windowStart;
    lease.month = grant.month;
    lease.granted = granted;
    lease.spent = 0;
    lease.permits = granted;
    // Counts as the object left them, less what a dropped lease gave back (the headers stay exact).
    lease.minuteCount = granted > 0 ? grant.decision.limit - grant.decision.remaining - (grant.granted - granted) : 0;
    lease.quotaUsed = grant.decision.quotaUsed - (grant.granted - granted);
    lease.refusal = grant.granted > 0 ? null : grant.decision;
    lease.refusalUntil = grant.granted > 0 ? 0 : sentAt + grant.decision.retryAfterSeconds * 1000;
  }

  private admitted(lease: TeamLease, now: number): RateDecision {
    // Permits this isolate still holds are counted by the object but not yet used: exact in one isolate.
    return {
      allowed: true,
      reason: null,
      limit: lease.limits.perMinute,
      remaining: Math.max(0, lease.limits.perMinute - (lease.minuteCount - lease.permits)),
      resetSeconds: secondsUntil(lease.expiresAt, now),
      quotaLimit: lease.limits.perMonth,
      quotaUsed: lease.quotaUsed - lease.permits,
      retryAfterSeconds: 0,
    };
  }

  private refused(lease: TeamLease, now: number): RateDecision {
    const refusal = lease.refusal as RateDecision;
    return { ...refusal, resetSeconds: secondsUntil(lease.expiresAt, now), retryAfterSeconds: secondsUntil(lease.refusalUntil, now) };
  }
}

const secondsUntil = (at: number, now: number) => Math.max(1, Math.ceil((at - now) / 1000));

/** This isolate's leases, shared by every request it serves (src/services.ts wires it to the objects). */
export const teamLeases = new RateLeases();
