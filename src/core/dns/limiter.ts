// The resolver's own queue for DNS-over-HTTPS requests (docs/decisions.md D63): at most `limit` in flight,
// the rest wait here rather than in the runtime's connection queue; the lookups most other queries wait on
// (the MX hosts and their addresses) leave first and a leaf query (a blocklist or TLSA lookup), which only
// answers itself, last. No I/O.
import type { QueryPriority, Resolver } from "./types";

export class QueryLimiter {
  private running = 0;
  private handing = 0;
  private readonly waiting: Record<QueryPriority, Array<() => void>> = { first: [], normal: [], leaf: [] };

  /** `limit`: requests in flight at once (at least 1; Infinity for none). */
  constructor(private readonly limit: number) {
    if (!(limit >= 1)) throw new RangeError(`a query limit must be at least 1, got ${limit}`);
  }

  /** Runs `task` once a slot is free: `first`, then `normal`, then `leaf`, each first come first served. */
  async run<T>(priority: QueryPriority, task: () => Promise<T>): Promise<T> {
    if (this.running < this.limit) this.running++;
    else await new Promise<void>((resolve) => this.waiting[priority].push(resolve));
    try {
      return await task();
    } finally {
      this.release();
    }
  }

  /**
   * A freed slot stays taken until the answer that freed it has been read: the queries it leads to
   * (an MX answer's address lookups) are asked in the promise jobs that follow, and a timer turn later
   * they compete for the slot with everything already waiting. A later caller never overtakes a waiter.
   */
  private release(): void {
    if (this.queued() === this.handing) {
      this.running--;
      return;
    }
    this.handing++;
    setTimeout(() => {
      this.handing--;
      const next = this.waiting.first.shift() ?? this.waiting.normal.shift() ?? this.waiting.leaf.shift();
      if (next) next();
      else this.running--;
    }, 0);
  }

  private queued(): number {
    return this.waiting.first.length + this.waiting.normal.length + this.waiting.leaf.length;
  }

  /** Requests in flight now, counting slots being handed over (for tests and traces). */
  get inFlight(): number {
    return this.running;
  }
}

/** The same resolver with every query at `priority`: for a part whose lookups are all alike. */
export function withPriority(resolver: Resolver, priority: QueryPriority): Resolver {
  return {
    query: (name, type, opts) => resolver.query(name, type, { ...opts, priority }),
    get queriesSent() {
      return resolver.queriesSent;
    },
  };
}
