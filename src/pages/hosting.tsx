/** @jsxImportSource hono/jsx */
// The hosted MTA-STS page of a domain (issue 32 §1, §3): hosting on or off; the two CNAMEs to publish with
// what DNS shows for them now; the policy host's certificate; the policy served and its editor built on the
// live MX hosts; the one-click enforce, enabled only when TLS reports allow it; turning off per RFC 8461
// §8.3 with the date the records may go; a link to the BIMI hosting page. Every change is one service verb.
import { type Context, Hono } from "hono";
import type { FC } from "hono/jsx";
import type { AppEnv } from "../context";
import { ApiError } from "../lib/errors";
import type { SignedIn } from "../services/accounts/sessions";
import { enforceHosting } from "../services/mta-sts-hosting/enforce";
import { putHosting } from "../services/mta-sts-hosting/put";
import { retireHosting } from "../services/mta-sts-hosting/retire";
import { getHostingStatus, type HostingStatus } from "../services/mta-sts-hosting/status";
import { Copyable, fieldMessages, when } from "./domain-format";
import { frameOf } from "./frame";
import { checkCsrf, readForm, signedInOrRedirect } from "./guard";
import { CsrfField, type Frame, Layout, Notice, Problems } from "./layout";
import { idParam } from "./params";

const LIVE: Record<string, [string, string]> = {
  ok: ["ok", "published"],
  missing: ["bad", "not published"],
  different: ["bad", "another value"],
  stale: ["warn", "old id"],
  unknown: ["warn", "DNS did not answer"],
};
const SAVED: Record<string, string> = {
  on: "MTA-STS hosting is on, in testing mode. Publish the two records below.",
  policy: "The policy changed and has a new id.",
  enforce: "The policy is now enforced, under a new id.",
  off: "Hosting is turning off: mode none is served under a new id until the date below.",
};
const CERT_OK = new Set(["active"]);

const base = (id: number) => `/domains/${id}/hosting`;

const Records: FC<{ v: HostingStatus }> = ({ v }) => (
  <section class="panel" aria-labelledby="records-h">
    <h2 id="records-h">Records to publish</h2>
    <p class="small">Publish these once; later policy changes need no DNS edit{v.hosting?.id_delivery === "txt" ? " except the id TXT record" : ""}.</p>
    <div class="table-wrap">
      <table id="hosting-records" class="stack" aria-labelledby="records-h">
        <thead>
          <tr>
            <th scope="col">Name</th>
            <th scope="col">Type</th>
            <th scope="col">Value</th>
            <th scope="col">Now in DNS</th>
          </tr>
        </thead>
        <tbody>
          {v.records.map((r) => {
            const [cls, text] = LIVE[r.live.state] ?? ["", r.live.state];
            return (
              <tr data-record={r.name} data-state={r.live.state}>
                <th scope="row" class="mono small break">
                  {r.name}
                </th>
                <td data-label="Type">{r.type}</td>
                <td data-label="Value">
                  <Copyable value={r.value} label={`${r.name} ${r.type}`} />
                  <span class="small muted">{r.purpose}</span>
                </td>
                <td data-label="Now in DNS">
                  <span class={`badge ${cls}`}>{text}</span>
                  {r.live.found.length > 0 && r.live.state !== "ok" && <span class="small mono break">{` ${r.live.found.join(", ")}`}</span>}
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </div>
  </section>
);

const Hostname: FC<{ v: HostingStatus }> = ({ v }) => {
  const h = v.hosting?.hostname;
  if (!h) return null;
  return (
    <section class="panel" aria-labelledby="hostname-h">
      <h2 id="hostname-h">Policy host and certificate</h2>
      {!v.managed ? (
        <p class="small">This deployment does not manage certificates through Cloudflare: the operator points {h.name} at the service.</p>
      ) : (
        <p id="hostname-state">
          <span class="mono break">{h.name}</span>
          {": "}
          <span class={`badge ${h.status === "active" ? "ok" : "warn"}`}>{`hostname ${h.status ?? "not created yet"}`}</span>{" "}
          <span
            class={`badge ${CERT_OK.has(h.certificate_status ?? "") ? "ok" : "warn"}`}
          >{`certificate ${(h.certificate_status ?? "not issued").replaceAll("_", " ")}`}</span>
          <span class="small muted">{` (checked ${when(h.checked_at)})`}</span>
        </p>
      )}
      {h.api_error && <Notice kind="bad">{`${h.api_error} The service retries every minute.`}</Notice>}
      {h.errors.length > 0 && (
        <ul class="small">
          {h.errors.map((e) => (
            <li>{e}</li>
          ))}
        </ul>
      )}
      {h.certificate_status !== "active" && v.managed && (
        <p class="small muted">The certificate is issued once the CNAME of {h.name} is published (HTTP validation through that name).</p>
      )}
    </section>
  );
};

const Policy: FC<{ v: HostingStatus; frame: Frame; canWrite: boolean }> = ({ v, frame, canWrite }) => {
  const h = v.hosting;
  if (!h) return null;
  const id = v.domain.id;
  return (
    <section class="panel" aria-labelledby="policy-h">
      <h2 id="policy-h">
        Policy <span class={`badge ${h.mode === "enforce" ? "ok" : h.mode === "none" ? "bad" : "warn"}`}>{h.mode}</span>
      </h2>
      <p class="small">
        {"Served at "}
        <span class="mono break">{h.policy_url}</span>
        {` with id `}
        <span class="mono" id="policy-id">
          {h.policy_id}
        </span>
        {` since ${when(h.policy_changed_at)}.`}
      </p>
      <pre id="policy-text" class="break">
        {h.policy_text}
      </pre>
      {h.state === "active" && h.mode === "testing" && (
        <div id="enforce">
          <h3>Enforce</h3>
          <p class="small" id="enforce-reason">
            <span class={`badge ${v.enforce.allowed ? "ok" : "warn"}`}>{v.enforce.allowed ? "TLS reports allow it" : "not yet"}</span> {v.enforce.reason}
          </p>
          {canWrite && (
            <form method="post" action={`${base(id)}/enforce`}>
              <CsrfField csrf={frame.csrf} />
              <input type="hidden" name="days" value={String(v.enforce.window_days)} />
              <button type="submit" disabled={!v.enforce.allowed}>
                Enforce
              </button>
            </form>
          )}
        </div>
      )}
    </section>
  );
};

const Editor: FC<{ v: HostingStatus; frame: Frame }> = ({ v, frame }) => {
  const h = v.hosting;
  const mxText = (h?.state === "active" ? h.mx : (v.mx_hosts ?? []).map((m) => m.host)).join("\n");
  return (
    <section class="panel" aria-labelledby="editor-h">
      <h2 id="editor-h">{h?.state === "active" ? "Change the policy" : h ? "Turn hosting back on" : "Turn hosting on"}</h2>
      {v.mx_hosts === null ? (
        <p class="small">The MX records could not be read just now.</p>
      ) : (
        <p class="small" id="mx-hosts">
          {"MX hosts: "}
          {v.mx_hosts.map((m, i) => (
            <>
              {i > 0 && ", "}
              <span class="mono">{m.host}</span>
              {h && <span class={`badge ${m.covered ? "ok" : "bad"}`}>{m.covered ? "covered" : "not covered"}</span>}
            </>
          ))}
        </p>
      )}
      <form method="post" action={base(v.domain.id)}>
        <CsrfField csrf={frame.csrf} />
        <label for="mx">mx patterns, one per line (every MX host must match one; "*.example.com" matches one extra label)</label>
        <textarea id="mx" name="mx" rows={4} required>
          {mxText}
        </textarea>
        <label for="max_age">max_age (seconds senders keep the policy: 86400 to 31557600)</label>
        <input id="max_age" name="max_age" type="number" min={86400} max={31557600} value={String(h?.state === "active" ? h.max_age : 604800)} required />
        {!h && (
          <fieldset>
            <legend>The _mta-sts id record</legend>
            <label>
              <input type="radio" name="id_delivery" value="cname" checked /> A CNAME to this service: new ids need no DNS edit
            </label>
            <label>
              <input type="radio" name="id_delivery" value="txt" /> A TXT record I change myself after every policy change
            </label>
          </fieldset>
        )}
        <button type="submit">{h?.state === "active" ? "Save the policy" : "Turn hosting on"}</button>
      </form>
    </section>
  );
};

const TurnOff: FC<{ v: HostingStatus; frame: Frame; canWrite: boolean }> = ({ v, frame, canWrite }) => {
  const h = v.hosting;
  if (!h) return null;
  if (h.retiring) {
    return (
      <section class="panel" aria-labelledby="off-h">
        <h2 id="off-h">Turning off</h2>
        <p id="retiring">
          {`Mode none is served since ${when(h.retiring.since)}, so senders drop the policy they cached (RFC 8461 §8.3). `}
          {h.retiring.safe_now
            ? "Every earlier policy has expired: delete both records now; the service removes the policy host."
            : `Delete both records after ${when(h.retiring.safe_to_remove_at)}; the service removes the policy host then.`}
        </p>
      </section>
    );
  }
  if (!canWrite) return null;
  return (
    <section class="panel" aria-labelledby="off-h">
      <h2 id="off-h">Turn hosting off</h2>
      <p class="small">Serves mode none under a new id until every policy senders cached has expired, then says when to delete the records.</p>
      <form method="post" action={`${base(v.domain.id)}/off`}>
        <CsrfField csrf={frame.csrf} />
        <button type="submit" class="danger">
          Turn hosting off
        </button>
      </form>
    </section>
  );
};

async function page(c: Context<AppEnv>, s: SignedIn, id: number, notes: { saved?: string; errors?: string[] }, status = 200) {
  const v = await getHostingStatus(c.get("services"), s.ctx, id);
  const frame = await frameOf(c);
  const canWrite = s.ctx.scope === "full";
  return c.html(
    <Layout title={`MTA-STS hosting for ${v.domain.name}`} frame={frame} active="/domains">
      <p class="small">
        <a href={`/domains/${v.domain.id}`}>{v.domain.name}</a>
        {" · "}
        <a href={`${base(v.domain.id)}/bimi`}>BIMI logo hosting</a>
      </p>
      <h1 class="break">{`MTA-STS hosting for ${v.domain.name}`}</h1>
      <p class="small muted">
        {`This service serves your MTA-STS policy (RFC 8461) at https://mta-sts.${v.domain.name}/ and changes its id with every change. Hosting is `}
        <strong id="hosting-state">{v.enabled ? (v.hosting?.state === "retiring" ? "turning off" : "on") : "off"}</strong>.
      </p>
      {notes.saved && SAVED[notes.saved] && (
        <Notice kind="ok" id="saved">
          {SAVED[notes.saved]}
        </Notice>
      )}
      <Problems id="hosting-errors" lines={notes.errors} />
      {v.blocked && <Notice kind="info">{v.blocked}</Notice>}
      {v.enabled && <Records v={v} />}
      {v.enabled && <Hostname v={v} />}
      <Policy v={v} frame={frame} canWrite={canWrite} />
      {canWrite && !v.blocked && <Editor v={v} frame={frame} />}
      <TurnOff v={v} frame={frame} canWrite={canWrite} />
      {!canWrite && <p class="muted">Viewers can read this page; an admin or the owner changes hosting.</p>}
    </Layout>,
    status as 200,
  );
}

type Action = (c: Context<AppEnv>, s: SignedIn, id: number, form: URLSearchParams) => Promise<string>;

/** A form post: CSRF, one verb, back to the page (303); a refusal re-renders the page with its message and status. */
function action(run: Action) {
  return async (c: Context<AppEnv>) => {
    const s = signedInOrRedirect(c);
    if (s instanceof Response) return s;
    const id = idParam(c.req.param("id"));
    const form = await readForm(c);
    checkCsrf(c, form.get("_csrf"));
    try {
      const saved = await run(c, s, id, form);
      return c.redirect(`${base(id)}?saved=${saved}`, 303);
    } catch (e) {
      if (!(e instanceof ApiError) || (e.status !== 422 && e.status !== 409)) throw e;
      return page(c, s, id, { errors: [e.message, ...fieldMessages(e)] }, e.status);
    }
  };
}

const number = (raw: string | null): number | undefined => (raw && /^\d{1,10}$/.test(raw.trim()) ? Number(raw.trim()) : raw ? Number.NaN : undefined);

export function hostingPages() {
  const r = new Hono<AppEnv>();
  r.get("/domains/:id/hosting", async (c) => {
    const s = signedInOrRedirect(c);
    if (s instanceof Response) return s;
    return page(c, s, idParam(c.req.param("id")), { saved: c.req.query("saved") });
  });
  r.post(
    "/domains/:id/hosting",
    action(async (c, s, id, form) => {
      const mx = (form.get("mx") ?? "")
        .split(/[\s,]+/)
        .map((m) => m.trim())
        .filter((m) => m !== "");
      const delivery = form.get("id_delivery");
      const { created } = await putHosting(c.get("services"), s.ctx, id, {
        mx,
        max_age: number(form.get("max_age")),
        ...(delivery === "cname" || delivery === "txt" ? { id_delivery: delivery } : {}),
      });
      return created ? "on" : "policy";
    }),
  );
  r.post(
    "/domains/:id/hosting/enforce",
    action(async (c, s, id, form) => {
      const days = number(form.get("days"));
      await enforceHosting(c.get("services"), s.ctx, id, days !== undefined && days >= 1 && days <= 365 ? days : undefined);
      return "enforce";
    }),
  );
  r.post(
    "/domains/:id/hosting/off",
    action(async (c, s, id) => {
      await retireHosting(c.get("services"), s.ctx, id);
      return "off";
    }),
  );
  return r;
}
