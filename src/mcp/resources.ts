// Resources (docs/decisions.md D43): a monitored domain's latest posture and its DMARC summary, as
// JSON documents an agent can attach to its context. Reads count against the team's limits like tool
// calls; a refusal or an unknown domain is a JSON-RPC error (resources have no error result).
import { type McpServer, ResourceTemplate } from "@modelcontextprotocol/sdk/server/mcp.js";
import { McpError, type ReadResourceResult } from "@modelcontextprotocol/sdk/types.js";
import { ApiError } from "../lib/errors";
import { getDomainDetail } from "../services/domains/domain-detail";
import { listDomains } from "../services/domains/list-domains";
import { getDmarcAnalytics } from "../services/dmarc/analytics";
import { type AgentCall, admit, failure, untrustedNote } from "./kit";

/** MCP's "resource not found" code (spec: server/resources, error handling). */
const RESOURCE_NOT_FOUND = -32002;
/** Implementation-defined server error range of JSON-RPC 2.0 §5.1, used for a call refused by the team's limits. */
const LIMIT_REFUSED = -32029;
const LISTED_DOMAINS = 200;

async function readJson(call: AgentCall, uri: URL, rawId: unknown, load: (id: number) => Promise<unknown>): Promise<ReadResourceResult> {
  const id = Number(rawId);
  if (!Number.isSafeInteger(id) || id <= 0) throw new McpError(RESOURCE_NOT_FOUND, "Resource not found.", { uri: uri.href });
  try {
    const refused = await admit(call);
    if (refused)
      throw new McpError(LIMIT_REFUSED, String(refused.content[0]?.type === "text" ? refused.content[0].text : "Refused."), refused.structuredContent);
    return { contents: [{ uri: uri.href, mimeType: "application/json", text: JSON.stringify(await load(id)) }] };
  } catch (error) {
    if (error instanceof McpError) throw error;
    if (error instanceof ApiError && error.status === 404) throw new McpError(RESOURCE_NOT_FOUND, "Resource not found.", { uri: uri.href });
    if (error instanceof ApiError) throw new McpError(-32603, error.message, { code: error.code });
    // As a tool's unexpected failure (D158): the SDK would answer with the exception's text.
    const generic = failure(call, error).structuredContent as { error: { code: string; request_id?: string } };
    throw new McpError(-32603, "Internal error.", generic.error);
  }
}

function lister(call: AgentCall, suffix: string, label: string) {
  return async () => {
    const { items } = await listDomains(call.svc, call.ctx, { page: 1, per_page: LISTED_DOMAINS });
    return {
      resources: items.map((d) => ({
        uri: `emailauth://domains/${d.id}/${suffix}`,
        name: `${d.name} ${label}`,
        mimeType: "application/json",
      })),
    };
  };
}

export function registerResources(server: McpServer, call: AgentCall): void {
  server.registerResource(
    "domain-posture",
    new ResourceTemplate("emailauth://domains/{domain_id}/posture", { list: lister(call, "posture", "posture") }),
    {
      title: "Domain posture",
      description: "A monitored domain's latest stored posture: score, grade, every part's record and status, findings and the DNS fixes to publish.",
      mimeType: "application/json",
    },
    (uri, vars) => readJson(call, uri, vars.domain_id, (id) => getDomainDetail(call.svc, call.ctx, id)),
  );
  server.registerResource(
    "domain-dmarc",
    new ResourceTemplate("emailauth://domains/{domain_id}/dmarc", { list: lister(call, "dmarc", "DMARC summary (30 days)") }),
    {
      title: "DMARC summary",
      description: `A monitored domain's DMARC aggregate-report analytics over the last 30 days: sources, alignment, failing senders, enforcement advice.${untrustedNote(["sources[].ptr"])}`,
      mimeType: "application/json",
    },
    (uri, vars) => readJson(call, uri, vars.domain_id, (id) => getDmarcAnalytics(call.svc, call.ctx, id, 30)),
  );
}
