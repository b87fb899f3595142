// The date window of a DMARC view: `days` back from today, or explicit `from`/`to` days within the
// plan's retention (docs/decisions.md D71). Does I/O (D1: the team's plan).
import { type FieldErrors, validationFailed } from "../../lib/errors";
import { REPORT_LIMITS } from "../../lib/plans";
import { DAY_MS } from "../../lib/time";
import type { Services } from "../../services";
import { planOf } from "./quota";

export interface WindowQuery {
  days: number;
  from?: string;
  to?: string;
}

export interface DmarcWindow {
  /** Inclusive UTC days, YYYY-MM-DD. */
  from: string;
  to: string;
  days: number;
  /** Epoch ms of `from` 00:00 and of the end of `to` (exclusive). */
  startMs: number;
  endMs: number;
}

const dayStr = (ms: number) => new Date(ms).toISOString().slice(0, 10);

/** A calendar day, YYYY-MM-DD, that exists (2026-02-30 does not); its 00:00 UTC in ms, or null. */
function dayMs(text: string): number | null {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(text)) return null;
  const ms = Date.parse(`${text}T00:00:00Z`);
  return Number.isNaN(ms) || dayStr(ms) !== text ? null : ms;
}

/**
 * `from`/`to` take precedence over `days`: both given, the window is exactly them; only `from`, it
 * runs to today; only `to`, it is the `days` days ending on `to`. `to` may not be after today nor
 * before `from`, and `from` may not be older than the plan keeps data (a window there would read as
 * "no reports" when the data was purged): 422 naming the field.
 */
export async function resolveWindow(svc: Services, domainId: number, q: WindowQuery): Promise<DmarcWindow> {
  const todayMs = Date.parse(`${dayStr(svc.clock.now().getTime())}T00:00:00Z`);
  if (q.from === undefined && q.to === undefined) return build(todayMs - (q.days - 1) * DAY_MS, todayMs);

  const errors: FieldErrors = {};
  const fromMs = q.from === undefined ? undefined : dayMs(q.from);
  const toMs = q.to === undefined ? todayMs : dayMs(q.to);
  if (fromMs === null) errors.from = ["must be a date, YYYY-MM-DD"];
  if (toMs === null) errors.to = ["must be a date, YYYY-MM-DD"];
  else if (toMs > todayMs) errors.to = [`must not be after today (${dayStr(todayMs)})`];
  if (Object.keys(errors).length > 0 || fromMs === null || toMs === null) throw validationFailed(errors);

  const start = fromMs ?? toMs - (q.days - 1) * DAY_MS;
  if (start > toMs) throw validationFailed({ to: ["must not be before from"] });
  const retention = REPORT_LIMITS[await planOf(svc, domainId)].retention_days;
  const oldest = todayMs - (retention - 1) * DAY_MS;
  if (start < oldest) {
    const field = q.from === undefined ? "to" : "from";
    throw validationFailed({ [field]: [`the window starts before ${dayStr(oldest)}: this plan keeps DMARC data ${retention} days`] });
  }
  return build(start, toMs);
}

function build(startMs: number, toMs: number): DmarcWindow {
  return { from: dayStr(startMs), to: dayStr(toMs), days: Math.round((toMs - startMs) / DAY_MS) + 1, startMs, endMs: toMs + DAY_MS };
}
