// Webhooks: endpoints and their delivery logs (spec §4 "Webhooks", §6).
import { createRouter } from "../../app-router";
import { deliveryRoutes } from "./deliveries";
import { endpointRoutes } from "./endpoints";

export const webhookRoutes = () => createRouter().route("/", endpointRoutes()).route("/", deliveryRoutes());
