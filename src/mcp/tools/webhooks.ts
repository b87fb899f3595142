// Webhook tools: endpoints, their delivery log, a test event and a redelivery.
import { z } from "zod";
import { pageMeta, PaginationQuery } from "../../lib/pagination";
import { listDeliveries, redeliver } from "../../services/webhooks/deliveries";
import { listEndpoints } from "../../services/webhooks/endpoints";
import { DeliveryQuery } from "../../services/webhooks/inputs";
import { sendTest } from "../../services/webhooks/send-test";
import { tool } from "../kit";
import { deliveryId, webhookId } from "./ids";

export const webhookTools = [
  tool({
    name: "list_webhooks",
    title: "List webhook endpoints",
    description:
      "The team's webhook endpoints: URL, subscribed event types, domain filter, enabled state and failure counters (secrets are never shown). meta.limit is the plan's allowance. Paginated like list_domains.",
    input: PaginationQuery,
    effect: "read",
    run: async ({ svc, ctx, team }, q) => {
      const { rows, total, limit } = await listEndpoints(svc, ctx, team.plan, q);
      return { data: rows, meta: { ...pageMeta(q, total), limit } };
    },
  }),
  tool({
    name: "list_webhook_deliveries",
    title: "Deliveries of a webhook endpoint",
    description:
      "An endpoint's delivery log (kept 30 days), newest first: event type, status (pending, delivered, failed), attempts, the receiver's last status code and the next retry. Filter with status or event. Use it to diagnose why a receiver did not get an event.",
    input: DeliveryQuery.extend({ webhook_id: webhookId }),
    effect: "read",
    run: async ({ svc, ctx }, { webhook_id, ...q }) => {
      const { rows, total } = await listDeliveries(svc, ctx, webhook_id, q);
      return { data: rows, meta: pageMeta(q, total) };
    },
  }),
  tool({
    name: "test_webhook",
    title: "Send a test event",
    description:
      "Sends a webhook.test event to one endpoint now and returns the delivery with the first attempt's outcome (status and the receiver's answer). A retryable failure continues on the retry schedule.",
    input: z.object({ webhook_id: webhookId }),
    effect: "write",
    openWorld: true,
    run: async ({ svc, ctx }, { webhook_id }) => ({ data: await sendTest(svc, ctx, webhook_id) }),
  }),
  tool({
    name: "redeliver_webhook_delivery",
    title: "Redeliver a webhook delivery",
    description:
      "Sends one delivery again now (same webhook-id, fresh timestamp and signature) and returns it after the attempt. Fails with conflict while an attempt of it is in flight.",
    input: z.object({ webhook_id: webhookId, delivery_id: deliveryId }),
    effect: "write",
    openWorld: true,
    run: async ({ svc, ctx }, { webhook_id, delivery_id }) => ({ data: await redeliver(svc, ctx, webhook_id, delivery_id) }),
  }),
];
