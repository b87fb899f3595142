// PagerDuty Events API v2 events for alerts: a trigger opens (or updates) an incident under a dedup key,
// a resolve with the same key closes it. Pure: no I/O.
// Trigger: https://developer.pagerduty.com/docs/events-api-v2/trigger-events/
// Resolve: https://developer.pagerduty.com/docs/events-api-v2/resolve-events/
// Limits from those pages: payload.summary at most 1024 characters; dedup_key at most 255 characters;
// payload.severity one of critical, error, warning, info; the whole event at most 512 KB (custom_details
// lists at most PAGERDUTY_MAX_DETAILS alerts, each with its title cut, so it stays far below).
import { cut, isHighSurrogate, oneLine, readingOrder, titleOf } from "./render-text";
import type { NotificationItem } from "./types";
import { alertLink, alertsLink } from "./types";
import type { Severity } from "../types";

export const PAGERDUTY_EVENTS_URL = "https://events.pagerduty.com/v2/enqueue";
export const PAGERDUTY_CLIENT = "Email-auth monitor";
export const PAGERDUTY_SUMMARY_MAX = 1024;
export const PAGERDUTY_DEDUP_KEY_MAX = 255;
export const PAGERDUTY_MAX_DETAILS = 50;

export type PagerDutySeverity = "critical" | "error" | "warning" | "info";

export interface PagerDutyIncident {
  action: "trigger" | "resolve";
  dedupKey: string;
  items: NotificationItem[];
}

export interface PagerDutyTrigger {
  routing_key: string;
  event_action: "trigger";
  dedup_key: string;
  payload: {
    summary: string;
    source: string;
    severity: PagerDutySeverity;
    timestamp?: string;
    component?: string;
    group?: string;
    class?: string;
    custom_details: {
      team: string;
      alerts: { id: number; kind: string; severity: Severity; title: string; domain: string | null; action: "trigger" | "resolve" }[];
      /** Alerts of the incident not listed above (the least urgent). */
      more: number;
    };
  };
  links: { href: string; text: string }[];
  client: string;
  client_url: string;
}
export interface PagerDutyResolve {
  routing_key: string;
  event_action: "resolve";
  dedup_key: string;
}
export type PagerDutyEvent = PagerDutyTrigger | PagerDutyResolve;

/**
 * This service's five severities on PagerDuty's four. Critical pages as critical; High is "error" (something
 * is broken: mail fails authentication); Medium is "warning"; Low and Info are both "info", since PagerDuty
 * has nothing below it (docs/decisions.md D183).
 */
export function pagerDutySeverity(s: Severity): PagerDutySeverity {
  switch (s) {
    case "Critical":
      return "critical";
    case "High":
      return "error";
    case "Medium":
      return "warning";
    default:
      return "info";
  }
}

export function pagerDutyEvent(incident: PagerDutyIncident, routingKey: string, ctx: { siteUrl: string; team: { id: number; name: string } }): PagerDutyEvent {
  const dedupKey = boundedDedupKey(incident.dedupKey);
  if (incident.action === "resolve") return { routing_key: routingKey, event_action: "resolve", dedup_key: dedupKey };
  // A trigger is about what opened; resolutions in the same batch only speak when nothing opened.
  const opened = incident.items.filter((i) => i.action === "trigger");
  const ordered = readingOrder(opened.length > 0 ? opened : incident.items);
  const lead = ordered[0];
  if (!lead) throw new Error("a PagerDuty trigger needs at least one alert");
  const domains = [...new Set(ordered.flatMap((i) => (i.alert.domain ? [i.alert.domain.name] : [])))];
  const kinds = [...new Set(ordered.map((i) => i.alert.kind))];
  const oneDomain = domains.length === 1 ? domains[0] : undefined;
  const oneKind = kinds.length === 1 ? kinds[0] : undefined;
  const listed = ordered.slice(0, PAGERDUTY_MAX_DETAILS);
  return {
    routing_key: routingKey,
    event_action: "trigger",
    dedup_key: dedupKey,
    payload: {
      summary: summary(ordered, domains),
      // The affected system: the domain when there is one, else this service.
      source: oneDomain ?? PAGERDUTY_CLIENT,
      severity: pagerDutySeverity(lead.alert.severity),
      ...optional("timestamp", earliest(ordered)),
      ...optional("component", oneKind),
      ...optional("group", oneDomain),
      ...optional("class", oneKind),
      custom_details: {
        team: ctx.team.name,
        alerts: listed.map(({ action, alert: a }) => ({
          id: a.id,
          kind: a.kind,
          severity: a.severity,
          title: cut(oneLine(a.title), 300),
          domain: a.domain?.name ?? null,
          action,
        })),
        more: ordered.length - listed.length,
      },
    },
    links: [
      { href: alertLink(ctx.siteUrl, lead.alert), text: lead.alert.domain ? `${lead.alert.domain.name} in Email-auth monitor` : "The alert" },
      { href: alertsLink(ctx.siteUrl), text: "All alerts" },
    ],
    client: PAGERDUTY_CLIENT,
    client_url: alertsLink(ctx.siteUrl),
  };
}

/** "[example.com] DMARC policy changed", or "3 alerts on example.com, a.org: <most urgent> and 2 more". */
function summary(ordered: NotificationItem[], domains: string[]): string {
  const [lead] = ordered;
  if (!lead) return "";
  const title = titleOf(lead);
  if (ordered.length === 1) return cut(lead.alert.domain ? `[${lead.alert.domain.name}] ${title}` : title, PAGERDUTY_SUMMARY_MAX);
  const where = domains.length > 0 ? ` on ${domains.join(", ")}` : "";
  return cut(`${ordered.length} alerts${where}: ${title} and ${ordered.length - 1} more`, PAGERDUTY_SUMMARY_MAX);
}

/** The earliest valid time among the items, as ISO 8601 (PagerDuty's timestamp format). */
function earliest(items: NotificationItem[]): string | undefined {
  const times = items.map((i) => Date.parse(i.alert.at)).filter((t) => Number.isFinite(t));
  return times.length > 0 ? new Date(Math.min(...times)).toISOString() : undefined;
}

const optional = <K extends string>(key: K, value: string | undefined): { [P in K]?: string } =>
  (value === undefined ? {} : { [key]: value }) as { [P in K]?: string };

/**
 * The dedup key as given when it fits PagerDuty's 255 characters; a longer one keeps its start and ends with
 * a hash of the whole (FNV-1a, 32 bits), so that it is still the same key for the trigger and its resolve.
 */
export function boundedDedupKey(key: string): string {
  if (key.length <= PAGERDUTY_DEDUP_KEY_MAX) return key;
  let h = 0x811c9dc5;
  for (let i = 0; i < key.length; i++) {
    h ^= key.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  const tail = `~${h.toString(16).padStart(8, "0")}`;
  let end = PAGERDUTY_DEDUP_KEY_MAX - tail.length;
  if (isHighSurrogate(key.charCodeAt(end - 1))) end -= 1;
  return `${key.slice(0, end)}${tail}`;
}
