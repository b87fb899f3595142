/** @jsxImportSource hono/jsx */
// The message audit page: paste a message (or only its headers) or upload an .eml, and see SPF, DKIM,
// DMARC, ARC, one-click unsubscribe and the Gmail, Yahoo and Microsoft bulk-sender tables with the fix
// for each unmet row. Compute-only, so viewers may use it too (docs/decisions.md D2); nothing is stored.
import { type Context, Hono } from "hono";
import type { FC } from "hono/jsx";
import type { AppEnv } from "../context";
import type { MessageAudit, ProviderTable } from "../core/message-audit";
import { readBodyCapped } from "../lib/body";
import { ApiError, badRequest } from "../lib/errors";
import { MAX_MESSAGE_BYTES } from "../services/dkim-tools/verify";
import { auditRawMessage } from "../services/message-audit/audit";
import { fieldMessages, StatusBadge } from "./domain-format";
import { frameOf } from "./frame";
import { checkCsrf, signedInOrRedirect } from "./guard";
import { CsrfField, type Frame, Layout, Notice } from "./layout";
import { meterPage } from "./meter";

const PATH = "/tools/message-audit";
/** A pasted message and an uploaded one may both be sent; each is held to the cap afterwards. */
const FORM_CAP = MAX_MESSAGE_BYTES * 2 + 64 * 1024;
const FIELDS = ["ip", "helo", "mail_from", "trusted_authserv_id"] as const;
type Values = Partial<Record<(typeof FIELDS)[number] | "message", string>>;

const AuditForm: FC<{ frame: Frame; values: Values }> = ({ frame, values }) => (
  <section class="panel" aria-labelledby="audit-form-h">
    <h2 id="audit-form-h">Audit a message</h2>
    <form method="post" action={PATH} enctype="multipart/form-data">
      <CsrfField csrf={frame.csrf} />
      <label for="audit-message">Raw message or its headers (as shown by "Show original"; at most 1 MB)</label>
      <textarea id="audit-message" name="message">
        {values.message ?? ""}
      </textarea>
      <label for="audit-file">…or upload an .eml file</label>
      <input id="audit-file" name="eml" type="file" accept=".eml,message/rfc822,text/plain" />
      <div class="row">
        <div>
          <label for="audit-authserv">Your receiving server (authserv-id, e.g. mx.google.com)</label>
          <input id="audit-authserv" name="trusted_authserv_id" type="text" maxlength={255} value={values.trusted_authserv_id ?? ""} />
        </div>
        <div>
          <label for="audit-ip">Connecting IP (optional)</label>
          <input id="audit-ip" name="ip" type="text" maxlength={64} value={values.ip ?? ""} />
        </div>
        <div>
          <label for="audit-helo">HELO name (optional)</label>
          <input id="audit-helo" name="helo" type="text" maxlength={255} value={values.helo ?? ""} />
        </div>
        <div>
          <label for="audit-mailfrom">MAIL FROM (optional; &lt;&gt; for a bounce)</label>
          <input id="audit-mailfrom" name="mail_from" type="text" maxlength={320} value={values.mail_from ?? ""} />
        </div>
      </div>
      <button type="submit">Audit</button>
    </form>
  </section>
);

const STATE: Record<string, [string, string]> = { met: ["ok", "met"], not_met: ["bad", "not met"], cannot_tell: ["warn", "cannot tell"] };
const LEVEL: Record<string, string> = { required: "required", recommended: "recommended", not_published: "not on its page" };

const ProviderTableView: FC<{ t: ProviderTable }> = ({ t }) => (
  <div class="part">
    <h3 id={`provider-${t.provider}-h`}>
      {t.name}{" "}
      {t.failing === 0 ? <span class="badge ok">no required rule broken</span> : <span class="badge bad">{`${t.failing} required rule(s) broken`}</span>}
    </h3>
    <p class="small muted">
      {`${t.threshold} Source: `}
      <a href={t.source.url} rel="noopener noreferrer">
        {t.source.title}
      </a>
      {` (${t.source.published}).`}
    </p>
    <div class="table-wrap">
      <table id={`provider-${t.provider}`} aria-labelledby={`provider-${t.provider}-h`}>
        <thead>
          <tr>
            <th scope="col">Rule</th>
            <th scope="col">{t.name}</th>
            <th scope="col">This message</th>
            <th scope="col">Why</th>
            <th scope="col">Fix</th>
          </tr>
        </thead>
        <tbody>
          {t.rows.map((r) => {
            const [stateCls, text] = STATE[r.state] ?? ["", r.state];
            // A rule this provider does not require is shown, but not in alarm colours.
            const cls = r.requirement === "required" ? stateCls : "";
            return (
              <tr data-row={r.id} data-state={r.state}>
                <th scope="row">{r.label}</th>
                <td>{LEVEL[r.requirement] ?? r.requirement}</td>
                <td>
                  <span class={`badge ${cls}`}>{text}</span>
                </td>
                <td class="small wrap">{r.detail}</td>
                <td class="small wrap">{r.fix ?? "—"}</td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </div>
  </div>
);

const SOURCE: Record<string, string> = {
  input: "as given",
  "authentication-results": "from your receiver's Authentication-Results",
  received: "from the Received field",
  "return-path": "from Return-Path",
  none: "unknown",
};

const Verdicts: FC<{ a: MessageAudit }> = ({ a }) => {
  const spfCheck = a.spf.identity === "helo" ? a.spf.helo : a.spf.mail_from;
  return (
    <section class="panel" aria-labelledby="verdicts-h">
      <h2 id="verdicts-h">Verdicts</h2>
      <dl class="fields">
        <dt>Envelope</dt>
        <dd>
          {FIELDS.slice(0, 3).map((k) => {
            const v = a.envelope[k as "ip" | "helo" | "mail_from"];
            return <div class="small">{`${k}: ${v.value === null ? "—" : v.value === "" ? "<> (null)" : v.value} (${SOURCE[v.source] ?? v.source})`}</div>;
          })}
          {a.envelope.notes.map((n) => (
            <div class="small muted">{n}</div>
          ))}
        </dd>
        <dt>SPF</dt>
        <dd id="verdict-spf">
          <StatusBadge status={a.spf.result === "not_checked" ? "not checked" : a.spf.result} />{" "}
          {a.spf.result === "not_checked" ? a.spf.reason : `${a.spf.domain} (${a.spf.identity}): ${spfCheck?.reason ?? ""}`}
          {spfCheck && spfCheck.path.length > 1 && <div class="small muted">{`Path: ${spfCheck.path.map((p) => p.domain).join(" → ")}`}</div>}
        </dd>
        <dt>DKIM</dt>
        <dd id="verdict-dkim">
          <StatusBadge status={a.dkim.result} />{" "}
          {a.dkim.signatures.length === 0
            ? "no signature"
            : a.dkim.signatures.map((s) => `d=${s.domain ?? "?"} s=${s.selector ?? "?"}: ${s.result}`).join("; ")}
        </dd>
        <dt>DMARC</dt>
        <dd id="verdict-dmarc">
          <StatusBadge status={a.dmarc.result} /> {a.dmarc.reason}
          <div class="small">{`Disposition: ${a.dmarc.disposition}. ${a.dmarc.disposition_rule}`}</div>
          {a.dmarc.policy && <div class="small mono wrap">{`_dmarc.${a.dmarc.policy.domain}: ${a.dmarc.policy.record}`}</div>}
        </dd>
        <dt>ARC</dt>
        <dd id="verdict-arc">
          <StatusBadge status={a.arc.result} />{" "}
          {a.arc.sets.length === 0 ? "no ARC sets" : `${a.arc.sets.length} set(s)${a.arc.broken_at !== null ? `; broken at instance ${a.arc.broken_at}` : ""}`}
          {a.arc.sets.map((s) => (
            <div class="small">{`i=${s.instance}: AMS d=${s.ams.domain ?? "?"} ${s.ams.result}, AS d=${s.as.domain ?? "?"} ${s.as.result} (cv=${s.as.cv})`}</div>
          ))}
          <div class="small">{a.arc.override.explanation}</div>
        </dd>
        <dt>One-click unsubscribe</dt>
        <dd id="verdict-oneclick">
          <StatusBadge status={a.one_click.status} /> {a.one_click.problems.join("; ") || (a.one_click.https_uri ?? "")}
        </dd>
        <dt>Reverse DNS</dt>
        <dd>{a.reverse_dns ? a.reverse_dns.reason : "the connecting IP is unknown"}</dd>
        <dt>TLS</dt>
        <dd>{a.tls.detail}</dd>
        <dt>BIMI</dt>
        <dd>
          {a.bimi.eligible === true ? "eligible" : a.bimi.eligible === false ? "not eligible" : "cannot tell"}
          {a.bimi.problems.length > 0 && `: ${a.bimi.problems.join("; ")}`}
        </dd>
      </dl>
      {a.warnings.length > 0 && (
        <ul class="findings">
          {a.warnings.map((w) => (
            <li>{w}</li>
          ))}
        </ul>
      )}
    </section>
  );
};

async function page(c: Context<AppEnv>, values: Values, body: { audit?: MessageAudit; errors?: string[] }, status = 200) {
  const frame = await frameOf(c);
  return c.html(
    <Layout title="Message audit" frame={frame} active={PATH}>
      <h1>Message audit</h1>
      <p class="small">
        See a message as Gmail, Yahoo and Microsoft judge it: SPF, DKIM, DMARC, ARC and their bulk-sender rules, with the record or header to change. Nothing is
        stored.
      </p>
      {body.errors && body.errors.length > 0 && (
        <Notice kind="bad">
          <ul class="plain">
            {body.errors.map((e) => (
              <li>{e}</li>
            ))}
          </ul>
        </Notice>
      )}
      {body.audit && <Verdicts a={body.audit} />}
      {body.audit && (
        <section class="panel" aria-labelledby="providers-h">
          <h2 id="providers-h">Bulk-sender requirements</h2>
          {body.audit.providers.map((t) => (
            <ProviderTableView t={t} />
          ))}
        </section>
      )}
      <AuditForm frame={frame} values={values} />
    </Layout>,
    status as 200,
  );
}

/** The form: multipart (the file needs it); a pasted message and a file are both read, the file wins. */
async function readAuditForm(c: Context<AppEnv>): Promise<{ values: Values; message: string | Uint8Array }> {
  const type = c.req.header("content-type") ?? "";
  if (!/^multipart\/form-data\s*;/i.test(type)) throw badRequest("Send the form as multipart/form-data.");
  const bytes = await readBodyCapped(c.req.raw, FORM_CAP);
  let form: FormData;
  try {
    form = await new Response(bytes, { headers: { "content-type": type } }).formData();
  } catch {
    throw badRequest("The form could not be read.");
  }
  const text = (k: string) => {
    const v = form.get(k);
    return typeof v === "string" ? v : "";
  };
  checkCsrf(c, text("_csrf"));
  const values: Values = { message: text("message") };
  for (const k of FIELDS) values[k] = text(k);
  const file = form.get("eml");
  if (file !== null && typeof file !== "string" && file.size > 0) {
    if (file.size > MAX_MESSAGE_BYTES) throw new ApiError(413, "payload_too_large", `The file must be at most ${MAX_MESSAGE_BYTES} bytes.`);
    return { values: { ...values, message: "" }, message: new Uint8Array(await file.arrayBuffer()) };
  }
  if ((values.message ?? "").trim() === "")
    throw new ApiError(422, "validation_failed", "Paste a message or choose an .eml file.", { message: ["must not be empty"] });
  return { values, message: values.message ?? "" };
}

export function messageAuditPages() {
  const r = new Hono<AppEnv>();
  r.get(PATH, async (c) => {
    const s = signedInOrRedirect(c);
    if (s instanceof Response) return s;
    return page(c, {}, {});
  });
  r.post(PATH, async (c) => {
    const s = signedInOrRedirect(c);
    if (s instanceof Response) return s;
    let values: Values = {};
    try {
      const form = await readAuditForm(c);
      values = form.values;
      await meterPage(c, s);
      const blank = (v: string | undefined) => (v === undefined || v.trim() === "" ? undefined : v);
      const audit = await auditRawMessage(c.get("services"), {
        message: form.message,
        ip: blank(values.ip),
        helo: blank(values.helo),
        mail_from: blank(values.mail_from),
        trusted_authserv_id: blank(values.trusted_authserv_id),
      });
      return page(c, values, { audit });
    } catch (e) {
      if (!(e instanceof ApiError) || (e.status !== 422 && e.status !== 413)) throw e;
      return page(c, e.status === 413 ? { ...values, message: "" } : values, { errors: [e.message, ...fieldMessages(e)] }, e.status);
    }
  });
  return r;
}
