// Request and response schemas of /domains/{domain}/mta-sts-hosting (issue 32 §1, docs/decisions.md D214-D221).
import { z } from "@hono/zod-openapi";
import { MAX_AGE_LIMIT, MAX_MX_PATTERNS, MIN_MAX_AGE } from "../../core/mta-sts/hosting";

const dt = z.string().nullable().openapi({ format: "date-time" });

export const DomainParam = z.object({
  domain: z.coerce
    .number()
    .int()
    .positive()
    .max(Number.MAX_SAFE_INTEGER)
    .openapi({ param: { name: "domain", in: "path" }, description: "Domain id.", example: 1 }),
});

const days = z.coerce
  .number()
  .int()
  .min(1)
  .max(365)
  .openapi({ description: "The TLS report window the enforce rule reads, in days ending today (default 14).", example: 14 });

export const StatusQuery = z.object({ days: days.optional() });

export const HostingBody = z
  .object({
    mode: z
      .enum(["testing", "enforce"])
      .optional()
      .openapi({ description: "Default testing on enable; enforce passes the TLS report rule (as POST .../enforce)." }),
    mx: z
      .array(z.string().min(1).max(253))
      .min(1)
      .max(MAX_MX_PATTERNS)
      .optional()
      .openapi({
        description:
          'mx patterns (RFC 8461 §3.2; "*." only as the whole leftmost label); every live MX host must match one (§4.1). Default: the live MX hosts.',
        example: ["mx1.example.com", "*.mail.example.net"],
      }),
    max_age: z
      .number()
      .int()
      .min(MIN_MAX_AGE)
      .max(MAX_AGE_LIMIT)
      .optional()
      .openapi({
        description: `Seconds senders cache the policy: ${MIN_MAX_AGE} (one day) to ${MAX_AGE_LIMIT} (RFC 8461 §3.2). Default 604800.`,
        example: 604800,
      }),
    id_delivery: z
      .enum(["cname", "txt"])
      .optional()
      .openapi({ description: "cname: publish `_mta-sts` once as a CNAME and the service changes the id; txt: you publish each new id yourself." }),
    tls_window_days: days.optional(),
  })
  .strict()
  .openapi("MtaStsHostingInput", { example: { mode: "testing", mx: ["mx1.example.com"], max_age: 604800, id_delivery: "cname" } });

const LiveRecord = z.object({
  name: z.string(),
  type: z.enum(["CNAME", "TXT"]),
  value: z.string(),
  purpose: z.string(),
  live: z.object({
    state: z.enum(["ok", "missing", "different", "stale", "unknown"]).openapi({
      description: "What DNS shows now: ok, missing, different (another value), stale (an old policy id), unknown (DNS could not be read).",
    }),
    found: z.array(z.string()),
  }),
});

const example = {
  domain: { id: 1, name: "example.com", verified: true },
  managed: true,
  enabled: true,
  blocked: null,
  mx_hosts: [{ host: "mx1.example.com", covered: true }],
  enforce: {
    window_days: 14,
    reports: 12,
    successful: 5326,
    failed: 0,
    allowed: true,
    reason: "5326 sessions and no failure in the last 14 days (12 reports).",
  },
  records: [
    {
      name: "mta-sts.example.com",
      type: "CNAME" as const,
      value: "mta-sts.hosting.emailauth.example",
      purpose: "Points the policy host at this service.",
      live: { state: "ok" as const, found: ["mta-sts.hosting.emailauth.example"] },
    },
    {
      name: "_mta-sts.example.com",
      type: "CNAME" as const,
      value: "example.com.sts-id.emailauth.example",
      purpose: "Lets this service change the policy id for you.",
      live: { state: "ok" as const, found: ["example.com.sts-id.emailauth.example", "v=STSv1; id=20261128170509k3j2h1"] },
    },
  ],
  hosting: {
    state: "active" as const,
    mode: "testing" as const,
    mx: ["mx1.example.com"],
    max_age: 604800,
    policy_id: "20261128170509k3j2h1",
    policy_changed_at: "2026-11-28T17:05:09.000Z",
    policy_url: "https://mta-sts.example.com/.well-known/mta-sts.txt",
    policy_text: "version: STSv1\r\nmode: testing\r\nmx: mx1.example.com\r\nmax_age: 604800\r\n",
    id_delivery: "cname" as const,
    published_id: "20261128170509k3j2h1",
    published_checked_at: "2026-11-28T17:20:00.000Z",
    hostname: {
      name: "mta-sts.example.com",
      id: "0d89c70d-ad9f-4843-b99f-6cc0252067e9",
      status: "active",
      certificate_status: "active",
      validation: [],
      errors: [],
      api_error: null,
      checked_at: "2026-11-28T17:10:00.000Z",
    },
    retiring: null,
  },
};

export const HostingStatusSchema = z
  .object({
    domain: z.object({ id: z.number().int(), name: z.string(), verified: z.boolean() }),
    managed: z.boolean().openapi({ description: "The deployment manages custom hostnames and id records through the Cloudflare API." }),
    enabled: z.boolean(),
    blocked: z.string().nullable().openapi({ description: "Why hosting cannot be turned on (an unverified domain), or null." }),
    mx_hosts: z
      .array(z.object({ host: z.string(), covered: z.boolean() }))
      .nullable()
      .openapi({ description: "The live MX hosts and whether a hosted mx pattern matches each (RFC 8461 §4.1); null when DNS could not be read." }),
    enforce: z
      .object({
        window_days: z.number().int(),
        reports: z.number().int(),
        successful: z.number().int(),
        failed: z.number().int(),
        allowed: z.boolean(),
        reason: z.string(),
      })
      .openapi({ description: "Whether TLS reports (RFC 8460) of the window allow enforce: sessions and no failure." }),
    records: z.array(LiveRecord).openapi({ description: "The records to publish, each with its live state." }),
    hosting: z
      .object({
        state: z.enum(["active", "retiring"]),
        mode: z.enum(["testing", "enforce", "none"]),
        mx: z.array(z.string()),
        max_age: z.number().int(),
        policy_id: z.string().openapi({ description: "RFC 8461 §3.1 id; a new one with every policy change." }),
        policy_changed_at: dt,
        policy_url: z.string(),
        policy_text: z.string().openapi({ description: "The exact bytes served (CRLF line ends, RFC 8461 §3.2)." }),
        id_delivery: z.enum(["cname", "txt"]),
        published_id: z.string().nullable().openapi({ description: "The id the last DNS look found (null: none published)." }),
        published_checked_at: dt,
        hostname: z.object({
          name: z.string(),
          id: z.string().nullable(),
          status: z.string().nullable().openapi({ description: "The custom hostname's status (pending, active, ...)." }),
          certificate_status: z.string().nullable().openapi({ description: "Its certificate (pending_validation, active, ...)." }),
          validation: z.array(
            z.object({ txtName: z.string().optional(), txtValue: z.string().optional(), httpUrl: z.string().optional(), httpBody: z.string().optional() }),
          ),
          errors: z.array(z.string()),
          api_error: z.string().nullable(),
          checked_at: dt,
        }),
        retiring: z
          .object({ since: dt, safe_to_remove_at: dt, safe_now: z.boolean() })
          .nullable()
          .openapi({ description: "Turning off (RFC 8461 §8.3): mode none is served until safe_to_remove_at; then delete both records." }),
      })
      .nullable(),
  })
  .openapi("MtaStsHosting", { example });
