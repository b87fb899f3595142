// Path and query parameters shared by the DMARC routes: domain and report ids, the date window.
import { z } from "@hono/zod-openapi";

const id = (name: string, description: string) =>
  z.coerce
    .number()
    .int()
    .positive()
    .openapi({ param: { name, in: "path" }, description, example: 1 });

export const DomainParam = z.object({ domain: id("domain", "Domain id.") });
export const ReportParams = z.object({ domain: id("domain", "Domain id."), report: id("report", "Report id (`id` in the report list).") });

const day = (description: string, example: string) =>
  z
    .string()
    .regex(/^\d{4}-\d{2}-\d{2}$/, "must be a date, YYYY-MM-DD")
    .optional()
    .openapi({ description, example });

/** docs/decisions.md D71: from/to take precedence over days; only `to` means the `days` days ending on it. */
export const WindowQuery = z.object({
  days: z.coerce
    .number()
    .int()
    .min(1)
    .max(365)
    .default(30)
    .openapi({ description: "Window in days ending today, 1 to 365; with only `to`, the days ending on `to`. Ignored when `from` is given.", example: 30 }),
  from: day("First day (UTC) of the window, within the plan's DMARC retention. With `from`, `days` is ignored.", "2026-01-01"),
  to: day("Last day (UTC) of the window, not after today and not before `from`; today when omitted.", "2026-01-31"),
});

export const WindowView = z.object({
  days: z.number().int(),
  from: z.string().openapi({ example: "2026-01-01" }),
  to: z.string().openapi({ example: "2026-01-31" }),
});
