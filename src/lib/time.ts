// Time helpers shared by services: ISO output for nullable dates.
export const iso = (d: Date | null | undefined): string | null => (d ? d.toISOString() : null);
export const HOUR_MS = 3_600_000;
export const DAY_MS = 86_400_000;
