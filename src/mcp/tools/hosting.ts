// The hosted MTA-STS tool, read-only (issue 32 §3): the policy served, the records to publish with their live
// state, the certificate of the policy host, and whether TLS reports allow enforce. Hosting is turned on,
// changed and turned off on the dashboard or over REST.
import { z } from "zod";
import { getHostingStatus } from "../../services/mta-sts-hosting/status";
import { tool } from "../kit";
import { domainId } from "./ids";

export const hostingTools = [
  tool({
    name: "get_mta_sts_hosting",
    title: "Hosted MTA-STS of a domain",
    description:
      "Whether this service hosts the domain's MTA-STS policy (RFC 8461) and its state: data.hosting (state active or retiring, mode, mx patterns, max_age, the policy id and the exact policy text served at policy_url, how the id reaches DNS, the policy host's custom hostname and certificate status, and while retiring when the records may be deleted), data.records (the two records to publish, each with what DNS shows now: ok, missing, different, stale or unknown), data.mx_hosts (each live MX host and whether a pattern covers it) and data.enforce (whether the TLS reports of the last `days` days allow moving to enforce, and why). data.hosting is null when hosting is off.",
    input: z.object({
      domain_id: domainId,
      days: z.number().int().min(1).max(365).default(14).describe("The TLS report window the enforce rule reads, 1 to 365 days (default 14)."),
    }),
    effect: "read",
    untrusted: ["records[].live.found", "hosting.hostname.errors"],
    run: async ({ svc, ctx }, { domain_id, days }) => ({ data: await getHostingStatus(svc, ctx, domain_id, days) }),
  }),
];
