/** @jsxImportSource hono/jsx */
// Intel on anything, stored nowhere: the full posture of any domain (the same part-by-part view as a
// monitored domain), and address checks, one address or a batch pasted one per line. Compute-only, so
// viewers may use it (docs/decisions.md D2). When no resolver answered the page says the lookup failed,
// never that records are missing.
import { type Context, Hono } from "hono";
import type { Child, FC } from "hono/jsx";
import type { AppEnv } from "../context";
import { ApiError } from "../lib/errors";
import { domainIntel } from "../services/intel/domain-intel";
import type { EmailCheck } from "../services/intel/email-check";
import { checkEmail, checkEmailBatch } from "../services/intel/emails";
import { IntelEmailsRequest, MAX_BATCH } from "../services/intel/inputs";
import { fieldMessages, GradeBadge, StatusBadge } from "./domain-format";
import { frameOf } from "./frame";
import { checkCsrf, readForm, signedInOrRedirect } from "./guard";
import { type Frame, CsrfField, Layout, Notice } from "./layout";
import { PlanView } from "./plan-view";
import { PostureParts } from "./posture-parts";
import { meterPage } from "./meter";

type Full = Extract<Awaited<ReturnType<typeof domainIntel>>, { view: "full" }>;

const Forms: FC<{ frame: Frame; domain?: string; emails?: string }> = ({ frame, domain, emails }) => (
  <div class="cards">
    <section class="panel" aria-labelledby="domain-form-h">
      <h2 id="domain-form-h">Domain posture</h2>
      <form method="get" action="/intel">
        <label for="intel-domain">Any domain</label>
        <input id="intel-domain" name="domain" type="text" required maxlength={300} value={domain ?? ""} placeholder="example.com" />
        <button type="submit">Analyze</button>
      </form>
    </section>
    <section class="panel" aria-labelledby="email-form-h">
      <h2 id="email-form-h">Address check</h2>
      <form method="post" action="/intel/emails">
        <CsrfField csrf={frame.csrf} />
        <label for="intel-emails">{`Addresses, one per line (up to ${MAX_BATCH})`}</label>
        <textarea id="intel-emails" name="emails" required>
          {emails ?? ""}
        </textarea>
        <button type="submit">Check</button>
      </form>
    </section>
  </div>
);

const DomainResult: FC<{ a: Full }> = ({ a }) => (
  <section aria-labelledby="result-h">
    <div class="title-row">
      <h2 id="result-h">{a.domain}</h2>
      <GradeBadge grade={a.grade} />
    </div>
    <p>{`Score ${a.score ?? "—"}; DMARC policy ${a.dmarc_policy ?? "none"}; ${a.queries} DNS queries.`}</p>
    <PlanView plan={a.plan} />
    <div class="panel">
      <PostureParts posture={{ records: a.records as Record<string, unknown>, blacklists: a.blacklist_details ?? null, findings: a.findings }} />
    </div>
  </section>
);

const EmailResults: FC<{ results: EmailCheck[] }> = ({ results }) => (
  <section class="panel" aria-labelledby="emails-h">
    <h2 id="emails-h">{`${results.length} address${results.length === 1 ? "" : "es"}`}</h2>
    <div class="table-wrap">
      <table>
        <thead>
          <tr>
            <th scope="col">Address</th>
            <th scope="col">Score</th>
            <th scope="col">MX</th>
            <th scope="col">Provider</th>
            <th scope="col">Flags</th>
            <th scope="col">Policy</th>
            <th scope="col">Reasons</th>
          </tr>
        </thead>
        <tbody>
          {results.map((r) => (
            <tr>
              <td class="wrap">{r.email}</td>
              <td>{String(r.score)}</td>
              <td>
                <StatusBadge status={r.mx.status === "temperror" ? "temperror" : r.mx.status.replace(/_/g, " ")} />
              </td>
              <td>{r.provider?.name ?? "—"}</td>
              <td>{[r.free && "free", r.disposable && "disposable", r.role && "role"].filter(Boolean).join(", ") || "—"}</td>
              <td>{r.policy.strength}</td>
              <td>
                <ul class="plain small">
                  {r.reasons.map((x) => (
                    <li>{x.message}</li>
                  ))}
                </ul>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  </section>
);

async function page(c: Context<AppEnv>, o: { domain?: string; emails?: string; result?: Child; errors?: string[]; dnsFailed?: boolean }, status = 200) {
  const frame = await frameOf(c);
  return c.html(
    <Layout title="Intel" frame={frame} active="/intel">
      <h1>Intel</h1>
      {o.errors && o.errors.length > 0 && (
        <Notice kind="bad">
          <ul class="plain">
            {o.errors.map((e) => (
              <li>{e}</li>
            ))}
          </ul>
        </Notice>
      )}
      {o.dnsFailed && <Notice kind="bad">No DNS resolver answered, so nothing was learned. This says nothing about the records; try again shortly.</Notice>}
      <Forms frame={frame} domain={o.domain} emails={o.emails} />
      {o.result}
    </Layout>,
    status as 200,
  );
}

function refusal(e: unknown): { errors?: string[]; dnsFailed?: boolean; status: number } | null {
  if (!(e instanceof ApiError)) return null;
  if (e.status === 503) return { dnsFailed: true, status: 503 };
  if (e.status === 422) return { errors: e.errors ? fieldMessages(e) : [e.message], status: 422 };
  return null;
}

export function intelPages() {
  const r = new Hono<AppEnv>();

  r.get("/intel", async (c) => {
    const s = signedInOrRedirect(c);
    if (s instanceof Response) return s;
    const domain = c.req.query("domain");
    if (domain === undefined) return page(c, {});
    await meterPage(c, s);
    try {
      const a = (await domainIntel(c.get("services"), domain.slice(0, 300), true)) as Full;
      return page(c, { domain, result: <DomainResult a={a} /> });
    } catch (e) {
      const r = refusal(e);
      if (!r) throw e;
      return page(c, { domain, ...r }, r.status);
    }
  });

  r.post("/intel/emails", async (c) => {
    const s = signedInOrRedirect(c);
    if (s instanceof Response) return s;
    const form = await readForm(c, 64_000);
    checkCsrf(c, form.get("_csrf"));
    await meterPage(c, s);
    const raw = form.get("emails") ?? "";
    const lines = raw
      .split(/\r?\n/)
      .map((l) => l.trim())
      .filter((l) => l !== "");
    try {
      if (lines.length === 0) throw new ApiError(422, "validation_failed", "Enter at least one address.", { emails: ["enter at least one address"] });
      // The same schema as the API's batch (at most MAX_BATCH addresses of at most 320 characters).
      if (!IntelEmailsRequest.safeParse({ emails: lines }).success)
        throw new ApiError(422, "validation_failed", "Too many or too long addresses.", {
          emails: [`at most ${MAX_BATCH} addresses of at most 320 characters each`],
        });
      const svc = c.get("services");
      const results = lines.length === 1 ? [await checkEmail(svc, lines[0] ?? "")] : (await checkEmailBatch(svc, lines)).results;
      return page(c, { emails: raw, result: <EmailResults results={results} /> });
    } catch (e) {
      const r = refusal(e);
      if (!r) throw e;
      return page(c, { emails: raw, ...r }, r.status);
    }
  });
  return r;
}
