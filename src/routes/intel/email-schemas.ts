// OpenAPI schemas of GET /intel/email and POST /intel/emails.
import { z } from "@hono/zod-openapi";

export { MAX_BATCH, EmailQuery, IntelEmailsRequest } from "../../services/intel/inputs";

export const IntelEmailCheck = z
  .object({
    email: z.string().openapi({ description: "The address (domain normalized to lower case / punycode), or the input when invalid." }),
    valid_syntax: z.boolean().openapi({ description: "RFC 5321/5322 addr-spec: local part ≤ 64 octets (dot-atom or quoted), domain ≤ 253, address ≤ 254." }),
    syntax_error: z.string().nullable(),
    domain: z.string().nullable(),
    mx: z.object({
      status: z
        .enum(["present", "null_mx", "none", "temperror", "not_checked"])
        .openapi({ description: "null_mx: RFC 7505, the domain accepts no mail. temperror: unknown now." }),
      hosts: z.array(z.object({ host: z.string(), preference: z.number().int(), status: z.string() })),
    }),
    provider: z
      .object({ name: z.string(), kind: z.enum(["mailbox", "security_gateway", "hosting"]) })
      .nullable()
      .openapi({ description: "Detected from the MX host names." }),
    free: z.boolean().openapi({ description: "A consumer mailbox service (gmail.com, outlook.com, ...)." }),
    disposable: z.boolean().openapi({ description: "The domain or a parent is on the disposable-email-domains list." }),
    role: z.boolean().openapi({ description: "A role mailbox (admin, info, support, noreply, ...)." }),
    policy: z.object({
      strength: z.enum(["strong", "moderate", "weak", "none", "unknown", "not_checked"]).openapi({
        description:
          "strong: DMARC quarantine/reject and SPF -all/~all; moderate: one of them; weak: records that enforce nothing (SPF alone leaves the From header spoofable); none: neither; unknown: DNS temperror.",
      }),
      spf: z.enum(["-all", "~all", "?all", "+all", "no_all", "none", "invalid", "temperror", "not_checked"]),
      dmarc: z.enum(["reject", "quarantine", "none", "missing", "temperror", "not_checked"]),
    }),
    score: z.number().int().min(0).max(100).openapi({ description: "100 = no risk signal; each reason takes its points off." }),
    reasons: z.array(z.object({ code: z.string(), message: z.string(), points: z.number().int() })),
  })
  .openapi("IntelEmailCheck", {
    example: {
      email: "info@example.com",
      valid_syntax: true,
      syntax_error: null,
      domain: "example.com",
      mx: { status: "present", hosts: [{ host: "aspmx.l.google.com", preference: 1, status: "ok" }] },
      provider: { name: "Google Workspace", kind: "mailbox" },
      free: false,
      disposable: false,
      role: true,
      policy: { strength: "strong", spf: "-all", dmarc: "reject" },
      score: 80,
      reasons: [{ code: "role_account", message: "A role mailbox (a team or system), not a person.", points: 20 }],
    },
  });

export const IntelEmailsResult = z
  .object({
    results: z.array(IntelEmailCheck).openapi({ description: "One per input address, in input order." }),
    count: z.number().int(),
    domains: z.number().int().openapi({ description: "Distinct domains resolved (each once)." }),
  })
  .openapi("IntelEmailsResult", {
    example: {
      count: 2,
      domains: 2,
      results: [
        {
          email: "jane@example.com",
          valid_syntax: true,
          syntax_error: null,
          domain: "example.com",
          mx: { status: "present", hosts: [{ host: "mx1.example.com", preference: 10, status: "ok" }] },
          provider: null,
          free: false,
          disposable: false,
          role: false,
          policy: { strength: "strong", spf: "-all", dmarc: "reject" },
          score: 100,
          reasons: [],
        },
        {
          email: "not an address",
          valid_syntax: false,
          syntax_error: "no @ between a local part and a domain",
          domain: null,
          mx: { status: "not_checked", hosts: [] },
          provider: null,
          free: false,
          disposable: false,
          role: false,
          policy: { strength: "not_checked", spf: "not_checked", dmarc: "not_checked" },
          score: 0,
          reasons: [{ code: "invalid_syntax", message: "Invalid address: no @ between a local part and a domain.", points: 100 }],
        },
      ],
    },
  });
