// Shared shapes of the pure core: findings, severities, results and the I/O ports. No I/O here.

export const SEVERITIES = ["Critical", "High", "Medium", "Low", "Info"] as const;
export type Severity = (typeof SEVERITIES)[number];

/** A rule that an expert checks, with the exact fix when it is mechanical. `rule` ids are stable. */
export interface Finding {
  rule: string;
  severity: Severity;
  description: string;
  fix: string | null;
}

/** Core code returns results for bad input instead of throwing. */
export type Result<T, E = string> = { ok: true; value: T } | { ok: false; error: E };
export const ok = <T>(value: T): Result<T, never> => ({ ok: true, value });
export const err = <E>(error: E): Result<never, E> => ({ ok: false, error });

/** The clock port: core code never reads Date.now() itself. */
export interface Clock {
  now(): Date;
}

/** The HTTP port (MTA-STS policy, BIMI assets, RDAP): the standard fetch signature. */
export type HttpFetch = (input: string | Request, init?: RequestInit) => Promise<Response>;
