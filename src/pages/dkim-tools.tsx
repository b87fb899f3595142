/** @jsxImportSource hono/jsx */
// The stateless DKIM tools: look up selectors of any domain, verify a pasted message, generate a key
// pair. Compute-only, so viewers may use them too (docs/decisions.md D2). A generated private key is
// shown once and offered as a download built in the page (a data: URL); it is never stored or logged.
import { type Context, Hono } from "hono";
import type { FC } from "hono/jsx";
import type { AppEnv } from "../context";
import type { GeneratedKey, SelectorScan, VerifyReport } from "../core/dkim";
import { ApiError } from "../lib/errors";
import { generateDkimKey } from "../services/dkim-tools/generate";
import { KEY_ALGORITHMS } from "../services/dkim-tools/inputs";
import { lookupDkim } from "../services/dkim-tools/lookup";
import { MAX_MESSAGE_BYTES, verifyDkimMessage } from "../services/dkim-tools/verify";
import { Copyable, fieldMessages, plural, SeverityBadge, StatusBadge } from "./domain-format";
import { frameOf } from "./frame";
import { checkCsrf, readForm, signedInOrRedirect } from "./guard";
import { type Frame, CsrfField, Layout, Notice } from "./layout";
import { meterPage } from "./meter";

/** A form-encoded message grows up to three times (percent-encoding), plus the other fields. */
const VERIFY_FORM_CAP = MAX_MESSAGE_BYTES * 3 + 4096;

type Algorithm = (typeof KEY_ALGORITHMS)[number];

export const ToolForms: FC<{ frame: Frame; values?: Record<string, string> }> = ({ frame, values = {} }) => (
  <section class="panel" id="tools" aria-labelledby="tools-h">
    <h2 id="tools-h">DKIM tools</h2>
    <form method="get" action="/dkim/lookup">
      <h3>Look up selectors</h3>
      <div class="row">
        <div>
          <label for="lookup-domain">Domain</label>
          <input id="lookup-domain" name="domain" type="text" required maxlength={300} value={values.domain ?? ""} placeholder="example.com" />
        </div>
        <div>
          <label for="lookup-selectors">Selectors (comma-separated; empty scans common ones)</label>
          <input id="lookup-selectors" name="selectors" type="text" maxlength={6000} value={values.selectors ?? ""} placeholder="s1, google" />
        </div>
        <div>
          <button type="submit">Look up</button>
        </div>
      </div>
    </form>
    <form method="post" action="/dkim/verify">
      <h3>Verify a message</h3>
      <CsrfField csrf={frame.csrf} />
      <label for="verify-message">Raw message (headers and body, at most 1 MB)</label>
      <textarea id="verify-message" name="message" required>
        {values.message ?? ""}
      </textarea>
      <button type="submit">Verify signatures</button>
    </form>
    <form method="post" action="/dkim/generate">
      <h3>Generate a key pair</h3>
      <CsrfField csrf={frame.csrf} />
      <div class="row">
        <div>
          <label for="gen-domain">Domain</label>
          <input id="gen-domain" name="domain" type="text" required maxlength={300} value={values.gen_domain ?? ""} placeholder="example.com" />
        </div>
        <div>
          <label for="gen-selector">Selector</label>
          <input id="gen-selector" name="selector" type="text" required maxlength={253} value={values.gen_selector ?? ""} placeholder="mail2026" />
        </div>
        <div>
          <label for="gen-algorithm">Algorithm</label>
          <select id="gen-algorithm" name="algorithm">
            {KEY_ALGORITHMS.map((a) => (
              <option value={a} selected={(values.algorithm ?? "rsa-2048") === a}>
                {a}
              </option>
            ))}
          </select>
        </div>
        <div>
          <button type="submit">Generate</button>
        </div>
      </div>
    </form>
  </section>
);

const LookupResult: FC<{ scan: SelectorScan }> = ({ scan }) => (
  <section class="panel" aria-labelledby="lookup-h">
    <h2 id="lookup-h">{`Selectors of ${scan.domain}`}</h2>
    <p>
      <StatusBadge status={scan.status === "found" ? "pass" : scan.status} /> {scan.summary}
    </p>
    {scan.wildcard && <Notice kind="info">The zone answers any selector (a wildcard): these results cannot be trusted.</Notice>}
    {scan.wildcardUnknown && <Notice kind="info">The wildcard probe failed, so whether the zone answers any selector is unknown.</Notice>}
    {Object.keys(scan.selectors).length > 0 && (
      <div class="table-wrap">
        <table>
          <thead>
            <tr>
              <th scope="col">Selector</th>
              <th scope="col">Status</th>
              <th scope="col">Key</th>
              <th scope="col">Provider</th>
              <th scope="col">Record</th>
            </tr>
          </thead>
          <tbody>
            {Object.entries(scan.selectors).map(([name, e]) => (
              <tr>
                <td>{name}</td>
                <td>
                  <StatusBadge status={e.status} />
                </td>
                <td>{e.key ? `${e.key.type}${e.key.bits ? ` ${e.key.bits}` : ""}` : "—"}</td>
                <td>{e.provider ?? (e.delegated_to ? `via ${e.delegated_to}` : "—")}</td>
                <td class="mono wrap small">{e.record ?? "—"}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    )}
    <p class="small muted">{`${plural(scan.scanned, "selector")} looked up; ${Object.keys(scan.missing).length} not published.`}</p>
    <ul class="findings">
      {scan.issues.map((f) => (
        <li>
          <SeverityBadge severity={f.severity} /> {f.description}
        </li>
      ))}
    </ul>
  </section>
);

const VerifyResult: FC<{ report: VerifyReport }> = ({ report }) => (
  <section class="panel" aria-labelledby="verify-h">
    <h2 id="verify-h">
      DKIM result <StatusBadge status={report.result} />
    </h2>
    <p>{`From domain: ${report.from_domain ?? "none"}; ${report.aligned ? "a passing signature is aligned with it" : "no passing signature aligned with it"}.`}</p>
    {report.signatures.length === 0 && <p class="muted">The message carries no DKIM-Signature.</p>}
    {report.signatures.map((sig, i) => (
      <div class="part">
        <h3>
          {`Signature ${i + 1}: d=${sig.domain ?? "?"} s=${sig.selector ?? "?"}`} <StatusBadge status={sig.result} />
        </h3>
        <dl class="fields compact">
          <dt>Algorithm</dt>
          <dd>{sig.algorithm ?? "—"}</dd>
          <dt>Body hash</dt>
          <dd>{sig.body_hash ?? "—"}</dd>
          <dt>Key</dt>
          <dd>{sig.key ? `${sig.key.type}${sig.key.bits ? ` ${sig.key.bits}` : ""}` : "—"}</dd>
          <dt>Alignment</dt>
          <dd>{sig.alignment}</dd>
          <dt>Reason</dt>
          <dd>{sig.reason ?? "—"}</dd>
        </dl>
      </div>
    ))}
    {report.warnings.length > 0 && (
      <ul class="findings">
        {report.warnings.map((w) => (
          <li>{w}</li>
        ))}
      </ul>
    )}
  </section>
);

const GenerateResult: FC<{ generated: GeneratedKey }> = ({ generated: key }) => {
  const file = `${key.selector}.${key.domain}.private.pem`;
  return (
    <section class="panel" aria-labelledby="gen-h">
      <h2 id="gen-h">{`New ${key.algorithm} key for ${key.selector}._domainkey.${key.domain}`}</h2>
      <Notice kind="info">The private key is shown only now and is not kept anywhere: download or copy it before you leave this page.</Notice>
      <h3>Publish this TXT record</h3>
      <dl class="fields">
        <dt>Host</dt>
        <dd>
          <Copyable value={key.dns.host} label="DKIM record host" />
        </dd>
        <dt>Type</dt>
        <dd>
          <code>TXT</code>
        </dd>
        <dt>Value</dt>
        <dd>
          <Copyable value={key.dns.value} label="DKIM record value" />
        </dd>
      </dl>
      <p class="small muted wrap">{`Fingerprint ${key.fingerprint}; ${key.key_bits} bits.`}</p>
      <h3>Private key</h3>
      <pre id="private-key">{key.private_key_pem}</pre>
      <p>
        <a class="button" href={`data:application/x-pem-file;base64,${btoa(key.private_key_pem)}`} download={file}>
          {`Download ${file}`}
        </a>{" "}
        <button type="button" class="secondary" data-copy={key.private_key_pem}>
          Copy private key
        </button>
      </p>
    </section>
  );
};

async function toolsPage(
  c: Context<AppEnv>,
  body: { values?: Record<string, string>; errors?: string[]; dnsFailed?: boolean; result?: unknown },
  status = 200,
) {
  const frame = await frameOf(c);
  return c.html(
    <Layout title="DKIM tools" frame={frame} active="/dkim">
      <h1>DKIM tools</h1>
      <p class="small">
        <a href="/dkim">Back to the selector inventory</a>
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
      {body.dnsFailed && (
        <Notice kind="bad">No DNS resolver answered, so nothing could be looked up. This says nothing about the records; try again shortly.</Notice>
      )}
      {body.result as never}
      <ToolForms frame={frame} values={body.values} />
    </Layout>,
    status as 200,
  );
}

/** A refusal the form can show next to the inputs (bad input, too large, DNS down); anything else is an error page. */
function shown(e: unknown): { errors?: string[]; dnsFailed?: boolean; status: number } | null {
  if (!(e instanceof ApiError)) return null;
  if (e.status === 503) return { dnsFailed: true, status: 503 };
  if (e.status === 422 || e.status === 413) return { errors: e.errors ? fieldMessages(e) : [e.message], status: e.status };
  return null;
}

export function dkimToolPages() {
  const r = new Hono<AppEnv>();

  r.get("/dkim/lookup", async (c) => {
    const s = signedInOrRedirect(c);
    if (s instanceof Response) return s;
    const domain = c.req.query("domain") ?? "";
    const selectors = c.req.query("selectors")?.trim() ?? "";
    const values = { domain, selectors };
    await meterPage(c, s);
    try {
      const scan = await lookupDkim(c.get("services"), { domain: domain.slice(0, 300), selectors: selectors === "" ? undefined : selectors.slice(0, 6000) });
      return toolsPage(c, { values, result: <LookupResult scan={scan} /> });
    } catch (e) {
      const refusal = shown(e);
      if (!refusal) throw e;
      return toolsPage(c, { values, ...refusal }, refusal.status);
    }
  });

  r.post("/dkim/verify", async (c) => {
    const s = signedInOrRedirect(c);
    if (s instanceof Response) return s;
    const form = await readForm(c, VERIFY_FORM_CAP);
    checkCsrf(c, form.get("_csrf"));
    await meterPage(c, s);
    const message = form.get("message") ?? "";
    try {
      if (message.trim() === "") throw new ApiError(422, "validation_failed", "Paste a message.", { message: ["must not be empty"] });
      const report = await verifyDkimMessage(c.get("services"), message);
      return toolsPage(c, { values: { message }, result: <VerifyResult report={report} /> });
    } catch (e) {
      const refusal = shown(e);
      if (!refusal) throw e;
      return toolsPage(c, { values: { message: refusal.status === 413 ? "" : message }, ...refusal }, refusal.status);
    }
  });

  r.post("/dkim/generate", async (c) => {
    const s = signedInOrRedirect(c);
    if (s instanceof Response) return s;
    const form = await readForm(c);
    checkCsrf(c, form.get("_csrf"));
    await meterPage(c, s);
    const values = { gen_domain: form.get("domain") ?? "", gen_selector: form.get("selector") ?? "", algorithm: form.get("algorithm") ?? "" };
    try {
      const algorithm = (KEY_ALGORITHMS as readonly string[]).includes(values.algorithm) ? (values.algorithm as Algorithm) : null;
      if (!algorithm) throw new ApiError(422, "validation_failed", "Choose an algorithm.", { algorithm: [`one of ${KEY_ALGORITHMS.join(", ")}`] });
      const key = await generateDkimKey({ domain: values.gen_domain.slice(0, 300), selector: values.gen_selector.slice(0, 253), algorithm });
      return toolsPage(c, { values, result: <GenerateResult generated={key} /> });
    } catch (e) {
      const refusal = shown(e);
      if (!refusal) throw e;
      return toolsPage(c, { values, ...refusal }, refusal.status);
    }
  });
  return r;
}
