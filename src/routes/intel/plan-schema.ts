// The remediation plan as every face returns it (REST domain detail, /intel/domain; the dashboard and the
// agent tools show the same object). Schema only.
import { z } from "@hono/zod-openapi";

const GRADE = z.enum(["A+", "A", "B", "C", "D", "F"]);

const PlanRecord = z
  .object({
    host: z.string().openapi({ example: "_dmarc.example.com" }),
    type: z.enum(["TXT", "MX", "CNAME"]),
    value: z.string().openapi({ description: "The whole record value (TXT: its strings joined)." }),
    strings: z
      .array(z.string())
      .nullable()
      .openapi({ description: "TXT only: the character-strings to enter, each at most 255 octets (RFC 1035 §3.3.14); receivers join them." }),
  })
  .openapi("PlanRecord");

export const RemediationPlan = z
  .object({
    score: z.number().int().nullable(),
    grade: GRADE.nullable(),
    steps: z.array(
      z
        .object({
          id: z.string().openapi({ example: "dmarc-none" }),
          category: z.string(),
          title: z.string(),
          why: z.string(),
          gate: z.enum(["now", "after_reports", "decision"]).openapi({
            description:
              "now: publish it; after_reports: when the DMARC reports satisfy the enforcement rule; decision: a person must decide or act first (see decision).",
          }),
          decision: z.string().nullable(),
          records: z.array(PlanRecord).openapi({ description: "Records to publish, each replacing the record of its kind at that name." }),
          remove: z.array(PlanRecord).openapi({ description: "Records to delete." }),
          files: z
            .array(z.object({ url: z.string(), content_type: z.string(), body: z.string() }))
            .openapi({ description: "Files to serve over HTTPS first (the MTA-STS policy)." }),
          closes: z.array(z.string()).openapi({ description: "Finding rules this step closes, as projected." }),
          score_after: z
            .number()
            .int()
            .nullable()
            .openapi({ description: "The score after this step and the ones before it, computed by applying their records." }),
          grade_after: GRADE.nullable(),
        })
        .openapi("PlanStep"),
    ),
    final: z.object({ score: z.number().int().nullable(), grade: GRADE.nullable() }),
    blockers: z.array(z.string()).openapi({ description: "What stands between the plan's end and grade A: decisions, waits, findings DNS cannot fix." }),
    unresolved: z.array(z.object({ category: z.string(), rule: z.string(), severity: z.string(), message: z.string() })),
  })
  .openapi("RemediationPlan", {
    description: "Ordered steps to grade A, each projected by applying its records to the answers the check saw (docs/scoring.md).",
  });
