/** @jsxImportSource hono/jsx */
// One notification channel: its settings, its rules (add, delete), enable/disable, the test button with its
// outcome, a fresh confirmation mail for an address that has not confirmed, delete, and the delivery log
// (each message with its alerts and attempts on a page of its own). Viewers see everything without the
// controls (only their own "Email me" choice); every write verb refuses them too.
import { type Context, Hono } from "hono";
import type { FC } from "hono/jsx";
import type { AppEnv } from "../context";
import { ApiError, validationFailed } from "../lib/errors";
import type { SignedIn } from "../services/accounts/sessions";
import { listDomains } from "../services/domains/list-domains";
import type { ChannelView, MessageView } from "../services/notify/channel-views";
import { deleteChannel, getChannel, subscriptionsOf, updateChannel } from "../services/notify/channels";
import { getChannelMessage, type LogPage, listChannelMessages } from "../services/notify/log";
import { resendConfirmation } from "../services/notify/resend-confirmation";
import { addRule, deleteRule } from "../services/notify/rules";
import { sendTestMessage } from "../services/notify/test-message";
import { plainMessages, when } from "./domain-format";
import { frameOf } from "./frame";
import { checkCsrf, readForm, signedInOrRedirect } from "./guard";
import { CsrfField, type Frame, Layout, Notice } from "./layout";
import { meterPage } from "./meter";
import { ChannelState, channelTarget, FIELD_LABELS, KIND_NAMES, keptRule, type RuleKept, RuleFields, ruleFromForm, ruleSummary } from "./notifications-format";
import { idParam } from "./params";

const NOTICES: Record<string, string> = {
  added: "The channel was added. Send a test message to see it arrive.",
  "confirm-sent": "The channel was added and a confirmation link was mailed to the address. Nothing else is sent to it until it confirms.",
  "confirm-resent": "A new confirmation link was mailed to the address; the previous one no longer works.",
  enabled: "The channel is enabled; new alerts are sent again.",
  disabled: "The channel is disabled; nothing is sent until you enable it.",
  "rule-added": "The rule was added.",
  "rule-deleted": "The rule was deleted.",
  subscribed: "You will get this channel's alerts by email.",
  unsubscribed: "You will no longer get this channel's alerts by email.",
};

/** The test button's answer, from the message it wrote (the newest in the log). */
function testOutcome(m: MessageView): { ok: boolean; text: string } {
  // Chat and PagerDuty answer with an HTTP status; email says whom it reached ("sent to 2 recipients").
  const answer = m.response_status !== null ? ` (HTTP ${m.response_status})` : m.response_excerpt ? ` (${m.response_excerpt})` : "";
  if (m.status === "delivered") return { ok: true, text: `The test message was delivered${answer}.` };
  const why = m.error ?? (m.response_status !== null ? `HTTP ${m.response_status}` : "no answer");
  if (m.status === "pending") return { ok: false, text: `The test message was not delivered: ${why}. It is tried again ${when(m.next_retry_at)}.` };
  return { ok: false, text: `The test message could not be delivered: ${why}.` };
}

const MessageBadge: FC<{ status: string }> = ({ status }) => {
  const cls = status === "delivered" ? "ok" : status === "failed" ? "bad" : status === "pending" ? "warn" : "";
  return <span class={`badge ${cls}`}>{status}</span>;
};

const Actions: FC<{ c: ChannelView; csrf: string }> = ({ c, csrf }) => (
  <section class="panel" aria-labelledby="channel-actions">
    <h2 id="channel-actions">Actions</h2>
    <div class="row">
      <form method="post" action={`/notifications/${c.id}/test`}>
        <CsrfField csrf={csrf} />
        <button type="submit">Send a test message</button>
      </form>
      <form method="post" action={`/notifications/${c.id}/${c.enabled ? "disable" : "enable"}`}>
        <CsrfField csrf={csrf} />
        <button type="submit" class="secondary">
          {c.enabled ? "Disable" : "Enable"}
        </button>
      </form>
      {c.email?.confirmed === false && (
        <form method="post" action={`/notifications/${c.id}/confirm-again`}>
          <CsrfField csrf={csrf} />
          <button type="submit" class="secondary">
            Send the confirmation again
          </button>
        </form>
      )}
      <form method="post" action={`/notifications/${c.id}/delete`} data-confirm="Delete this channel, its rules and its delivery log?">
        <CsrfField csrf={csrf} />
        <button type="submit" class="danger">
          Delete channel
        </button>
      </form>
    </div>
  </section>
);

const Rules: FC<{
  c: ChannelView;
  canWrite: boolean;
  csrf: string;
  domains: Array<{ id: number; name: string }>;
  refused?: { errors: string[]; rule: RuleKept };
}> = ({ c, canWrite, csrf, domains, refused }) => {
  const names = new Map(domains.map((d) => [d.id, d.name]));
  return (
    <section class="panel" aria-labelledby="channel-rules">
      <h2 id="channel-rules">{`Rules (${c.rules.length})`}</h2>
      <p class="small muted">An alert is sent when any rule takes it; alerts that open together are sent as one message.</p>
      {c.rules.length === 0 ? (
        <p class="muted">No rule: nothing is sent to this channel.</p>
      ) : (
        <ul class="plain">
          {c.rules.map((r) => (
            <li>
              <span>{ruleSummary(r, names)}</span>{" "}
              {canWrite && (
                <form method="post" action={`/notifications/${c.id}/rules/${r.id}/delete`} class="inline">
                  <CsrfField csrf={csrf} />
                  <button type="submit" class="secondary small-button" aria-label={`Delete rule: ${ruleSummary(r, names)}`}>
                    Delete
                  </button>
                </form>
              )}
            </li>
          ))}
        </ul>
      )}
      {canWrite && (
        <details class="more" id="add-rule" open={refused !== undefined}>
          <summary>Add a rule</summary>
          {refused && (
            <Notice kind="bad">
              <ul>
                {refused.errors.map((m) => (
                  <li>{m}</li>
                ))}
              </ul>
            </Notice>
          )}
          <form method="post" action={`/notifications/${c.id}/rules#add-rule`}>
            <CsrfField csrf={csrf} />
            <RuleFields prefix="rule" domains={domains} kept={refused?.rule} />
            <button type="submit">Add rule</button>
          </form>
        </details>
      )}
    </section>
  );
};

const olderHref = (id: number, before: number) => `/notifications/${id}?before=${before}#delivery-log`;

const DeliveryLog: FC<{ c: ChannelView; log: LogPage; paged: boolean }> = ({ c, log, paged }) => (
  <section class="panel" aria-labelledby="delivery-log">
    <h2 id="delivery-log">Delivery log</h2>
    {log.rows.length === 0 ? (
      <p class="muted">Nothing was sent yet.</p>
    ) : (
      <div class="table-wrap">
        <table class="stack">
          <thead>
            <tr>
              <th scope="col">Message</th>
              <th scope="col">Time</th>
              <th scope="col">Alerts opened</th>
              <th scope="col">Alerts resolved</th>
              <th scope="col">Status</th>
              <th scope="col">Attempts</th>
              <th scope="col">Response</th>
              <th scope="col">Error</th>
              <th scope="col">Excerpt</th>
            </tr>
          </thead>
          <tbody>
            {log.rows.map((m) => (
              <tr>
                <td data-label="Message">
                  <a href={`/notifications/${c.id}/messages/${m.id}`}>{`#${m.id}${m.kind === "test" ? " (test)" : ""}`}</a>
                </td>
                <td data-label="Time" class="small">
                  {when(m.created_at)}
                </td>
                <td data-label="Opened">{m.alerts_opened}</td>
                <td data-label="Resolved">{m.alerts_resolved}</td>
                <td data-label="Status">
                  <MessageBadge status={m.status} />
                </td>
                <td data-label="Attempts">{m.attempts}</td>
                <td data-label="Response" class="small">
                  {m.response_status !== null ? `HTTP ${m.response_status}` : "—"}
                </td>
                <td data-label="Error" class="small wrap">
                  {m.error ?? "—"}
                </td>
                <td data-label="Excerpt" class="small mono wrap">
                  {m.response_excerpt ? m.response_excerpt.slice(0, 120) : "—"}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    )}
    {(paged || log.next_before !== null) && (
      <nav class="pager" aria-label="Older messages">
        {paged && <a href={`/notifications/${c.id}#delivery-log`}>Newest</a>}
        {log.next_before !== null && <a href={olderHref(c.id, log.next_before)}>Older</a>}
      </nav>
    )}
  </section>
);

interface ChannelData {
  c: ChannelView;
  log: LogPage;
  domains: Array<{ id: number; name: string }>;
  subscribed: boolean;
}

const ChannelPage: FC<{
  frame: Frame;
  data: ChannelData;
  paged: boolean;
  notice?: string;
  tested?: MessageView;
  refusedRule?: { errors: string[]; rule: RuleKept };
}> = ({ frame, data, paged, notice, tested, refusedRule }) => {
  const { c } = data;
  const canWrite = frame.signedIn?.ctx.scope === "full";
  const outcome = tested ? testOutcome(tested) : null;
  return (
    <Layout title={`Channel ${c.name}`} frame={frame} active="/notifications">
      <p class="small">
        <a href="/notifications">Notifications</a>
      </p>
      <h1>{c.name}</h1>
      {notice && <Notice kind="ok">{notice}</Notice>}
      {outcome && (
        <Notice kind={outcome.ok ? "ok" : "bad"} id="test-outcome">
          {outcome.text}
        </Notice>
      )}
      <section class="panel" aria-labelledby="channel-settings">
        <h2 id="channel-settings">Settings</h2>
        <dl class="fields">
          <dt>Kind</dt>
          <dd>{c.email ? `Email to ${c.email.mode === "members" ? "members who opt in" : "an address"}` : KIND_NAMES[c.kind]}</dd>
          <dt>Sends to</dt>
          <dd class="mono wrap">{channelTarget(c)}</dd>
          <dt>State</dt>
          <dd>
            <ChannelState c={c} />
          </dd>
          <dt>Failures in a row</dt>
          <dd>{c.failure_count}</dd>
          <dt>Last success</dt>
          <dd>{when(c.last_success_at)}</dd>
          <dt>Last failure</dt>
          <dd>{when(c.last_failure_at)}</dd>
          <dt>Added</dt>
          <dd>{when(c.created_at)}</dd>
        </dl>
        {c.email?.mode === "members" && (
          <form method="post" action={`/notifications/${c.id}/subscription`}>
            <CsrfField csrf={frame.csrf} />
            <input type="hidden" name="on" value={data.subscribed ? "0" : "1"} />
            <input type="hidden" name="back" value="channel" />
            <p>
              {data.subscribed ? "You get these alerts by email. " : "You do not get these alerts by email. "}
              <button type="submit" class="secondary">
                {data.subscribed ? "Stop emailing me" : "Email me"}
              </button>
            </p>
          </form>
        )}
      </section>
      {canWrite && <Actions c={c} csrf={frame.csrf} />}
      <Rules c={c} canWrite={canWrite} csrf={frame.csrf} domains={data.domains} refused={refusedRule} />
      <DeliveryLog c={c} log={data.log} paged={paged} />
    </Layout>
  );
};

type MessageDetail = Awaited<ReturnType<typeof getChannelMessage>>;

const MessagePageView: FC<{ frame: Frame; c: ChannelView; m: MessageDetail }> = ({ frame, c, m }) => (
  <Layout title={`Message #${m.id}`} frame={frame} active="/notifications">
    <p class="small">
      <a href={`/notifications/${c.id}`}>{`Back to ${c.name}`}</a>
    </p>
    <h1>{`Message #${m.id}${m.kind === "test" ? " (test)" : ""}`}</h1>
    <section class="panel" aria-labelledby="message-summary">
      <h2 id="message-summary">Summary</h2>
      <dl class="fields">
        <dt>Status</dt>
        <dd>
          <MessageBadge status={m.status} />
        </dd>
        <dt>Created</dt>
        <dd>{when(m.created_at)}</dd>
        <dt>Delivered</dt>
        <dd>{when(m.delivered_at)}</dd>
        <dt>Next retry</dt>
        <dd>{when(m.next_retry_at)}</dd>
        <dt>Requests sent</dt>
        <dd>{m.requests}</dd>
      </dl>
    </section>
    <section class="panel" aria-labelledby="message-alerts">
      <h2 id="message-alerts">{`Alerts (${m.alerts.length})`}</h2>
      {m.alerts.length === 0 ? (
        <p class="muted">{m.kind === "test" ? "A test message lists no alert." : "No alert is left in this message."}</p>
      ) : (
        <ul>
          {m.alerts.map((a) => (
            <li>
              <span class={`badge ${a.action === "resolve" ? "ok" : "warn"}`}>{a.action === "resolve" ? "resolved" : "opened"}</span>{" "}
              {`${String(a.alert.severity ?? "")} · ${String((a.alert.domain as { name?: string } | null)?.name ?? "team")} · ${String(a.alert.title ?? "")}`}
            </li>
          ))}
        </ul>
      )}
    </section>
    <section class="panel" aria-labelledby="message-attempts">
      <h2 id="message-attempts">{`Attempts (${m.attempts_log.length})`}</h2>
      {m.attempts_log.length === 0 ? (
        <p class="muted">Not attempted yet.</p>
      ) : (
        <div class="table-wrap">
          <table class="stack">
            <thead>
              <tr>
                <th scope="col">Attempt</th>
                <th scope="col">Time</th>
                <th scope="col">Response</th>
                <th scope="col">Error</th>
                <th scope="col">Duration</th>
                <th scope="col">Excerpt</th>
              </tr>
            </thead>
            <tbody>
              {m.attempts_log.map((a) => (
                <tr>
                  <td data-label="Attempt">{a.attempt}</td>
                  <td data-label="Time" class="small">
                    {when(a.at)}
                  </td>
                  <td data-label="Response">{a.status !== null ? `HTTP ${a.status}` : "—"}</td>
                  <td data-label="Error" class="small wrap">
                    {a.error ?? "—"}
                  </td>
                  <td data-label="Duration">{a.duration_ms !== null ? `${a.duration_ms} ms` : "—"}</td>
                  <td data-label="Excerpt" class="small">
                    {a.response_excerpt ? (
                      <pre class="payload" tabindex={0}>
                        {a.response_excerpt}
                      </pre>
                    ) : (
                      "—"
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  </Layout>
);

/** ?before= of the log's pager: a message id, or a 422 page. */
function beforeParam(raw: string | undefined): number | undefined {
  if (raw === undefined || raw === "") return undefined;
  if (!/^[1-9][0-9]{0,15}$/.test(raw)) throw validationFailed({ before: ["a message id from the Older link"] }, "That page of the log does not exist.");
  return Number(raw);
}

async function channelData(c: Context<AppEnv>, s: SignedIn, id: number, before?: number): Promise<ChannelData> {
  const svc = c.get("services");
  const [channel, log, domains, mine] = await Promise.all([
    getChannel(svc, s.ctx, id),
    listChannelMessages(svc, s.ctx, id, { before }),
    listDomains(svc, s.ctx, { page: 1, per_page: 200 }),
    subscriptionsOf(svc, s.teamId, s.user.id),
  ]);
  return { c: channel, log, domains: domains.items.map((d) => ({ id: d.id, name: d.name })), subscribed: mine.includes(id) };
}

export function notificationChannelPages() {
  const r = new Hono<AppEnv>();

  r.get("/notifications/:id", async (c) => {
    const s = signedInOrRedirect(c);
    if (s instanceof Response) return s;
    const id = idParam(c.req.param("id"));
    const before = beforeParam(c.req.query("before"));
    const data = await channelData(c, s, id, before);
    const testedId = Number(c.req.query("tested"));
    const tested = data.log.rows.find((m) => m.id === testedId && m.kind === "test");
    return c.html(
      <ChannelPage frame={await frameOf(c)} data={data} paged={before !== undefined} notice={NOTICES[c.req.query("done") ?? ""]} tested={tested} />,
    );
  });

  r.get("/notifications/:id/messages/:message", async (c) => {
    const s = signedInOrRedirect(c);
    if (s instanceof Response) return s;
    const id = idParam(c.req.param("id"));
    const svc = c.get("services");
    const [channel, m] = await Promise.all([getChannel(svc, s.ctx, id), getChannelMessage(svc, s.ctx, id, idParam(c.req.param("message")))]);
    return c.html(<MessagePageView frame={await frameOf(c)} c={channel} m={m} />);
  });

  const write = (path: string, act: (c: Context<AppEnv>, id: number, s: SignedIn, form: URLSearchParams) => Promise<Response>) =>
    r.post(path, async (c) => {
      const s = signedInOrRedirect(c);
      if (s instanceof Response) return s;
      const form = await readForm(c);
      checkCsrf(c, form.get("_csrf"));
      return act(c, idParam(c.req.param("id")), s, form);
    });

  for (const [action, enabled] of [
    ["enable", true],
    ["disable", false],
  ] as const) {
    write(`/notifications/:id/${action}`, async (c, id, s) => {
      await updateChannel(c.get("services"), s.ctx, id, { enabled });
      return c.redirect(`/notifications/${id}?done=${action}d`, 303);
    });
  }
  write("/notifications/:id/test", async (c, id, s) => {
    await meterPage(c, s);
    const m = await sendTestMessage(c.get("services"), s.ctx, id);
    return c.redirect(`/notifications/${id}?tested=${m.id}#test-outcome`, 303);
  });
  write("/notifications/:id/confirm-again", async (c, id, s) => {
    await meterPage(c, s);
    await resendConfirmation(c.get("services"), s.ctx, id);
    return c.redirect(`/notifications/${id}?done=confirm-resent`, 303);
  });
  write("/notifications/:id/delete", async (c, id, s) => {
    await deleteChannel(c.get("services"), s.ctx, id);
    return c.redirect("/notifications?done=deleted", 303);
  });
  write("/notifications/:id/rules", async (c, id, s, form) => {
    try {
      await addRule(c.get("services"), s.ctx, id, ruleFromForm(form));
      return c.redirect(`/notifications/${id}?done=rule-added`, 303);
    } catch (e) {
      if (!(e instanceof ApiError) || e.status !== 422) throw e;
      const data = await channelData(c, s, id);
      const refused = { errors: plainMessages(e, FIELD_LABELS), rule: keptRule(form) };
      return c.html(<ChannelPage frame={await frameOf(c)} data={data} paged={false} refusedRule={refused} />, 422);
    }
  });
  r.post("/notifications/:id/rules/:rule/delete", async (c) => {
    const s = signedInOrRedirect(c);
    if (s instanceof Response) return s;
    const form = await readForm(c);
    checkCsrf(c, form.get("_csrf"));
    const id = idParam(c.req.param("id"));
    await deleteRule(c.get("services"), s.ctx, id, idParam(c.req.param("rule")));
    return c.redirect(`/notifications/${id}?done=rule-deleted`, 303);
  });
  return r;
}
