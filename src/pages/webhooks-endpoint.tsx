/** @jsxImportSource hono/jsx */
// One webhook endpoint: its settings, enable/disable, delete, send a test event, rotate the secret
// (the new one shown once; the old one keeps verifying for 24 hours), the delivery log filtered by
// status and event, one delivery's payload and response, and redelivery. Viewers see everything
// without the controls; every write verb refuses them too.
import { type Context, Hono } from "hono";
import type { FC } from "hono/jsx";
import type { AppEnv } from "../context";
import { validationFailed } from "../lib/errors";
import type { SignedIn } from "../services/accounts/sessions";
import type { ServiceContext } from "../services/context";
import { eventCatalogue } from "../services/webhooks/catalogue";
import { type DeliveryFilter, getDelivery, listDeliveries, redeliver } from "../services/webhooks/deliveries";
import { deleteEndpoint, getEndpoint } from "../services/webhooks/endpoints";
import { DeliveryQuery } from "../services/webhooks/inputs";
import { sendTest } from "../services/webhooks/send-test";
import { rotateSecret, updateEndpoint } from "../services/webhooks/update-endpoint";
import type { DeliveryDetailView, DeliveryView, EndpointView } from "../services/webhooks/views";
import { when } from "./domain-format";
import { frameOf } from "./frame";
import { checkCsrf, readForm, signedInOrRedirect } from "./guard";
import { CsrfField, type Frame, Layout, Notice } from "./layout";
import { idParam } from "./params";
import { DeliveryBadge, SecretOnce } from "./webhooks-format";
import { meterPage } from "./meter";

const PER_PAGE = 25;
const NOTICES: Record<string, string> = {
  enabled: "The endpoint is enabled; new events are delivered again.",
  disabled: "The endpoint is disabled; no new deliveries are made until you enable it.",
  tested: "A test event was sent. Its outcome is at the top of the log.",
  redelivered: "The delivery was attempted again; its outcome is below.",
};

/** The log's filters with the API's bounds (an unknown status or a bad page is a 422 page). */
function deliveryFilter(query: Record<string, string | undefined>): DeliveryFilter {
  const parsed = DeliveryQuery.safeParse({
    page: query.page,
    per_page: query.per_page ?? String(PER_PAGE),
    status: query.status || undefined,
    event: query.event || undefined,
  });
  if (!parsed.success)
    throw validationFailed({ filter: ["status is pending, delivered or failed; page from 1; per_page 1 to 200"] }, "That filter is not valid.");
  return parsed.data;
}

const filterHref = (id: number, f: DeliveryFilter, page: number) => {
  const p = new URLSearchParams();
  if (f.status) p.set("status", f.status);
  if (f.event) p.set("event", f.event);
  if (page > 1) p.set("page", String(page));
  if (f.per_page !== PER_PAGE) p.set("per_page", String(f.per_page));
  const s = p.toString();
  return `/webhooks/${id}${s ? `?${s}` : ""}`;
};

const Actions: FC<{ e: EndpointView; csrf: string }> = ({ e, csrf }) => (
  <section class="panel" aria-labelledby="endpoint-actions">
    <h2 id="endpoint-actions">Actions</h2>
    <div class="row">
      <form method="post" action={`/webhooks/${e.id}/test`}>
        <CsrfField csrf={csrf} />
        <button type="submit">Send a test event</button>
      </form>
      <form method="post" action={`/webhooks/${e.id}/${e.enabled ? "disable" : "enable"}`}>
        <CsrfField csrf={csrf} />
        <button type="submit" class="secondary">
          {e.enabled ? "Disable" : "Enable"}
        </button>
      </form>
      <form method="post" action={`/webhooks/${e.id}/rotate`} data-confirm="Rotate the secret? The current one keeps verifying for 24 hours.">
        <CsrfField csrf={csrf} />
        <button type="submit" class="secondary">
          Rotate secret
        </button>
      </form>
      <form method="post" action={`/webhooks/${e.id}/delete`} data-confirm="Delete this endpoint and its delivery log?">
        <CsrfField csrf={csrf} />
        <button type="submit" class="danger">
          Delete
        </button>
      </form>
    </div>
  </section>
);

const DeliveryLog: FC<{ e: EndpointView; f: DeliveryFilter; log: { rows: DeliveryView[]; total: number } }> = ({ e, f, log }) => {
  const last = Math.max(1, Math.ceil(log.total / f.per_page));
  return (
    <section class="panel" aria-labelledby="delivery-log">
      <h2 id="delivery-log">{`Delivery log (${log.total})`}</h2>
      <form method="get" action={`/webhooks/${e.id}`} class="filters">
        <div>
          <label for="filter-status">Status</label>
          <select id="filter-status" name="status">
            <option value="">Any</option>
            {(["pending", "delivered", "failed"] as const).map((s) => (
              <option value={s} selected={f.status === s}>
                {s}
              </option>
            ))}
          </select>
        </div>
        <div>
          <label for="filter-event">Event</label>
          <select id="filter-event" name="event">
            <option value="">Any</option>
            {eventCatalogue().map((t) => (
              <option value={t.type} selected={f.event === t.type}>
                {t.type}
              </option>
            ))}
          </select>
        </div>
        <div>
          <button type="submit" class="secondary">
            Filter
          </button>
        </div>
      </form>
      {log.rows.length === 0 ? (
        <p class="muted">No deliveries match.</p>
      ) : (
        <div class="table-wrap">
          <table>
            <thead>
              <tr>
                <th scope="col">Delivery</th>
                <th scope="col">Event</th>
                <th scope="col">Status</th>
                <th scope="col">Attempts</th>
                <th scope="col">Response</th>
                <th scope="col">Created</th>
              </tr>
            </thead>
            <tbody>
              {log.rows.map((d) => (
                <tr>
                  <td>
                    <a href={`/webhooks/${e.id}/deliveries/${d.id}`}>{`#${d.id}`}</a>
                  </td>
                  <td class="mono">{d.event}</td>
                  <td>
                    <DeliveryBadge status={d.status} />
                  </td>
                  <td>{d.attempts}</td>
                  <td class="small">{d.response_status !== null ? `HTTP ${d.response_status}` : (d.error ?? "—")}</td>
                  <td class="small">{when(d.created_at)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {last > 1 && (
        <nav class="pager" aria-label="Pages">
          {f.page > 1 ? <a href={filterHref(e.id, f, f.page - 1)}>Previous</a> : <span class="muted">Previous</span>}
          <span>{`Page ${f.page} of ${last}`}</span>
          {f.page < last ? <a href={filterHref(e.id, f, f.page + 1)}>Next</a> : <span class="muted">Next</span>}
        </nav>
      )}
    </section>
  );
};

const EndpointPage: FC<{
  frame: Frame;
  e: EndpointView;
  f: DeliveryFilter;
  log: { rows: DeliveryView[]; total: number };
  notice?: string;
  secret?: string;
}> = ({ frame, e, f, log, notice, secret }) => {
  const canWrite = frame.signedIn?.ctx.scope === "full";
  return (
    <Layout title={`Webhook ${e.url}`} frame={frame} active="/webhooks">
      <p class="small">
        <a href="/webhooks">Webhooks</a>
      </p>
      <h1 class="mono">{e.url}</h1>
      {notice && <Notice kind="ok">{notice}</Notice>}
      {secret && <SecretOnce secret={secret} heading="New signing secret" />}
      <section class="panel" aria-labelledby="endpoint-settings">
        <h2 id="endpoint-settings">Settings</h2>
        <dl class="fields">
          <dt>State</dt>
          <dd>
            {e.enabled ? (
              <span class="badge ok">enabled</span>
            ) : (
              <span class="badge bad">{`disabled${e.disabled_reason ? ` (${e.disabled_reason})` : ""}`}</span>
            )}
          </dd>
          <dt>Description</dt>
          <dd>{e.description ?? "—"}</dd>
          <dt>Events</dt>
          <dd class="mono">{e.events.join(", ")}</dd>
          <dt>Domains</dt>
          <dd>{e.domain_ids === null ? "Every domain and team-wide events" : `Domain ids ${e.domain_ids.join(", ")}`}</dd>
          <dt>Failures in a row</dt>
          <dd>{e.failure_count}</dd>
          <dt>Last success</dt>
          <dd>{when(e.last_success_at)}</dd>
          <dt>Last failure</dt>
          <dd>{when(e.last_failure_at)}</dd>
        </dl>
      </section>
      {canWrite && <Actions e={e} csrf={frame.csrf} />}
      <DeliveryLog e={e} f={f} log={log} />
    </Layout>
  );
};

const DeliveryPage: FC<{ frame: Frame; endpointId: number; d: DeliveryDetailView; redelivered: boolean }> = ({ frame, endpointId, d, redelivered }) => {
  const canWrite = frame.signedIn?.ctx.scope === "full";
  return (
    <Layout title={`Delivery #${d.id}`} frame={frame} active="/webhooks">
      <p class="small">
        <a href={`/webhooks/${endpointId}`}>Back to the endpoint</a>
      </p>
      <h1>{`Delivery #${d.id}`}</h1>
      {redelivered && <Notice kind="ok">{NOTICES.redelivered}</Notice>}
      <section class="panel" aria-labelledby="delivery-summary">
        <h2 id="delivery-summary">Summary</h2>
        <dl class="fields">
          <dt>Event</dt>
          <dd class="mono">{`${d.event} (${d.event_id})`}</dd>
          <dt>Status</dt>
          <dd>
            <DeliveryBadge status={d.status} />
          </dd>
          <dt>Attempts</dt>
          <dd>{d.attempts}</dd>
          <dt>Error</dt>
          <dd>{d.error ?? "—"}</dd>
          <dt>Duration</dt>
          <dd>{d.duration_ms !== null ? `${d.duration_ms} ms` : "—"}</dd>
          <dt>Next retry</dt>
          <dd>{when(d.next_retry_at)}</dd>
          <dt>Delivered</dt>
          <dd>{when(d.delivered_at)}</dd>
        </dl>
        {canWrite && (
          <form method="post" action={`/webhooks/${endpointId}/deliveries/${d.id}/redeliver`}>
            <CsrfField csrf={frame.csrf} />
            <button type="submit">Redeliver</button>
          </form>
        )}
      </section>
      <section class="panel" aria-labelledby="delivery-payload">
        <h2 id="delivery-payload">Payload</h2>
        <pre class="payload" tabindex={0}>
          {JSON.stringify(d.payload, null, 2)}
        </pre>
      </section>
      <section class="panel" aria-labelledby="delivery-response">
        <h2 id="delivery-response">Last response</h2>
        {d.response ? (
          <>
            <p>{`HTTP ${d.response.status}`}</p>
            <pre class="payload" tabindex={0}>
              {Object.entries(d.response.headers)
                .map(([k, v]) => `${k}: ${v}`)
                .join("\n")}
            </pre>
            <pre class="payload" tabindex={0}>
              {d.response.body || "(empty body)"}
            </pre>
          </>
        ) : (
          <p class="muted">No response was received{d.error ? `: ${d.error}` : "."}</p>
        )}
      </section>
    </Layout>
  );
};

export function webhookEndpointPages() {
  const r = new Hono<AppEnv>();

  r.get("/webhooks/:id", async (c) => {
    const s = signedInOrRedirect(c);
    if (s instanceof Response) return s;
    const id = idParam(c.req.param("id"));
    const f = deliveryFilter(c.req.query());
    const svc = c.get("services");
    const [e, log] = await Promise.all([getEndpoint(svc, s.ctx, id), listDeliveries(svc, s.ctx, id, f)]);
    return c.html(<EndpointPage frame={await frameOf(c)} e={e} f={f} log={log} notice={NOTICES[c.req.query("done") ?? ""]} />);
  });

  r.get("/webhooks/:id/deliveries/:delivery", async (c) => {
    const s = signedInOrRedirect(c);
    if (s instanceof Response) return s;
    const id = idParam(c.req.param("id"));
    const d = await getDelivery(c.get("services"), s.ctx, id, idParam(c.req.param("delivery")));
    return c.html(<DeliveryPage frame={await frameOf(c)} endpointId={id} d={d} redelivered={c.req.query("done") === "redelivered"} />);
  });

  const write = (path: string, act: (c: Context<AppEnv>, id: number, ctx: ServiceContext, s: SignedIn) => Promise<Response>) =>
    r.post(path, async (c) => {
      const s = signedInOrRedirect(c);
      if (s instanceof Response) return s;
      const form = await readForm(c);
      checkCsrf(c, form.get("_csrf"));
      return act(c, idParam(c.req.param("id")), s.ctx, s);
    });

  for (const [action, enabled] of [
    ["enable", true],
    ["disable", false],
  ] as const) {
    write(`/webhooks/:id/${action}`, async (c, id, ctx) => {
      await updateEndpoint(c.get("services"), ctx, id, { enabled });
      return c.redirect(`/webhooks/${id}?done=${action}d`, 303);
    });
  }
  write("/webhooks/:id/test", async (c, id, ctx, s) => {
    await meterPage(c, s);
    await sendTest(c.get("services"), ctx, id);
    return c.redirect(`/webhooks/${id}?done=tested`, 303);
  });
  write("/webhooks/:id/delete", async (c, id, ctx) => {
    await deleteEndpoint(c.get("services"), ctx, id);
    return c.redirect("/webhooks?deleted=1", 303);
  });
  write("/webhooks/:id/rotate", async (c, id, ctx) => {
    const svc = c.get("services");
    const rotated = await rotateSecret(svc, ctx, id);
    const f = deliveryFilter({});
    const [e, log] = await Promise.all([getEndpoint(svc, ctx, id), listDeliveries(svc, ctx, id, f)]);
    return c.html(
      <EndpointPage
        frame={await frameOf(c)}
        e={e}
        f={f}
        log={log}
        secret={rotated.secret}
        notice="The secret was rotated; the previous one keeps verifying for 24 hours."
      />,
    );
  });
  r.post("/webhooks/:id/deliveries/:delivery/redeliver", async (c) => {
    const s = signedInOrRedirect(c);
    if (s instanceof Response) return s;
    const form = await readForm(c);
    checkCsrf(c, form.get("_csrf"));
    const id = idParam(c.req.param("id"));
    const delivery = idParam(c.req.param("delivery"));
    await meterPage(c, s);
    await redeliver(c.get("services"), s.ctx, id, delivery);
    return c.redirect(`/webhooks/${id}/deliveries/${delivery}?done=redelivered`, 303);
  });
  return r;
}
