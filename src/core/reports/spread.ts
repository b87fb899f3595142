// Splits a report's date range into UTC days and apportions integer counts over them exactly. Pure, no I/O.

const DAY = 86_400;
/** Longer ranges are not spread (a broken or hostile date_range would multiply the rows). */
export const MAX_SPREAD_DAYS = 31;

export interface DayShare {
  day: string; // YYYY-MM-DD
  seconds: number; // overlap of the report's range with this UTC day
}

export const dayOf = (epoch: number): string => new Date(epoch * 1000).toISOString().slice(0, 10);

/**
 * The UTC days a report covers. RFC 7489 §7.2 asks for daily reports, but reporters use their own
 * midnight (Mail.ru: 21:00 UTC) or send multi-day reports. Like parsedmarc, a range of at most 24 h
 * is not split: it goes to the UTC day holding its midpoint, which is the reporter's intended day
 * whatever its time zone. Longer ranges are spread over the days they overlap, weighted by seconds
 * (the hours in each day, to the second), treating the range as [begin, end).
 */
export function daysCovered(begin: number, end: number): { days: DayShare[]; spread: boolean } {
  const span = end - begin;
  const single = { days: [{ day: dayOf(Math.floor(begin + span / 2)), seconds: 1 }], spread: false };
  if (span <= DAY || span > MAX_SPREAD_DAYS * DAY) return single;
  const days: DayShare[] = [];
  for (let d = Math.floor(begin / DAY) * DAY; d < end; d += DAY) {
    const seconds = Math.min(end, d + DAY) - Math.max(begin, d);
    if (seconds > 0) days.push({ day: dayOf(d), seconds });
  }
  return { days, spread: true };
}

/**
 * Largest-remainder apportionment (Hamilton): each day gets floor(count × share), then the units
 * still missing go one each to the days with the largest fractional remainders (ties: earlier
 * day). The parts always sum to `count` exactly, so report totals survive the spread, and no day
 * ever gets more than one unit above its exact quota. BigInt only when count × weight could pass
 * 2^53 (sums of many records over a month).
 */
export function apportion(count: number, weights: number[]): number[] {
  const total = weights.reduce((a, b) => a + b, 0);
  if (weights.length <= 1 || total <= 0) return weights.map((_, i) => (i === 0 ? count : 0));
  const exact = count * total <= Number.MAX_SAFE_INTEGER;
  const c = BigInt(count);
  const t = BigInt(total);
  const parts = weights.map((w, i) => {
    if (exact) return { i, base: Math.floor((count * w) / total), rem: (count * w) % total };
    const p = c * BigInt(w);
    return { i, base: Number(p / t), rem: Number(p % t) };
  });
  let missing = count - parts.reduce((a, p) => a + p.base, 0);
  const order = [...parts].sort((a, b) => b.rem - a.rem || a.i - b.i);
  for (const p of order) {
    if (missing <= 0) break;
    p.base++;
    missing--;
  }
  return parts.map((p) => p.base);
}
