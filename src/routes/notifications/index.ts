// Notifications to people: channels, their rules and their delivery logs (docs/decisions.md D176-D181).
import { createRouter } from "../../app-router";
import { channelRoutes } from "./channels";
import { messageRoutes } from "./messages";
import { ruleRoutes } from "./rules";

export const notificationRoutes = () => createRouter().route("/", channelRoutes()).route("/", ruleRoutes()).route("/", messageRoutes());
