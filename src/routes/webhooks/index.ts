// Webhooks: endpoints and their delivery logs (docs/decisions.md D10-D14).
import { createRouter } from "../../app-router";
import { deliveryRoutes } from "./deliveries";
import { endpointRoutes } from "./endpoints";

export const webhookRoutes = () => createRouter().route("/", endpointRoutes()).route("/", deliveryRoutes());
