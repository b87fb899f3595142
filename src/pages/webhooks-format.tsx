/** @jsxImportSource hono/jsx */
// Pieces shared by the webhook pages: the form reader for create (the same bounds as the API body),
// the delivery status badge, the secret shown once. No I/O.
import type { FC } from "hono/jsx";
import { validationFailed } from "../lib/errors";
import type { CreateEndpointInput } from "../services/webhooks/create-endpoint";
import { Notice } from "./layout";

const STATUS_CLASS: Record<string, string> = { delivered: "ok", failed: "bad", pending: "warn" };
export const DeliveryBadge: FC<{ status: string }> = ({ status }) => <span class={`badge ${STATUS_CLASS[status] ?? ""}`}>{status}</span>;

/** The create form's fields with the API body's bounds (url 1-2048, description 500, 50 events, 100 domains). */
export function createInput(form: URLSearchParams): CreateEndpointInput {
  const url = (form.get("url") ?? "").trim();
  const description = (form.get("description") ?? "").trim();
  const events = form.getAll("events");
  const rawDomains = form.getAll("domain_ids");
  const errors: Record<string, string[]> = {};
  if (url.length === 0 || url.length > 2048) errors.url = ["enter the https address of your receiver (at most 2048 characters)"];
  if (description.length > 500) errors.description = ["at most 500 characters"];
  if (events.length > 50 || events.some((e) => e.length > 64)) errors.events = ["choose event types from the list"];
  const domainIds = rawDomains.map(Number);
  if (rawDomains.length > 100 || domainIds.some((n) => !Number.isSafeInteger(n) || n < 1)) errors.domain_ids = ["choose domains from the list"];
  if (Object.keys(errors).length > 0) throw validationFailed(errors, "Check the form.");
  return { url, description: description || null, events, domain_ids: domainIds.length > 0 ? domainIds : null };
}

/** Each event type in words, grouped by what it is about, for the create form (the machine name is shown small beside it). */
export const EVENT_GROUPS: Array<{ title: string; events: Array<[string, string]> }> = [
  {
    title: "Alerts",
    events: [
      ["alert.created", "An alert is raised"],
      ["alert.resolved", "An alert is resolved"],
    ],
  },
  {
    title: "Domain posture",
    events: [
      ["dns.record.changed", "An SPF, DMARC, MX, BIMI, MTA-STS, TLS-RPT or DANE record changes"],
      ["posture.changed", "A check finds any change (all of them in one event)"],
      ["check.completed", "Every finished check, with its score"],
    ],
  },
  {
    title: "DKIM",
    events: [
      ["dkim.key.revoked", "A DKIM key is revoked"],
      ["dkim.selector.removed", "A DKIM selector disappears"],
      ["dkim.selector.added", "A new DKIM selector appears"],
      ["dkim.key.rotated", "A DKIM key is replaced"],
      ["dkim.record.changed", "A DKIM record changes, same key"],
      ["dkim.key.stale", "A DKIM key is due for rotation"],
    ],
  },
  {
    title: "Blocklists",
    events: [
      ["blacklist.listed", "Listed on a blocklist"],
      ["blacklist.delisted", "Removed from a blocklist"],
    ],
  },
  {
    title: "Reports (DMARC and TLS)",
    events: [
      ["dmarc.report.received", "A DMARC aggregate report arrives"],
      ["tlsrpt.report.received", "An SMTP TLS report arrives"],
    ],
  },
  {
    title: "Domains",
    events: [
      ["domain.unverified", "Ownership proof is gone; monitoring stops"],
      ["domain.verified", "Ownership is verified"],
      ["domain.created", "A domain is added"],
      ["domain.deleted", "A domain is removed"],
      ["webhook.test", "The test button on the endpoint page"],
    ],
  },
];

/** Ticked on a new form: what needs a person's attention (an alert, a listing, a revoked key, lost ownership). */
export const DEFAULT_EVENTS = ["alert.created", "alert.resolved", "blacklist.listed", "dkim.key.revoked", "domain.unverified"];

export const SecretOnce: FC<{ secret: string; heading: string }> = ({ secret, heading }) => (
  <section class="panel" aria-labelledby="secret-once">
    <h2 id="secret-once">{heading}</h2>
    <Notice kind="info">Copy it now: it is shown only once. Your receiver checks each delivery's signature with it.</Notice>
    <div class="secret">
      <code id="webhook-secret">{secret}</code>
      <button type="button" class="secondary" data-copy={secret}>
        Copy secret
      </button>
    </div>
  </section>
);
