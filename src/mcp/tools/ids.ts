// Identifier inputs of the agent tools: JSON numbers (an MCP client sends typed arguments, unlike a URL path).
import { z } from "zod";

const id = (what: string) => z.number().int().positive().max(Number.MAX_SAFE_INTEGER).describe(what);

export const domainId = id("The domain's id, as list_domains returns it (not its name).");
export const alertId = id("The alert's id, as list_alerts returns it.");
export const webhookId = id("The webhook endpoint's id, as list_webhooks returns it.");
export const deliveryId = id("The delivery's id, as list_webhook_deliveries returns it.");
export const channelId = id("The notification channel's id, as list_notification_channels returns it.");
