// When digests are due: the local date, hour, ISO weekday and ISO week of an instant in an IANA time
// zone, and the period key that makes a digest unique per (team, member, period) (docs/decisions.md
// D185, D186). Pure: Intl does the zone arithmetic (tz database rules, daylight saving included).

export interface LocalMoment {
  /** Local calendar day, YYYY-MM-DD. */
  date: string;
  hour: number;
  /** ISO 8601 weekday: 1 = Monday ... 7 = Sunday. */
  weekday: number;
  /** ISO 8601 week of the local day, "2026-W48" (the year is the week-numbering year). */
  week: string;
}

const formatters = new Map<string, Intl.DateTimeFormat>();

function formatter(timeZone: string): Intl.DateTimeFormat {
  let f = formatters.get(timeZone);
  if (!f) {
    f = new Intl.DateTimeFormat("en-US", { timeZone, year: "numeric", month: "2-digit", day: "2-digit", hour: "2-digit", hourCycle: "h23" });
    formatters.set(timeZone, f);
  }
  return f;
}

/** The zone's canonical name when it is a valid IANA zone (Intl knows it), else null. */
export function canonicalTimeZone(zone: string): string | null {
  if (zone.length === 0 || zone.length > 64) return null;
  try {
    return new Intl.DateTimeFormat("en-US", { timeZone: zone }).resolvedOptions().timeZone;
  } catch {
    return null;
  }
}

/** ISO 8601 week-numbering year and week of a calendar day (the week with the year's first Thursday is W01). */
export function isoWeek(year: number, month: number, day: number): string {
  const d = new Date(Date.UTC(year, month - 1, day));
  const weekday = d.getUTCDay() || 7;
  // The Thursday of this week decides the week-numbering year.
  d.setUTCDate(d.getUTCDate() + 4 - weekday);
  const weekYear = d.getUTCFullYear();
  const week = Math.ceil(((d.getTime() - Date.UTC(weekYear, 0, 1)) / 86_400_000 + 1) / 7);
  return `${weekYear}-W${String(week).padStart(2, "0")}`;
}

export function localMoment(now: Date, timeZone: string): LocalMoment {
  const parts = Object.fromEntries(
    formatter(timeZone)
      .formatToParts(now)
      .map((p) => [p.type, p.value]),
  );
  const year = Number(parts.year);
  const month = Number(parts.month);
  const day = Number(parts.day);
  const weekday = new Date(Date.UTC(year, month - 1, day)).getUTCDay() || 7;
  return {
    date: `${parts.year}-${parts.month}-${parts.day}`,
    hour: Number(parts.hour) % 24,
    weekday,
    week: isoWeek(year, month, day),
  };
}
