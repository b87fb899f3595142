/** @jsxImportSource hono/jsx */
// The remediation plan as the domain page and the DMARC page show it: where the domain is, where the plan
// leads, and each step with its exact records, what it closes and the grade it reaches. The same object the
// API and the agent tools return (docs/scoring.md "Remediation plan").
import type { FC } from "hono/jsx";
import type { PlanStep, RemediationPlan } from "../core/posture/plan/types";
import { Copyable, GradeBadge, plural } from "./domain-format";

const GATE_LABEL: Record<PlanStep["gate"], string> = {
  now: "Do now",
  after_reports: "When reports allow",
  decision: "Needs your decision",
};

const StepRecords: FC<{ step: PlanStep; n: number }> = ({ step, n }) => (
  <>
    {step.files.map((f) => (
      <div class="plan-file">
        <p class="small">
          {"First serve this file at "}
          <code>{f.url}</code>
          {` (${f.content_type}):`}
        </p>
        <pre class="copy-block">{f.body}</pre>
        <button type="button" class="secondary small-button" data-copy={f.body} aria-label={`Copy the file of step ${n}`}>
          Copy
        </button>
      </div>
    ))}
    {step.records.map((r) => (
      <dl class="fields compact">
        <dt>Host</dt>
        <dd>
          <Copyable value={r.host} label={`host of step ${n}`} />
        </dd>
        <dt>Type</dt>
        <dd>
          <code>{r.type}</code>
        </dd>
        <dt>Value</dt>
        <dd>
          {r.strings && r.strings.length > 1 ? (
            <>
              <p class="small muted">{`Longer than one TXT string: enter it as these ${r.strings.length} strings (your DNS host joins them).`}</p>
              <Copyable value={r.strings.map((s) => `"${s}"`).join(" ")} label={`value of step ${n} as strings`} />
            </>
          ) : (
            <Copyable value={r.value} label={`value of step ${n}`} />
          )}
        </dd>
      </dl>
    ))}
    {step.remove.length > 0 && (
      <p class="small">
        {"Delete: "}
        {step.remove.map((r) => (
          <code>{`${r.host} ${r.type} ${r.value}`}</code>
        ))}
      </p>
    )}
  </>
);

export const PlanView: FC<{ plan: RemediationPlan | null; only?: PlanStep["category"] }> = ({ plan, only }) => {
  if (!plan) return null;
  const steps = only ? plan.steps.filter((s) => s.category === only) : plan.steps;
  return (
    <section class="panel plan" aria-labelledby="plan-h" id="plan">
      <h2 id="plan-h">{only ? "Next DMARC steps" : "Your plan to grade A"}</h2>
      {!only && (
        <p class="plan-summary">
          {"Now "}
          <GradeBadge grade={plan.grade} /> <strong>{plan.score ?? "—"}</strong>
          {steps.length > 0 ? (
            <>
              {` · after ${plural(steps.length, "step")} `}
              <GradeBadge grade={plan.final.grade} /> <strong>{plan.final.score ?? "—"}</strong>
            </>
          ) : (
            " · nothing to change."
          )}
        </p>
      )}
      {steps.length > 0 && (
        <ol class="plan-steps">
          {steps.map((s, i) => (
            <li>
              <h3>
                {s.title} <span class={`badge ${s.gate === "now" ? "ok" : "warn"}`}>{GATE_LABEL[s.gate]}</span>
              </h3>
              <p class="small">{s.why}</p>
              {s.decision && (
                <p class="small">
                  <strong>Before you publish: </strong>
                  {s.decision}
                </p>
              )}
              <StepRecords step={s} n={i + 1} />
              <p class="small muted">
                {`After this step: ${s.score_after ?? "—"}${s.grade_after ? ` (grade ${s.grade_after})` : ""}`}
                {s.closes.length > 0 ? ` · closes ${s.closes.join(", ")}` : ""}
              </p>
            </li>
          ))}
        </ol>
      )}
      {!only && plan.blockers.length > 0 && plan.final.grade !== "A" && plan.final.grade !== "A+" && (
        <details>
          <summary>What still stands between this domain and grade A</summary>
          <ul>
            {plan.blockers.map((b) => (
              <li class="small">{b}</li>
            ))}
          </ul>
        </details>
      )}
    </section>
  );
};
