/** @jsxImportSource hono/jsx */
// The hosted BIMI page of a domain (issue 32 §2, §3): whether Gmail would show the logo, requirement by
// requirement with the fix; a preview of the hosted logo as inboxes crop it (circle and square), drawn by
// <img> from the public URL so the SVG runs nothing; the TXT record to publish and what DNS answers for it now;
// logo and certificate uploads (files through multipart forms, or a certificate URL); stop hosting.
import { type Context, Hono } from "hono";
import type { FC } from "hono/jsx";
import { linkOrigin } from "../config";
import type { AppEnv } from "../context";
import { readBodyCapped } from "../lib/body";
import { ApiError, badRequest, payloadTooLarge } from "../lib/errors";
import { CERTIFICATE_MAX_BYTES, putCertificate } from "../services/bimi-hosting/certificate";
import { deleteBimiHosting } from "../services/bimi-hosting/delete";
import { LOGO_MAX_BYTES, putLogo } from "../services/bimi-hosting/logo";
import { type BimiHostingView, getBimiHosting } from "../services/bimi-hosting/state";
import type { SignedIn } from "../services/accounts/sessions";
import { Copyable, fieldMessages, when } from "./domain-format";
import { frameOf } from "./frame";
import { checkCsrf, signedInOrRedirect } from "./guard";
import { CsrfField, type Frame, Layout, Notice, Problems } from "./layout";
import { idParam } from "./params";

/** Room for the boundaries, part headers, the CSRF and selector fields around the file. */
const ENVELOPE_BYTES = 16 * 1024;
const STATE: Record<string, [string, string]> = { met: ["ok", "met"], not_met: ["bad", "not met"], cannot_tell: ["warn", "cannot tell"] };
const VERDICT: Record<string, [string, string]> = {
  shows: ["ok", "Gmail would show the logo"],
  does_not_show: ["bad", "Gmail would not show the logo"],
  cannot_tell: ["warn", "Cannot tell yet"],
};
const SAVED: Record<string, string> = {
  logo: "The logo is uploaded and served.",
  certificate: "The certificate is uploaded and validated; the report is below.",
  deleted: "Hosting stopped: the logo and certificate URLs now answer 404.",
};

const pagePath = (id: number, selector: string, extra = "") =>
  `/domains/${id}/hosting/bimi${extra}${selector === "default" ? "" : `${extra.includes("?") ? "&" : "?"}selector=${encodeURIComponent(selector)}`}`;

const Gmail: FC<{ v: BimiHostingView }> = ({ v }) => {
  const [cls, text] = VERDICT[v.gmail.verdict] ?? ["", v.gmail.verdict];
  return (
    <section class="panel" aria-labelledby="gmail-h">
      <h2 id="gmail-h">
        Would Gmail show the logo? <span class={`badge ${cls}`}>{text}</span>
      </h2>
      <p id="gmail-summary">{v.gmail.summary}</p>
      <div class="table-wrap">
        <table id="gmail-requirements" class="stack" aria-labelledby="gmail-h">
          <thead>
            <tr>
              <th scope="col">Gmail requires</th>
              <th scope="col">State</th>
              <th scope="col">Why</th>
              <th scope="col">Fix</th>
            </tr>
          </thead>
          <tbody>
            {v.gmail.requirements.map((r) => {
              const [c, t] = STATE[r.state] ?? ["", r.state];
              return (
                <tr data-row={r.id} data-state={r.state}>
                  <th scope="row">{r.label}</th>
                  <td data-label="State">
                    <span class={`badge ${c}`}>{t}</span>
                  </td>
                  <td data-label="Why" class="small break">
                    {r.detail}
                  </td>
                  <td data-label="Fix" class="small break">
                    {r.fix ?? "—"}
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      </div>
      <p class="small muted">
        {"Sources: "}
        {v.gmail.sources.map((s, i) => (
          <>
            {i > 0 && "; "}
            <a href={s.url} rel="noopener noreferrer">
              {s.title}
            </a>
          </>
        ))}
        .
      </p>
    </section>
  );
};

const Preview: FC<{ v: BimiHostingView; src: string }> = ({ v, src }) => (
  <section class="panel" aria-labelledby="preview-h">
    <h2 id="preview-h">Preview</h2>
    <p class="small muted">How inboxes crop the logo: a circle (Gmail, Apple Mail) and a rounded square (Yahoo), at list and message sizes.</p>
    <div class="logo-preview" id="logo-preview">
      <figure>
        <img class="circle large" src={src} alt={`${v.domain.name} logo in a circle`} />
        <figcaption class="small">Circle</figcaption>
      </figure>
      <figure>
        <img class="square large" src={src} alt={`${v.domain.name} logo in a square`} />
        <figcaption class="small">Square</figcaption>
      </figure>
      <figure>
        <img class="circle" src={src} alt={`${v.domain.name} logo, small circle`} />
        <figcaption class="small">Inbox list</figcaption>
      </figure>
    </div>
    {v.logo && <p class="small mono break">{`SHA-256 ${v.logo.sha256} · ${v.logo.bytes} bytes · uploaded ${when(v.logo.uploaded_at)}`}</p>}
  </section>
);

const Record: FC<{ v: BimiHostingView }> = ({ v }) => {
  const p = v.published;
  return (
    <section class="panel" aria-labelledby="record-h">
      <h2 id="record-h">Record to publish</h2>
      {v.record ? (
        <>
          <p>
            A TXT record at <span class="mono break">{v.record.host}</span>:
          </p>
          <Copyable value={v.record.value} label="BIMI record" />
        </>
      ) : (
        <p>The service's public address (SITE_URL) is not configured, so the URLs to publish are not known. Ask the operator to set it.</p>
      )}
      <h3>What DNS answers now</h3>
      <p id="record-live" class="break">
        {p === null || p.status === "temperror" ? (
          "The lookup failed just now; reload the page to try again."
        ) : p.record === null ? (
          "No BIMI record is published yet."
        ) : (
          <>
            {p.from_org_domain && (
              <>
                No record at <span class="mono">{v.record?.host ?? `${v.selector}._bimi.${v.domain.name}`}</span>; receivers use the Organizational Domain's at{" "}
                <span class="mono">{p.host}</span>:{" "}
              </>
            )}
            <span class="mono">{p.record}</span>
            {p.status === "invalid" && " (not a valid BIMI record: receivers ignore it)"}
          </>
        )}
      </p>
    </section>
  );
};

const CertificateReportView: FC<{ v: BimiHostingView }> = ({ v }) => {
  const c = v.validation?.certificate;
  if (!c) return <p class="muted">No certificate is uploaded.</p>;
  return (
    <>
      <p id="certificate-summary">
        <span class={`badge ${c.valid ? "ok" : "bad"}`}>{c.valid ? "valid" : "not valid"}</span>{" "}
        {`${c.kind ?? "Unknown kind"} · ${c.subject.organization ?? c.subject.common_name ?? "—"} · issued by ${c.issuer ?? "—"} · valid ${when(c.not_before)} to ${when(c.not_after)}`}
        {v.certificate?.source_url && <span class="small muted break">{` · fetched from ${v.certificate.source_url}`}</span>}
      </p>
      <div class="table-wrap">
        <table id="certificate-checks" class="stack" aria-label="Certificate checks">
          <thead>
            <tr>
              <th scope="col">Check</th>
              <th scope="col">Result</th>
              <th scope="col">Detail</th>
              <th scope="col">Fix</th>
            </tr>
          </thead>
          <tbody>
            {c.checks.map((x) => (
              <tr data-check={x.id}>
                <th scope="row" class="mono small">
                  {x.id}
                </th>
                <td data-label="Result">
                  <span class={`badge ${x.ok === true ? "ok" : x.ok === false && x.blocking ? "bad" : "warn"}`}>
                    {x.ok === true ? "ok" : x.ok === false ? (x.blocking ? "failed" : "note") : "cannot tell"}
                  </span>
                </td>
                <td data-label="Detail" class="small break">
                  {x.message}
                </td>
                <td data-label="Fix" class="small break">
                  {x.fix ?? "—"}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </>
  );
};

const Forms: FC<{ v: BimiHostingView; frame: Frame }> = ({ v, frame }) => {
  const id = v.domain.id;
  const sel = <input type="hidden" name="selector" value={v.selector} />;
  return (
    <>
      <section class="panel" aria-labelledby="logo-h">
        <h2 id="logo-h">Logo</h2>
        <p class="small">SVG Tiny PS, at most 32 KB: a square view box, a title, no scripts, no external references, no raster images.</p>
        {(v.validation?.logo?.findings ?? []).length > 0 && (
          <ul class="findings small">
            {v.validation?.logo?.findings.map((f) => (
              <li>{`${f.description}${f.fix ? ` ${f.fix}` : ""}`}</li>
            ))}
          </ul>
        )}
        <form method="post" action={pagePath(id, v.selector, "/logo")} enctype="multipart/form-data">
          <CsrfField csrf={frame.csrf} />
          {sel}
          <label for="bimi-logo">{v.logo ? "Replace the logo (.svg)" : "Logo file (.svg)"}</label>
          <input id="bimi-logo" name="logo" type="file" accept=".svg,image/svg+xml" required />
          <button type="submit">Upload logo</button>
        </form>
      </section>
      <section class="panel" aria-labelledby="cert-h">
        <h2 id="cert-h">Mark certificate (VMC or CMC)</h2>
        <CertificateReportView v={v} />
        <form method="post" action={pagePath(id, v.selector, "/certificate")} enctype="multipart/form-data">
          <CsrfField csrf={frame.csrf} />
          {sel}
          <label for="bimi-cert">Certificate file (.pem: your certificate first, then the intermediates)</label>
          <input id="bimi-cert" name="certificate" type="file" accept=".pem,.crt,application/pem-certificate-chain,application/x-pem-file" />
          <label for="bimi-cert-url">…or the https URL your issuer gave for it</label>
          <input id="bimi-cert-url" name="url" type="url" maxlength={2048} placeholder="https://" />
          <button type="submit">Upload certificate</button>
        </form>
      </section>
      {v.hosted && (
        <section class="panel" aria-labelledby="stop-h">
          <h2 id="stop-h">Stop hosting</h2>
          <p class="small">Remove or change the BIMI record first: once stopped, the logo and certificate URLs answer 404.</p>
          <form method="post" action={pagePath(id, v.selector, "/delete")}>
            <CsrfField csrf={frame.csrf} />
            {sel}
            <button type="submit" class="danger">
              Stop hosting
            </button>
          </form>
        </section>
      )}
    </>
  );
};

async function page(c: Context<AppEnv>, s: SignedIn, id: number, selector: string | undefined, notes: { saved?: string; errors?: string[] }, status = 200) {
  const svc = c.get("services");
  const v = await getBimiHosting(svc, s.ctx, id, { selector, origin: linkOrigin(svc.config, c.req.url) });
  const frame = await frameOf(c);
  // The preview reads the public URL on this same origin (the page's CSP allows only 'self' images).
  const src = `/bimi/${v.domain.name}/${v.selector}.svg${v.logo ? `?v=${v.logo.sha256.slice(0, 12)}` : ""}`;
  return c.html(
    <Layout title={`BIMI hosting for ${v.domain.name}`} frame={frame} active="/domains">
      <p class="small">
        <a href={`/domains/${v.domain.id}`}>{v.domain.name}</a>
        {" · "}
        <a href={`/domains/${v.domain.id}/hosting`}>Hosting</a>
      </p>
      <h1 class="break">{`BIMI logo hosting for ${v.domain.name}`}</h1>
      <p class="small muted">
        {`This service serves your logo for l= and your mark certificate for a=, checks them the way receivers do, and says what Gmail still needs. Selector: ${v.selector}.`}
      </p>
      {notes.saved && SAVED[notes.saved] && (
        <Notice kind="ok" id="saved">
          {SAVED[notes.saved]}
        </Notice>
      )}
      <Problems id="upload-errors" lines={notes.errors} />
      {!v.domain.verified && <Notice kind="info">Verify the domain's ownership record before uploading a logo.</Notice>}
      <Gmail v={v} />
      {v.logo && <Preview v={v} src={src} />}
      <Record v={v} />
      {s.ctx.scope === "full" ? (
        <Forms v={v} frame={frame} />
      ) : (
        <p class="muted">Viewers can read this page; an admin or the owner uploads the logo and certificate.</p>
      )}
    </Layout>,
    status as 200,
  );
}

/** The multipart form: its text fields and the one file, each held to its cap (413 names the limit). */
async function readUpload(c: Context<AppEnv>, field: string, cap: number): Promise<{ text: (k: string) => string; file: Uint8Array | null }> {
  const type = c.req.header("content-type") ?? "";
  if (!/^multipart\/form-data\s*;/i.test(type)) throw badRequest("Send the form as multipart/form-data.");
  const bytes = await readBodyCapped(c.req.raw, cap + ENVELOPE_BYTES);
  let form: FormData;
  try {
    form = await new Response(bytes, { headers: { "content-type": type } }).formData();
  } catch {
    throw badRequest("The upload form could not be read.");
  }
  const text = (k: string) => {
    const v = form.get(k);
    return typeof v === "string" ? v : "";
  };
  checkCsrf(c, text("_csrf"));
  const f = form.get(field);
  if (f === null || typeof f === "string" || f.size === 0) return { text, file: null };
  if (f.size > cap) throw payloadTooLarge(`The file is ${f.size} bytes; at most ${cap} bytes are accepted.`);
  return { text, file: new Uint8Array(await f.arrayBuffer()) };
}

type Upload = (c: Context<AppEnv>, s: SignedIn, id: number) => Promise<{ selector: string }>;

/** Runs an upload; success goes back to the page (303), a refusal re-renders it with every message and the status. */
function uploadRoute(what: "logo" | "certificate", run: Upload) {
  return async (c: Context<AppEnv>) => {
    const s = signedInOrRedirect(c);
    if (s instanceof Response) return s;
    const id = idParam(c.req.param("id"));
    const selector = c.req.query("selector");
    try {
      const done = await run(c, s, id);
      return c.redirect(pagePath(id, done.selector, `?saved=${what}`), 303);
    } catch (e) {
      if (!(e instanceof ApiError) || (e.status !== 422 && e.status !== 413 && e.status !== 409)) throw e;
      return page(c, s, id, selector, { errors: [e.message, ...fieldMessages(e).map((m) => m.replace(/^(svg|pem|url|selector): /, ""))] }, e.status);
    }
  };
}

export function bimiHostingPages() {
  const r = new Hono<AppEnv>();
  r.get("/domains/:id/hosting/bimi", async (c) => {
    const s = signedInOrRedirect(c);
    if (s instanceof Response) return s;
    return page(c, s, idParam(c.req.param("id")), c.req.query("selector"), { saved: c.req.query("saved") });
  });
  r.post(
    "/domains/:id/hosting/bimi/logo",
    uploadRoute("logo", async (c, s, id) => {
      const form = await readUpload(c, "logo", LOGO_MAX_BYTES);
      if (form.file === null) throw new ApiError(422, "validation_failed", "Choose an SVG file to upload.", { logo: ["choose an .svg file"] });
      const svc = c.get("services");
      const v = await putLogo(svc, s.ctx, id, { selector: form.text("selector") || null, svg: form.file, origin: null });
      return { selector: v.selector };
    }),
  );
  r.post(
    "/domains/:id/hosting/bimi/certificate",
    uploadRoute("certificate", async (c, s, id) => {
      const form = await readUpload(c, "certificate", CERTIFICATE_MAX_BYTES);
      const url = form.text("url").trim();
      const pem = form.file ? new TextDecoder().decode(form.file) : null;
      if (pem === null && url === "")
        throw new ApiError(422, "validation_failed", "Choose a certificate file or give its URL.", { certificate: ["choose a .pem file or give a URL"] });
      const v = await putCertificate(c.get("services"), s.ctx, id, {
        selector: form.text("selector") || null,
        pem,
        url: pem === null ? url : null,
        origin: null,
      });
      return { selector: v.selector };
    }),
  );
  r.post("/domains/:id/hosting/bimi/delete", async (c) => {
    const s = signedInOrRedirect(c);
    if (s instanceof Response) return s;
    const id = idParam(c.req.param("id"));
    const body = new URLSearchParams(new TextDecoder().decode(await readBodyCapped(c.req.raw, 4096)));
    checkCsrf(c, body.get("_csrf"));
    await deleteBimiHosting(c.get("services"), s.ctx, id, { selector: body.get("selector") || null });
    return c.redirect(pagePath(id, body.get("selector") || "default", "?saved=deleted"), 303);
  });
  return r;
}
