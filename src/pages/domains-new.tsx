/** @jsxImportSource hono/jsx */
// Adding a domain and proving ownership: the form, then the exact TXT record to publish (host, type,
// value, each with a copy button) and "verify now". A lookup that failed is said to have failed, never
// read as "not found yet" (docs/decisions.md D6; a temporary DNS error is not an answer, RFC 7208 §2.6.6).
import { Hono } from "hono";
import type { FC } from "hono/jsx";
import type { AppEnv } from "../context";
import { ApiError } from "../lib/errors";
import { createDomain } from "../services/domains/create-domain";
import { getDomainDetail } from "../services/domains/domain-detail";
import { verifyDomain } from "../services/domains/verify-domain";
import { Copyable, plainMessages } from "./domain-format";
import { frameOf } from "./frame";
import { checkCsrf, readForm, signedInOrRedirect } from "./guard";
import { type Frame, CsrfField, Layout, Notice } from "./layout";
import { idParam } from "./params";
import { meterPage } from "./meter";

const NewDomainPage: FC<{ frame: Frame; name?: string; errors?: string[] }> = ({ frame, name, errors }) => (
  <Layout title="Add a domain" frame={frame} active="/domains">
    <h1>Add a domain</h1>
    {errors && errors.length > 0 && (
      <Notice kind="bad" id="domain-name-error">
        <ul class="plain">
          {errors.map((e) => (
            <li>{e}</li>
          ))}
        </ul>
      </Notice>
    )}
    <section class="panel narrow-left">
      <form method="post" action="/domains">
        <CsrfField csrf={frame.csrf} />
        <label for="domain-name">Domain name</label>
        <input
          id="domain-name"
          name="name"
          type="text"
          required
          maxlength={300}
          value={name ?? ""}
          placeholder="example.com"
          autocomplete="off"
          aria-invalid={errors && errors.length > 0 ? "true" : undefined}
          aria-describedby={errors && errors.length > 0 ? "domain-name-error" : undefined}
        />
        <p class="small muted">Lower case, no trailing dot; international names are stored as punycode.</p>
        <button type="submit">Add domain</button>
      </form>
    </section>
  </Layout>
);

/** A refused name in words: what a domain name looks like, not the parser's rule. */
function nameMessages(e: ApiError, typed: string): string[] {
  if (!e.errors?.name) return plainMessages(e, { name: "Domain name" });
  const shown = typed.trim().slice(0, 80);
  return [
    `${shown ? `"${shown}" is not a domain name we can monitor. ` : ""}Enter a name like example.com: letters, digits and hyphens, with a dot between the parts, no spaces.`,
  ];
}

type Outcome = { kind: "not_found" | "mismatch"; reason: string } | { kind: "dns_failed" };

const VerifyPage: FC<{ frame: Frame; detail: Awaited<ReturnType<typeof getDomainDetail>>; outcome?: Outcome; added?: boolean }> = ({
  frame,
  detail,
  outcome,
  added,
}) => {
  const canWrite = frame.signedIn?.ctx.scope === "full";
  const v = detail.verification;
  return (
    <Layout title={`Verify ${detail.name}`} frame={frame} active="/domains">
      <h1>{`Verify ${detail.name}`}</h1>
      {added && <Notice kind="ok">Domain added. Publish the record below, then verify.</Notice>}
      {outcome?.kind === "dns_failed" && (
        <Notice kind="bad">
          The DNS lookup failed: no resolver answered, so we cannot tell whether the record is there. Nothing changed; try again in a minute.
        </Notice>
      )}
      {outcome && outcome.kind !== "dns_failed" && (
        <Notice kind="bad">{`Not verified yet: ${outcome.reason}. DNS changes can take a few minutes to appear.`}</Notice>
      )}
      {detail.verified ? (
        <Notice kind="ok">
          This domain is verified. <a href={`/domains/${detail.id}`}>See its posture</a>.
        </Notice>
      ) : (
        <section class="panel" aria-labelledby="record-h">
          <h2 id="record-h">Publish this TXT record</h2>
          <dl class="fields">
            <dt>Host</dt>
            <dd>
              <Copyable value={v.host} label="host" />
            </dd>
            <dt>Type</dt>
            <dd>
              <Copyable value={v.type} label="type" />
            </dd>
            <dt>Value</dt>
            <dd>
              <Copyable value={v.value} label="value" />
            </dd>
          </dl>
          {canWrite ? (
            <form method="post" action={`/domains/${detail.id}/verify`}>
              <CsrfField csrf={frame.csrf} />
              <button type="submit">Verify now</button>
            </form>
          ) : (
            <p class="muted">An admin of this team can run the verification.</p>
          )}
        </section>
      )}
      <p>
        <a href={`/domains/${detail.id}`}>Domain page</a> · <a href="/domains">All domains</a>
      </p>
    </Layout>
  );
};

export function domainNewPages() {
  const r = new Hono<AppEnv>();

  r.get("/domains/new", async (c) => {
    const s = signedInOrRedirect(c);
    if (s instanceof Response) return s;
    if (s.ctx.scope !== "full") throw new ApiError(403, "forbidden", "A viewer may not add domains.");
    return c.html(<NewDomainPage frame={await frameOf(c)} />);
  });

  r.post("/domains", async (c) => {
    const s = signedInOrRedirect(c);
    if (s instanceof Response) return s;
    const form = await readForm(c);
    checkCsrf(c, form.get("_csrf"));
    const name = form.get("name") ?? "";
    try {
      const row = await createDomain(c.get("services"), s.ctx, { name });
      return c.redirect(`/domains/${row.id}/verify?added=1`, 303);
    } catch (e) {
      // A bad name or a duplicate re-shows the form with what to fix; a refusal (403) stays an error page.
      if (e instanceof ApiError && (e.status === 422 || e.status === 409)) {
        const errors = e.status === 422 ? nameMessages(e, name) : [e.message];
        return c.html(<NewDomainPage frame={await frameOf(c)} name={name} errors={errors} />, e.status);
      }
      throw e;
    }
  });

  r.get("/domains/:id/verify", async (c) => {
    const s = signedInOrRedirect(c);
    if (s instanceof Response) return s;
    const detail = await getDomainDetail(c.get("services"), s.ctx, idParam(c.req.param("id")));
    return c.html(<VerifyPage frame={await frameOf(c)} detail={detail} added={c.req.query("added") === "1"} />);
  });

  r.post("/domains/:id/verify", async (c) => {
    const s = signedInOrRedirect(c);
    if (s instanceof Response) return s;
    const form = await readForm(c);
    checkCsrf(c, form.get("_csrf"));
    const id = idParam(c.req.param("id"));
    await meterPage(c, s);
    const svc = c.get("services");
    let outcome: Outcome;
    try {
      const result = await verifyDomain(svc, s.ctx, id);
      if (result.verified) return c.redirect(`/domains/${id}?verified=1`, 303);
      outcome = { kind: result.record_found ? "mismatch" : "not_found", reason: result.reason };
    } catch (e) {
      if (!(e instanceof ApiError && e.status === 503)) throw e;
      outcome = { kind: "dns_failed" };
    }
    const detail = await getDomainDetail(svc, s.ctx, id);
    return c.html(<VerifyPage frame={await frameOf(c)} detail={detail} outcome={outcome} />, outcome.kind === "dns_failed" ? 503 : 200);
  });
  return r;
}
