// The event catalogue of GET /webhook-events: every subscribable type with when it is sent (docs/decisions.md D10). No I/O.
import { EVENT_TYPES, type EventType } from "../events/emit";

const DESCRIPTIONS: Record<EventType, string> = {
  "domain.created": "A domain is added to the team.",
  "domain.verified": "Ownership is verified; monitoring started.",
  "domain.unverified": "The ownership record has been gone for 3 days in a row: the domain is pending again and takes no reports.",
  "domain.deleted": "A domain is removed.",
  "check.completed": "A posture check finishes (every run, with score and grade).",
  "posture.changed": "A check finds differences from the previous one (all changes in one event).",
  "dkim.selector.added": "A new DKIM selector is published.",
  "dkim.selector.removed": "A DKIM selector no longer resolves.",
  "dkim.key.rotated": "The public key behind a selector changes.",
  "dkim.key.revoked": "A DKIM key is revoked (empty p=).",
  "dkim.record.changed": "A DKIM record changes without a new key (flags, tags).",
  "dkim.key.stale": "A key has been published longer than the rotation threshold (daily audit).",
  "dns.record.changed": "An SPF, DMARC, BIMI, MTA-STS, TLS-RPT, DANE (TLSA) or MX record changes.",
  "blacklist.listed": "A domain or sending IP is listed on a DNS blacklist.",
  "blacklist.delisted": "A listing is cleared.",
  "alert.created": "An alert is raised.",
  "alert.resolved": "An alert is marked resolved.",
  "dmarc.report.received": "A DMARC aggregate report is ingested.",
  "tlsrpt.report.received": "An SMTP TLS report (RFC 8460) is ingested, by HTTPS or by mail.",
  "webhook.test": "The test action (POST /webhooks/{webhook}/test) runs; sent to that endpoint only.",
};

export const eventCatalogue = () => EVENT_TYPES.map((type) => ({ type, description: DESCRIPTIONS[type] }));
