/** @jsxImportSource hono/jsx */
// Pieces shared by the notification pages: the kinds of channel a form can add, the rule fields (alert
// kinds, minimum severity, domains, cooldown) and how a form becomes a service input, a rule said in
// words, and a channel's state. No I/O.
import type { FC } from "hono/jsx";
import { SEVERITIES } from "../core/types";
import { validationFailed } from "../lib/errors";
import { ALERT_KINDS } from "../services/alerts/types";
import type { ChannelView, RuleView } from "../services/notify/channel-views";
import type { CreateChannelInput } from "../services/notify/channels";
import { DEFAULT_COOLDOWN_MINUTES, MAX_COOLDOWN_MINUTES, type RuleInput } from "../services/notify/rules";
import type { AlertView } from "../services/alerts/list-alerts";
import { alertGuide } from "./alert-kinds";

/** The add forms, one per way of telling people. `key` names the form (and its field ids) on the page. */
export const CHANNEL_FORMS = [
  { key: "email-members", title: "Email to members", kind: "email", mode: "members" },
  { key: "email-address", title: "Email to an address", kind: "email", mode: "address" },
  { key: "slack", title: "Slack", kind: "slack", mode: null },
  { key: "teams", title: "Microsoft Teams", kind: "teams", mode: null },
  { key: "pagerduty", title: "PagerDuty", kind: "pagerduty", mode: null },
] as const;
export type ChannelFormKey = (typeof CHANNEL_FORMS)[number]["key"];

/** How a refused form names its fields (plainMessages). */
export const FIELD_LABELS = {
  name: "Name",
  url: "Webhook URL",
  routing_key: "Routing key",
  address: "Email address",
  rules: "Rule",
  kinds: "Alert kinds",
  min_severity: "Minimum severity",
  domain_ids: "Domains",
  cooldown_minutes: "Cooldown",
};

/** The alerts page's own label for each kind ("DNS record changed"), so both pages say the same. */
export const kindLabel = (kind: string): string =>
  alertGuide({
    id: 0,
    domain: null,
    domain_id: null,
    kind: kind as AlertView["kind"],
    subject: "",
    severity: "Info",
    title: "",
    body: null,
    occurrences: 1,
    created_at: null,
    updated_at: null,
    resolved_at: null,
  }).label;

export const KIND_NAMES: Record<ChannelView["kind"], string> = { email: "Email", slack: "Slack", teams: "Microsoft Teams", pagerduty: "PagerDuty" };

const ids = (raw: string[], field: string): number[] => {
  const n = raw.map(Number);
  if (raw.length > 200 || n.some((x) => !Number.isSafeInteger(x) || x < 1))
    throw validationFailed({ [field]: ["choose domains from the list"] }, "Check the form.");
  return n;
};

/** The rule a form describes; the service checks the values themselves (kinds, severity, own domains, bounds). */
export function ruleFromForm(form: URLSearchParams): RuleInput {
  const cooldown = (form.get("cooldown_minutes") ?? "").trim();
  if (cooldown !== "" && !/^[0-9]{1,5}$/.test(cooldown))
    throw validationFailed({ cooldown_minutes: [`a whole number of minutes from 0 to ${MAX_COOLDOWN_MINUTES}`] }, "Check the form.");
  const domainIds = ids(form.getAll("domain_ids"), "domain_ids");
  return {
    kinds: form.getAll("kinds").slice(0, 50),
    min_severity: form.get("min_severity") ?? undefined,
    domain_ids: domainIds.length > 0 ? domainIds : null,
    cooldown_minutes: cooldown === "" ? undefined : Number(cooldown),
  };
}

/** A form's channel (its kind from the hidden `form` field) with its first rule. */
export function channelFromForm(form: URLSearchParams): { key: ChannelFormKey; input: CreateChannelInput } {
  const spec = CHANNEL_FORMS.find((f) => f.key === form.get("form"));
  if (!spec) throw validationFailed({ kind: ["choose one of the forms on the page"] }, "Check the form.");
  const text = (k: string) => (form.get(k) ?? "").trim().slice(0, 2048);
  const input: CreateChannelInput = { kind: spec.kind, name: text("name"), rules: [ruleFromForm(form)] };
  if (spec.kind === "email") {
    input.email_mode = spec.mode;
    if (spec.mode === "address") input.address = text("address");
  }
  if (spec.kind === "slack" || spec.kind === "teams") input.url = text("url");
  if (spec.kind === "pagerduty") input.routing_key = text("routing_key");
  return { key: spec.key, input };
}

/** "DNS record changed, Blocklisted · High and above · example.com · 30 min cooldown". */
export function ruleSummary(r: Pick<RuleView, "kinds" | "min_severity" | "domain_ids" | "cooldown_minutes">, domainNames: Map<number, string>): string {
  const kinds = r.kinds === null ? "Every kind" : r.kinds.map(kindLabel).join(", ");
  const severity = r.min_severity === "Info" ? "any severity" : `${r.min_severity} and above`;
  const domains = r.domain_ids === null ? "every domain" : r.domain_ids.map((id) => domainNames.get(id) ?? `domain ${id}`).join(", ");
  const cooldown = r.cooldown_minutes === 0 ? "no cooldown" : `${r.cooldown_minutes} min cooldown`;
  return `${kinds} · ${severity} · ${domains} · ${cooldown}`;
}

/** Where a channel sends: the hint of its secret target, its address, or how many members opted in. */
export function channelTarget(c: ChannelView): string {
  if (c.email?.mode === "address") return c.email.address ?? "—";
  if (c.email?.mode === "members") return `${c.email.subscribers ?? 0} member${c.email.subscribers === 1 ? "" : "s"} opted in`;
  return c.target_hint ?? "—";
}

export const ChannelState: FC<{ c: ChannelView }> = ({ c }) => {
  if (!c.enabled) return <span class="badge bad">{`disabled${c.disabled_reason ? ` (${c.disabled_reason})` : ""}`}</span>;
  if (c.email?.confirmed === false) return <span class="badge warn">waiting for the address to confirm</span>;
  return <span class="badge ok">enabled</span>;
};

export interface RuleKept {
  kinds: string[];
  min_severity: string;
  domain_ids: number[];
  cooldown: string;
}

/** What a refused form sent, to show it again as it was. */
export const keptRule = (form: URLSearchParams): RuleKept => ({
  kinds: form.getAll("kinds"),
  min_severity: form.get("min_severity") ?? "Medium",
  domain_ids: form.getAll("domain_ids").map(Number),
  cooldown: form.get("cooldown_minutes") ?? String(DEFAULT_COOLDOWN_MINUTES),
});

/** The rule fields of a form; `prefix` keeps the ids unique when a page holds several forms. */
export const RuleFields: FC<{ prefix: string; domains: Array<{ id: number; name: string }>; kept?: RuleKept; defaultSeverity?: string }> = ({
  prefix,
  domains,
  kept,
  defaultSeverity = "Medium",
}) => {
  const kinds = new Set(kept?.kinds ?? []);
  const chosenDomains = new Set(kept?.domain_ids ?? []);
  const severity = kept?.min_severity ?? defaultSeverity;
  return (
    <>
      <fieldset class="checks">
        <legend>Alert kinds (leave all unticked for every kind)</legend>
        {ALERT_KINDS.map((k) => (
          <label>
            <input type="checkbox" name="kinds" value={k} checked={kinds.has(k)} />
            <span>{kindLabel(k)}</span>
          </label>
        ))}
      </fieldset>
      <div class="row">
        <div>
          <label for={`${prefix}-severity`}>Minimum severity</label>
          <select id={`${prefix}-severity`} name="min_severity">
            {SEVERITIES.map((s) => (
              <option value={s} selected={s === severity}>
                {s === "Info" ? "Info (everything)" : `${s} and above`}
              </option>
            ))}
          </select>
        </div>
        <div>
          <label for={`${prefix}-cooldown`}>Cooldown in minutes</label>
          <input
            id={`${prefix}-cooldown`}
            name="cooldown_minutes"
            type="number"
            min={0}
            max={MAX_COOLDOWN_MINUTES}
            value={kept?.cooldown ?? String(DEFAULT_COOLDOWN_MINUTES)}
            aria-describedby={`${prefix}-cooldown-help`}
          />
        </div>
      </div>
      <p class="small muted" id={`${prefix}-cooldown-help`}>
        The same kind of alert on the same domain is not sent again within the cooldown.
      </p>
      {domains.length > 0 && (
        <fieldset class="checks">
          <legend>Only these domains (leave all unticked for every domain)</legend>
          {domains.map((d) => (
            <label>
              <input type="checkbox" name="domain_ids" value={String(d.id)} checked={chosenDomains.has(d.id)} />
              <span>{d.name}</span>
            </label>
          ))}
        </fieldset>
      )}
    </>
  );
};
