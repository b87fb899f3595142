// One MCP server per HTTP request (stateless, docs/decisions.md D40): the tools, resources and prompts,
// bound to the caller's AgentCall. Building it costs no I/O.
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { ZodJsonSchemaValidator } from "./json-schema";
import { type AgentCall, registerTools } from "./kit";
import { registerPrompts } from "./prompts";
import { registerResources } from "./resources";
import { auditTools } from "./tools/audit";
import { bimiHostingTools } from "./tools/bimi-hosting";
import { dkimTools } from "./tools/dkim";
import { domainTools } from "./tools/domains";
import { hostingTools } from "./tools/hosting";
import { intelTools } from "./tools/intel";
import { messageTools } from "./tools/messages";
import { notificationTools } from "./tools/notifications";
import { reportTools } from "./tools/reports";
import { webhookTools } from "./tools/webhooks";

export const SERVER_INFO = { name: "emailauth-monitor", version: "1.0.0" };

export const ALL_TOOLS = [
  ...domainTools,
  ...dkimTools,
  ...messageTools,
  ...reportTools,
  ...intelTools,
  ...webhookTools,
  ...notificationTools,
  ...bimiHostingTools,
  ...hostingTools,
  ...auditTools,
];

const INSTRUCTIONS =
  "Monitors the email authentication (SPF, DKIM, DMARC, BIMI, MTA-STS, TLS-RPT, DANE) of the team's domains. " +
  "Find domain ids with list_domains; get_domain_posture gives the exact DNS fixes. Every tool call counts against the team's plan " +
  "(per-minute limit and monthly quota); a refused call says when to retry. Tools marked destructive delete data: confirm with the user first.";

export function buildServer(call: AgentCall): McpServer {
  const server = new McpServer(SERVER_INFO, {
    capabilities: { tools: {}, resources: {}, prompts: {} },
    instructions: INSTRUCTIONS,
    jsonSchemaValidator: new ZodJsonSchemaValidator(), // not the SDK's per-server Ajv (json-schema.ts)
  });
  registerTools(server, call, ALL_TOOLS);
  registerResources(server, call);
  registerPrompts(server);
  return server;
}
