// Every /api/v1 router, mounted in one place. Each capability adds its router here once it works.
import type { Api } from "../app-router";
import { accountRoutes } from "./account";
import { alertRoutes } from "./alerts";
import { auditRoutes } from "./audit";
import { bimiHostingRoutes } from "./bimi-hosting";
import { domainRoutes } from "./domains";
import { dkimToolRoutes } from "./dkim/tools";
import { domainDkimRoutes } from "./domain-dkim";
import { dmarcRoutes } from "./dmarc";
import { intelRoutes } from "./intel";
import { messageAuditRoutes } from "./messages/audit";
import { mtaStsHostingRoutes } from "./mta-sts-hosting";
import { notificationRoutes } from "./notifications";
import { ssoRoutes } from "./sso";
import { tlsRoutes } from "./tls";
import { webhookRoutes } from "./webhooks";

export function mountApiRoutes(v1: Api): void {
  v1.route("/", accountRoutes());
  v1.route("/", domainRoutes());
  v1.route("/", alertRoutes());
  v1.route("/", intelRoutes());
  v1.route("/", dkimToolRoutes());
  v1.route("/", messageAuditRoutes());
  v1.route("/", domainDkimRoutes());
  v1.route("/", dmarcRoutes());
  v1.route("/", tlsRoutes());
  v1.route("/", webhookRoutes());
  v1.route("/", notificationRoutes());
  v1.route("/", auditRoutes());
  v1.route("/", mtaStsHostingRoutes());
  v1.route("/", bimiHostingRoutes());
  v1.route("/", ssoRoutes());
}
