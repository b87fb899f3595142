/** @jsxImportSource hono/jsx */
// Webhook endpoints of the current team: the list with the plan's allowance, and the create form (URL,
// description, event types from the catalogue, an optional domain filter) whose answer shows the
// signing secret once. A refused form comes back with its messages and the values kept. Viewers see
// the list without the form; the create verb refuses them too.
import { Hono } from "hono";
import type { FC } from "hono/jsx";
import type { AppEnv } from "../context";
import { ApiError } from "../lib/errors";
import type { PaginationQuery } from "../lib/pagination";
import type { Services } from "../services";
import { teamOverview } from "../services/accounts/members";
import type { SignedIn } from "../services/accounts/sessions";
import { listDomains } from "../services/domains/list-domains";
import { eventCatalogue } from "../services/webhooks/catalogue";
import { type CreateEndpointInput, createEndpoint } from "../services/webhooks/create-endpoint";
import { listEndpoints } from "../services/webhooks/endpoints";
import type { EndpointView } from "../services/webhooks/views";
import { Pager, pageQuery, plainMessages, when } from "./domain-format";
import { frameOf } from "./frame";
import { checkCsrf, readForm, signedInOrRedirect } from "./guard";
import { CsrfField, type Frame, Layout, Notice } from "./layout";
import { createInput, DEFAULT_EVENTS, EVENT_GROUPS, SecretOnce } from "./webhooks-format";
import { meterPage } from "./meter";

const PER_PAGE = 25;
/** How the form names its fields in a refusal, and a missing event choice said as what to do. */
const FIELD_LABELS = { url: "Receiver URL", description: "Description", events: "Events", domain_ids: "Domains" };
const PLAIN = { "subscribe to at least one event type, or *": "Choose at least one event to send, or every event." };

interface ListData {
  rows: EndpointView[];
  total: number;
  limit: number;
  domains: Array<{ id: number; name: string }>;
}

const EndpointState: FC<{ e: EndpointView }> = ({ e }) =>
  e.enabled ? <span class="badge ok">enabled</span> : <span class="badge bad">{`disabled${e.disabled_reason ? ` (${e.disabled_reason})` : ""}`}</span>;

const CreateForm: FC<{ frame: Frame; domains: ListData["domains"]; kept?: CreateEndpointInput; errors?: string[] }> = ({ frame, domains, kept, errors }) => {
  // A new form starts with the alert-worthy events ticked; a refused one keeps exactly what was sent.
  const chosen = new Set(kept?.events ?? DEFAULT_EVENTS);
  const catalogue = eventCatalogue();
  const descriptions = new Map(catalogue.map((t) => [t.type as string, t.description]));
  const grouped = new Set(EVENT_GROUPS.flatMap((g) => g.events.map(([type]) => type)));
  const others = catalogue.filter((t) => !grouped.has(t.type)).map((t): [string, string] => [t.type, t.description]);
  const groups = [
    ...EVENT_GROUPS.map((g) => ({ ...g, events: g.events.filter(([type]) => descriptions.has(type)) })),
    ...(others.length > 0 ? [{ title: "Other", events: others }] : []),
  ];
  const chosenDomains = new Set(kept?.domain_ids ?? []);
  return (
    <section class="panel" aria-labelledby="create-webhook">
      <h2 id="create-webhook">Add an endpoint</h2>
      {errors && errors.length > 0 && (
        <Notice kind="bad">
          <ul>
            {errors.map((m) => (
              <li>{m}</li>
            ))}
          </ul>
        </Notice>
      )}
      <form method="post" action="/webhooks#create-webhook">
        <CsrfField csrf={frame.csrf} />
        <div class="row">
          <div>
            <label for="webhook-url">Receiver URL</label>
            <input id="webhook-url" name="url" type="url" required maxlength={2048} placeholder="https://hooks.example.com/emailauth" value={kept?.url ?? ""} />
          </div>
          <div>
            <label for="webhook-description">Description (optional)</label>
            <input id="webhook-description" name="description" type="text" maxlength={500} value={kept?.description ?? ""} />
          </div>
        </div>
        <fieldset class="events">
          <legend>Events to send</legend>
          <p class="small muted">Ticked: the events that need someone's attention. Each is sent as a signed POST.</p>
          <label>
            <input type="checkbox" name="events" value="*" checked={chosen.has("*")} />
            <span>
              Every event, including types added later <code>*</code>
            </span>
          </label>
          <div class="event-groups">
            {groups.map((g) => (
              <fieldset>
                <legend>{g.title}</legend>
                {g.events.map(([type, words]) => (
                  <label title={descriptions.get(type)}>
                    <input type="checkbox" name="events" value={type} checked={chosen.has(type)} />
                    <span>
                      {words} <code>{type}</code>
                    </span>
                  </label>
                ))}
              </fieldset>
            ))}
          </div>
        </fieldset>
        {domains.length > 0 && (
          <fieldset class="checks">
            <legend>Only these domains (leave all unticked for every domain and team-wide events)</legend>
            {domains.map((d) => (
              <label>
                <input type="checkbox" name="domain_ids" value={String(d.id)} checked={chosenDomains.has(d.id)} />
                <span>{d.name}</span>
              </label>
            ))}
          </fieldset>
        )}
        <button type="submit">Add endpoint</button>
      </form>
    </section>
  );
};

const WebhooksPage: FC<{ frame: Frame; q: PaginationQuery; data: ListData; form?: { kept: CreateEndpointInput; errors: string[] }; deleted: boolean }> = ({
  frame,
  q,
  data,
  form,
  deleted,
}) => {
  const canWrite = frame.signedIn?.ctx.scope === "full";
  return (
    <Layout title="Webhooks" frame={frame} active="/webhooks">
      <h1>Webhooks</h1>
      {deleted && <Notice kind="ok">The endpoint and its delivery log were deleted.</Notice>}
      <section class="panel" aria-labelledby="endpoint-list">
        <h2 id="endpoint-list">{`Endpoints (${data.total} of ${data.limit} on your plan)`}</h2>
        {data.rows.length === 0 ? (
          <p class="muted">No endpoints yet. Add one to receive events as signed HTTPS POSTs.</p>
        ) : (
          <div class="table-wrap">
            <table>
              <thead>
                <tr>
                  <th scope="col">URL</th>
                  <th scope="col">Events</th>
                  <th scope="col">State</th>
                  <th scope="col">Last success</th>
                  <th scope="col">Last failure</th>
                </tr>
              </thead>
              <tbody>
                {data.rows.map((e) => (
                  <tr>
                    <td>
                      <a href={`/webhooks/${e.id}`} class="mono">
                        {e.url}
                      </a>
                      {e.description && <div class="small muted">{e.description}</div>}
                    </td>
                    <td class="small">{e.events.join(", ")}</td>
                    <td>
                      <EndpointState e={e} />
                    </td>
                    <td class="small">{when(e.last_success_at)}</td>
                    <td class="small">{when(e.last_failure_at)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
        <Pager base="/webhooks" q={q} total={data.total} perDefault={PER_PAGE} />
      </section>
      {canWrite && <CreateForm frame={frame} domains={data.domains} kept={form?.kept} errors={form?.errors} />}
    </Layout>
  );
};

async function listData(svc: Services, s: SignedIn, q: PaginationQuery): Promise<ListData> {
  const team = await teamOverview(svc, s);
  const [list, domains] = await Promise.all([listEndpoints(svc, s.ctx, team.plan, q), listDomains(svc, s.ctx, { page: 1, per_page: 200 })]);
  return { rows: list.rows, total: list.total, limit: list.limit, domains: domains.items.map((d) => ({ id: d.id, name: d.name })) };
}

export function webhookPages() {
  const r = new Hono<AppEnv>();

  r.get("/webhooks", async (c) => {
    const s = signedInOrRedirect(c);
    if (s instanceof Response) return s;
    const q = pageQuery(c.req.query(), PER_PAGE);
    return c.html(<WebhooksPage frame={await frameOf(c)} q={q} data={await listData(c.get("services"), s, q)} deleted={c.req.query("deleted") === "1"} />);
  });

  r.post("/webhooks", async (c) => {
    const s = signedInOrRedirect(c);
    if (s instanceof Response) return s;
    const form = await readForm(c);
    checkCsrf(c, form.get("_csrf"));
    await meterPage(c, s);
    const svc = c.get("services");
    const team = await teamOverview(svc, s);
    const q = pageQuery({}, PER_PAGE);
    let input: CreateEndpointInput | null = null;
    try {
      input = createInput(form);
      const created = await createEndpoint(svc, s.ctx, team.plan, input);
      const frame = await frameOf(c);
      return c.html(
        <Layout title="Endpoint added" frame={frame} active="/webhooks">
          <h1>Endpoint added</h1>
          <p>
            <a href={`/webhooks/${created.id}`} class="mono">
              {created.url}
            </a>{" "}
            receives {created.events.join(", ")}.
          </p>
          <SecretOnce secret={created.secret ?? ""} heading="Signing secret" />
          <p>
            <a href={`/webhooks/${created.id}`}>Go to the endpoint</a> to send a test event.
          </p>
        </Layout>,
        201,
      );
    } catch (e) {
      // A refused form (bad URL, private target, no event) comes back with its messages; other refusals are error pages.
      if (!(e instanceof ApiError) || e.status !== 422) throw e;
      const messages = plainMessages(e, FIELD_LABELS, PLAIN);
      const kept = input ?? { url: form.get("url") ?? "", description: form.get("description"), events: form.getAll("events"), domain_ids: null };
      return c.html(
        <WebhooksPage
          frame={await frameOf(c)}
          q={q}
          data={await listData(c.get("services"), s, q)}
          form={{ kept, errors: messages.length > 0 ? messages : [e.message] }}
          deleted={false}
        />,
        422,
      );
    }
  });
  return r;
}
