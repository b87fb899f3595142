// Prompts (docs/decisions.md D43): ready-made tasks a user can pick in their assistant. They only
// phrase the request; the work is done by the tools, under the caller's own credential and limits.
import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { z } from "zod";

const domainArg = z.string().min(1).max(300).describe("The domain's id (from list_domains) or its name.");

export function registerPrompts(server: McpServer): void {
  server.registerPrompt(
    "audit_domain",
    {
      title: "Audit a domain and list the DNS changes to make",
      description: "Audits one domain's email authentication (SPF, DKIM, DMARC, BIMI, MTA-STS, TLS-RPT, DANE) and ends with the exact DNS records to change.",
      argsSchema: { domain: domainArg },
    },
    ({ domain }) => ({
      messages: [
        {
          role: "user",
          content: {
            type: "text",
            text: [
              `Audit the email authentication of ${domain}.`,
              "If it is one of my monitored domains (see list_domains), read get_domain_posture and get_dkim_overview, and get_dmarc_summary for who sends mail as it; otherwise use check_domain_intel with full: true and lookup_dkim.",
              "Explain each problem in one sentence, most severe first, then give the DNS changes to make as a table: host, type, current value, new value, and why.",
              "Do not change anything yourself; parts marked stale or temperror are unknown, not missing.",
            ].join("\n"),
          },
        },
      ],
    }),
  );
  server.registerPrompt(
    "plan_dmarc_enforcement",
    {
      title: "Plan the move to DMARC enforcement",
      description: "Reads a monitored domain's DMARC reports and proposes the steps from p=none to p=reject without losing legitimate mail.",
      argsSchema: { domain: domainArg },
    },
    ({ domain }) => ({
      messages: [
        {
          role: "user",
          content: {
            type: "text",
            text: [
              `Plan DMARC enforcement for ${domain}.`,
              "Use get_dmarc_summary (days: 30) for sources, failing senders and the enforcement advice, and get_domain_posture for the current records.",
              "List the senders that must be fixed first (with the SPF or DKIM change for each), then the policy steps with the DMARC record to publish at each step and when to take it.",
            ].join("\n"),
          },
        },
      ],
    }),
  );
}
