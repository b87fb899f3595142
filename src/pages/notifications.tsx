/** @jsxImportSource hono/jsx */
// Notification channels of the current team: the list with the plan's allowance, one add form per way of
// telling people (email to members, email to an address, Slack, Teams, PagerDuty), each with its first rule,
// and the signed-in member's own "Email me" choice on each members email channel (any role may make it: it
// is their own inbox). A refused form comes back open with its messages and its values kept. Viewers see the
// list without the add forms; the create verb refuses them too.
import { Hono } from "hono";
import type { FC } from "hono/jsx";
import type { AppEnv } from "../context";
import { ApiError } from "../lib/errors";
import type { Services } from "../services";
import type { SignedIn } from "../services/accounts/sessions";
import { listDomains } from "../services/domains/list-domains";
import type { ChannelView } from "../services/notify/channel-views";
import { createChannel, listChannels, setChannelSubscription, subscriptionsOf } from "../services/notify/channels";
import { plainMessages } from "./domain-format";
import { frameOf } from "./frame";
import { checkCsrf, readForm, signedInOrRedirect } from "./guard";
import { CsrfField, type Frame, Layout, Notice } from "./layout";
import { meterPage } from "./meter";
import {
  CHANNEL_FORMS,
  type ChannelFormKey,
  ChannelState,
  channelFromForm,
  channelTarget,
  FIELD_LABELS,
  KIND_NAMES,
  keptRule,
  type RuleKept,
  RuleFields,
  ruleSummary,
} from "./notifications-format";
import { idParam } from "./params";

interface ListData {
  rows: ChannelView[];
  limit: number;
  domains: Array<{ id: number; name: string }>;
  /** Members email channels the signed-in member opted in to. */
  mine: Set<number>;
}

interface Refused {
  key: ChannelFormKey;
  errors: string[];
  values: Record<string, string>;
  rule: RuleKept;
}

const NOTICES: Record<string, string> = {
  deleted: "The channel, its rules and its delivery log were deleted.",
  subscribed: "You will get this channel's alerts by email.",
  unsubscribed: "You will no longer get this channel's alerts by email.",
};

/** The signed-in member's own opt-in or opt-out of a members email channel. */
const EmailMeToggle: FC<{ c: ChannelView; on: boolean; csrf: string }> = ({ c, on, csrf }) => (
  <form method="post" action={`/notifications/${c.id}/subscription`} class="inline">
    <CsrfField csrf={csrf} />
    <input type="hidden" name="on" value={on ? "0" : "1"} />
    <button type="submit" class="secondary small-button" aria-label={`${on ? "Stop emailing me" : "Email me"}: ${c.name}`}>
      {on ? "Stop emailing me" : "Email me"}
    </button>
  </form>
);

const ChannelTable: FC<{ data: ListData; csrf: string }> = ({ data, csrf }) => {
  const names = new Map(data.domains.map((d) => [d.id, d.name]));
  return (
    <div class="table-wrap">
      <table class="stack">
        <thead>
          <tr>
            <th scope="col">Channel</th>
            <th scope="col">Kind</th>
            <th scope="col">Sends to</th>
            <th scope="col">State</th>
            <th scope="col">Rules</th>
            <th scope="col">You</th>
          </tr>
        </thead>
        <tbody>
          {data.rows.map((c) => (
            <tr>
              <td data-label="Channel">
                <a href={`/notifications/${c.id}`}>{c.name}</a>
              </td>
              <td data-label="Kind">{c.email ? `${KIND_NAMES.email} (${c.email.mode === "members" ? "members" : "address"})` : KIND_NAMES[c.kind]}</td>
              <td data-label="Sends to" class="mono small wrap">
                {channelTarget(c)}
              </td>
              <td data-label="State">
                <ChannelState c={c} />
              </td>
              <td data-label="Rules" class="small">
                {c.rules.length === 0 ? (
                  <span class="muted">No rule: nothing is sent</span>
                ) : (
                  <ul class="plain">
                    {c.rules.map((r) => (
                      <li>{ruleSummary(r, names)}</li>
                    ))}
                  </ul>
                )}
              </td>
              <td data-label="You">
                {c.email?.mode === "members" ? <EmailMeToggle c={c} on={data.mine.has(c.id)} csrf={csrf} /> : <span class="muted">—</span>}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
};

/** The first field(s) of each kind's form: where it sends. */
const TargetFields: FC<{ spec: (typeof CHANNEL_FORMS)[number]; values: Record<string, string> }> = ({ spec, values }) => {
  const id = (f: string) => `${spec.key}-${f}`;
  if (spec.kind === "slack" || spec.kind === "teams")
    return (
      <div>
        <label for={id("url")}>{spec.kind === "slack" ? "Slack incoming webhook URL" : "Teams Workflows webhook URL"}</label>
        <input
          id={id("url")}
          name="url"
          type="url"
          required
          maxlength={2048}
          placeholder={spec.kind === "slack" ? "https://hooks.slack.com/services/…" : "https://…/workflows/…"}
          value={values.url ?? ""}
        />
      </div>
    );
  if (spec.kind === "pagerduty")
    return (
      <div>
        <label for={id("routing_key")}>Integration (routing) key</label>
        <input id={id("routing_key")} name="routing_key" type="text" required maxlength={64} autocomplete="off" class="mono" value={values.routing_key ?? ""} />
      </div>
    );
  if (spec.mode === "address")
    return (
      <div>
        <label for={id("address")}>Email address</label>
        <input id={id("address")} name="address" type="email" required maxlength={254} value={values.address ?? ""} />
      </div>
    );
  return null;
};

const HELP: Record<ChannelFormKey, string> = {
  "email-members": "Members of the team choose to get these alerts with the Email me button; nobody is mailed without choosing it.",
  "email-address": "The address gets a confirmation link first; nothing else is sent to it until it confirms.",
  slack: "An incoming webhook of the Slack channel to post to. The URL is kept sealed and never shown again in full.",
  teams: "A Workflows webhook that posts to the Teams channel. The URL is kept sealed and never shown again in full.",
  pagerduty: "The Events API v2 integration key of a PagerDuty service: alerts open incidents that resolve themselves.",
};

const AddForms: FC<{ frame: Frame; domains: ListData["domains"]; refused?: Refused }> = ({ frame, domains, refused }) => (
  <section class="panel" aria-labelledby="add-channel">
    <h2 id="add-channel">Add a channel</h2>
    {CHANNEL_FORMS.map((spec) => {
      const mine = refused?.key === spec.key ? refused : undefined;
      return (
        <details class="more" id={`add-${spec.key}`} open={mine !== undefined}>
          <summary>{spec.title}</summary>
          {mine && (
            <Notice kind="bad">
              <ul>
                {mine.errors.map((m) => (
                  <li>{m}</li>
                ))}
              </ul>
            </Notice>
          )}
          <form method="post" action={`/notifications#add-${spec.key}`}>
            <CsrfField csrf={frame.csrf} />
            <input type="hidden" name="form" value={spec.key} />
            <p class="small muted">{HELP[spec.key]}</p>
            <div class="row">
              <div>
                <label for={`${spec.key}-name`}>Name</label>
                <input id={`${spec.key}-name`} name="name" type="text" required maxlength={100} value={mine?.values.name ?? ""} />
              </div>
              <TargetFields spec={spec} values={mine?.values ?? {}} />
            </div>
            <RuleFields prefix={spec.key} domains={domains} kept={mine?.rule} defaultSeverity={spec.kind === "pagerduty" ? "High" : "Medium"} />
            <button type="submit">{`Add ${spec.title} channel`}</button>
          </form>
        </details>
      );
    })}
  </section>
);

const NotificationsPage: FC<{ frame: Frame; data: ListData; notice?: string; refused?: Refused }> = ({ frame, data, notice, refused }) => {
  const canWrite = frame.signedIn?.ctx.scope === "full";
  const full = data.rows.length >= data.limit;
  return (
    <Layout title="Notifications" frame={frame} active="/notifications">
      <h1>Notifications</h1>
      <p class="muted">
        Tell people when an alert opens or resolves: by email, in Slack or Teams, or as a PagerDuty incident. Your weekly or daily summary mail:{" "}
        <a href="/settings/notifications/digest">digest settings</a>.
      </p>
      {notice && <Notice kind="ok">{notice}</Notice>}
      <section class="panel" aria-labelledby="channel-list">
        <h2 id="channel-list">{`Channels (${data.rows.length} of ${data.limit} on your plan)`}</h2>
        {data.rows.length === 0 ? <p class="muted">No channels yet.</p> : <ChannelTable data={data} csrf={frame.csrf} />}
      </section>
      {canWrite &&
        (full ? (
          <Notice kind="info">{`Your plan's ${data.limit} channels are in use: delete one or upgrade the plan to add another.`}</Notice>
        ) : (
          <AddForms frame={frame} domains={data.domains} refused={refused} />
        ))}
    </Layout>
  );
};

async function listData(svc: Services, s: SignedIn): Promise<ListData> {
  const [list, domains, mine] = await Promise.all([
    listChannels(svc, s.ctx, s.teamPlan),
    listDomains(svc, s.ctx, { page: 1, per_page: 200 }),
    subscriptionsOf(svc, s.teamId, s.user.id),
  ]);
  return { rows: list.rows, limit: list.limit, domains: domains.items.map((d) => ({ id: d.id, name: d.name })), mine: new Set(mine) };
}

export function notificationPages() {
  const r = new Hono<AppEnv>();

  r.get("/notifications", async (c) => {
    const s = signedInOrRedirect(c);
    if (s instanceof Response) return s;
    return c.html(<NotificationsPage frame={await frameOf(c)} data={await listData(c.get("services"), s)} notice={NOTICES[c.req.query("done") ?? ""]} />);
  });

  r.post("/notifications", async (c) => {
    const s = signedInOrRedirect(c);
    if (s instanceof Response) return s;
    const form = await readForm(c);
    checkCsrf(c, form.get("_csrf"));
    // Creating checks the target's DNS or mails a confirmation: outbound work, metered (D147).
    await meterPage(c, s);
    const svc = c.get("services");
    try {
      const { input } = channelFromForm(form);
      const created = await createChannel(svc, s.ctx, s.teamPlan, input);
      return c.redirect(`/notifications/${created.id}?done=${created.email?.mode === "address" ? "confirm-sent" : "added"}`, 303);
    } catch (e) {
      // A refused form (bad URL, private target, bad key or address, bad rule) comes back open with its messages.
      if (!(e instanceof ApiError) || e.status !== 422) throw e;
      const key = (form.get("form") ?? "") as ChannelFormKey;
      if (!CHANNEL_FORMS.some((f) => f.key === key)) throw e;
      const values = Object.fromEntries(["name", "url", "routing_key", "address"].map((k) => [k, form.get(k) ?? ""]));
      const refused: Refused = { key, errors: plainMessages(e, FIELD_LABELS), values, rule: keptRule(form) };
      return c.html(<NotificationsPage frame={await frameOf(c)} data={await listData(svc, s)} refused={refused} />, 422);
    }
  });

  r.post("/notifications/:id/subscription", async (c) => {
    const s = signedInOrRedirect(c);
    if (s instanceof Response) return s;
    const form = await readForm(c);
    checkCsrf(c, form.get("_csrf"));
    const id = idParam(c.req.param("id"));
    const on = form.get("on") === "1";
    await setChannelSubscription(c.get("services"), s.teamId, s.user.id, id, on);
    const back = form.get("back") === "channel" ? `/notifications/${id}` : "/notifications";
    return c.redirect(`${back}?done=${on ? "subscribed" : "unsubscribed"}`, 303);
  });
  return r;
}
