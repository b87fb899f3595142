// The resolver's own queue for DNS-over-HTTPS requests (docs/decisions.md D63): at most `limit` in flight,
// the rest wait here rather than in the runtime's connection queue; the lookups most other queries wait on
// (the MX hosts and their addresses) leave first and a leaf query (a blocklist or TLSA lookup), which only
// answers itself, last. No I/O.
import type { QueryPriority, Resolver } from "./types";

export class QueryLimiter {
  private running = 0;
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

  /** A freed slot goes straight to the best waiter, so a later caller never overtakes one. */
  private release(): void {
    const next = this.waiting.first.shift() ?? this.waiting.normal.shift() ?? this.waiting.leaf.shift();
    if (next) next();
    else this.running--;
  }

  /** Requests in flight now (for tests and traces). */
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
