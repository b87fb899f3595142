// What a notification is about, in plain data: the renderers (Slack, Teams, PagerDuty, email) and the
// grouping rules take these and nothing else. No I/O.
import type { Severity } from "../types";

/** One alert opening or resolving, as its event told it. */
export interface NotifiedAlert {
  /** The alert's id in this service (REST /api/v1/alerts/{id}). */
  id: number;
  kind: string;
  subject: string;
  severity: Severity;
  title: string;
  body: string | null;
  domain: { id: number; name: string } | null;
  /** ISO time the alert opened (trigger) or resolved (resolve). */
  at: string;
}

export interface NotificationItem {
  action: "trigger" | "resolve";
  alert: NotifiedAlert;
}

/** One grouped message: everything a channel is told at once (a burst becomes one of these, D179). */
export interface NotificationBatch {
  /** Stable id of the message (the delivery log row), for the receiver's own de-duplication. */
  messageId: number;
  team: { id: number; name: string };
  /** Absolute links: the dashboard page of each alert's domain and the alerts list. */
  siteUrl: string;
  items: NotificationItem[];
  /** A test message from the channel's test button: says so and lists no alert. */
  test?: boolean;
}

/** Severities from most to least urgent; a rule's minimum keeps this one and the ones before it. */
export const SEVERITY_ORDER: readonly Severity[] = ["Critical", "High", "Medium", "Low", "Info"];

export const severityRank = (s: Severity): number => {
  const i = SEVERITY_ORDER.indexOf(s);
  return i < 0 ? SEVERITY_ORDER.length : i;
};

/** Links a message carries: the alert (its domain's page) and the alerts list. */
export function alertLink(siteUrl: string, alert: NotifiedAlert): string {
  const base = siteUrl.replace(/\/+$/, "");
  return alert.domain ? `${base}/domains/${alert.domain.id}` : `${base}/alerts`;
}
export const alertsLink = (siteUrl: string): string => `${siteUrl.replace(/\/+$/, "")}/alerts`;
