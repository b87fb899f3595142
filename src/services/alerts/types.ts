// The shape every producer of alerts hands to the alert service (monitoring, DKIM inventory, DMARC).
import type { Severity } from "../../core/types";

export const ALERT_KINDS = [
  "drift",
  "blacklist",
  "dmarc_failure_spike",
  "expiry",
  "dkim",
  "ownership",
  "tls_failure",
  "new_sender",
  "reports_missing",
  "hosting",
] as const;
export type AlertKind = (typeof ALERT_KINDS)[number];

/** One open alert per (team, domain, kind, subject): a repeat updates it instead of adding another. */
export interface AlertDraft {
  teamId: number;
  domain: { id: number; name: string };
  kind: AlertKind;
  subject: string; // e.g. "dmarc.policy", "dkim:selector1", "dnsbl:zen.spamhaus.org:192.0.2.1"
  severity: Severity;
  title: string;
  body: string | null;
}
