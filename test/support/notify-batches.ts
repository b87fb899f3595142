// Notification batches for the renderer tests (Slack, Teams, PagerDuty, email). Plain data, no workerd
// import, so the Node project's tests use it too.
import type { Severity } from "../../src/core/types";
import type { NotificationBatch, NotificationItem, NotifiedAlert } from "../../src/core/notify/types";

export const SITE_URL = "https://monitor.example";

let nextId = 1;

export function alertItem(over: Partial<NotifiedAlert> & { action?: "trigger" | "resolve" } = {}): NotificationItem {
  const { action = "trigger", ...alert } = over;
  const id = alert.id ?? nextId++;
  return {
    action,
    alert: {
      id,
      kind: "drift",
      subject: "dmarc.policy",
      severity: "High",
      title: "DMARC policy changed",
      body: "The DMARC record changed from p=reject to p=none.",
      domain: { id: 10, name: "example.com" },
      at: "2026-11-28T10:00:00.000Z",
      ...alert,
    },
  };
}

export function batchOf(items: NotificationItem[], over: Partial<NotificationBatch> = {}): NotificationBatch {
  return { messageId: 7, team: { id: 1, name: "Acme" }, siteUrl: SITE_URL, items, ...over };
}

const SEVERITIES: Severity[] = ["Critical", "High", "Medium", "Low", "Info"];

/** `n` openings over `domains` domains, severities cycling, so the most severe are spread through the list. */
export function burst(n: number, domains = 3): NotificationItem[] {
  return Array.from({ length: n }, (_, i) =>
    alertItem({
      id: 1000 + i,
      severity: SEVERITIES[(i * 7) % SEVERITIES.length],
      title: `Alert number ${i}`,
      domain: { id: 100 + (i % domains), name: `d${i % domains}.example` },
      at: new Date(Date.UTC(2026, 10, 28, 10, 0, i % 60)).toISOString(),
    }),
  );
}
