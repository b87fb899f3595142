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
