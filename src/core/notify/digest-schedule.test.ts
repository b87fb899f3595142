// Local time of an instant in IANA zones (tz database rules through Intl) and ISO 8601 week numbers
// (ISO 8601-1:2019 §5.7.7: week 01 holds the year's first Thursday; checked against Python's isocalendar).
import { describe, expect, it } from "vitest";
import { canonicalTimeZone, isoWeek, localMoment } from "./digest-schedule";

describe("ISO 8601 weeks", () => {
  it.each([
    [2026, 11, 30, "2026-W49"],
    [2026, 11, 29, "2026-W48"],
    [2026, 12, 31, "2026-W53"],
    [2027, 1, 1, "2026-W53"],
    [2021, 1, 3, "2020-W53"],
    [2024, 12, 30, "2025-W01"],
  ])("%i-%i-%i is in %s", (y, m, d, week) => {
    expect(isoWeek(y, m, d)).toBe(week);
  });
});

describe("local moments", () => {
  it("Monday 08:00 UTC is Monday 21:00 in Auckland (NZDT, UTC+13, in November)", () => {
    const now = new Date("2026-11-30T08:00:30Z");
    expect(localMoment(now, "UTC")).toEqual({ date: "2026-11-30", hour: 8, weekday: 1, week: "2026-W49" });
    expect(localMoment(now, "Pacific/Auckland")).toEqual({ date: "2026-11-30", hour: 21, weekday: 1, week: "2026-W49" });
  });

  it("Sunday 19:00 UTC is already Monday 08:00 in Auckland, and daylight saving moves New York's offset", () => {
    expect(localMoment(new Date("2026-11-29T19:00:00Z"), "Pacific/Auckland")).toMatchObject({ date: "2026-11-30", hour: 8, weekday: 1 });
    expect(localMoment(new Date("2026-07-01T12:00:00Z"), "America/New_York").hour).toBe(8); // EDT, UTC-4
    expect(localMoment(new Date("2026-12-01T13:00:00Z"), "America/New_York").hour).toBe(8); // EST, UTC-5
  });

  it("midnight is hour 0, not 24", () => {
    expect(localMoment(new Date("2026-11-30T00:00:00Z"), "UTC").hour).toBe(0);
  });

  it("knows IANA zones and refuses anything else", () => {
    expect(canonicalTimeZone("Europe/Paris")).toBe("Europe/Paris");
    expect(canonicalTimeZone("UTC")).toBe("UTC");
    expect(canonicalTimeZone("Mars/Olympus")).toBeNull();
    expect(canonicalTimeZone("")).toBeNull();
  });
});
