// OpenAPI schemas of GET /intel/spf (SPF check_host() for one sending IP, RFC 7208 §4).
import { z } from "@hono/zod-openapi";

const SpfResult = z.enum(["none", "neutral", "pass", "fail", "softfail", "temperror", "permerror"]);

export const SpfQuery = z.object({
  domain: z
    .string()
    .min(1)
    .max(300)
    .openapi({ description: "The domain whose SPF record is evaluated (the MAIL FROM or HELO domain).", example: "example.com" }),
  ip: z.string().min(1).max(64).openapi({ description: "The sending client's IPv4 or IPv6 address.", example: "192.0.2.10" }),
  helo: z
    .string()
    .min(1)
    .max(300)
    .optional()
    .openapi({ description: "The HELO/EHLO name, for the %{h} macro; the domain when omitted.", example: "mail.example.com" }),
  sender: z.string().min(1).max(320).optional().openapi({
    description: "The MAIL FROM address, for the %{s}, %{l} and %{o} macros; postmaster@<domain> when omitted (RFC 7208 §2.4).",
    example: "bounces@example.com",
  }),
});

const PathStep = z.object({
  domain: z.string(),
  record: z.string().nullable().openapi({ description: "The SPF record evaluated; null when there is none or it could not be fetched." }),
  via: z.string().nullable().openapi({ description: 'The term that led here ("include:..." or "redirect=..."); null for the queried domain.' }),
  term: z.string().nullable().openapi({
    description:
      "The term of this record that decided its result (the matching mechanism, or redirect=), or the term an error stopped at; null for the default neutral or no record.",
  }),
  result: SpfResult.openapi({ description: "check_host() on this domain; an include target's result before RFC 7208 §5.2 maps it for its parent." }),
});

export const SpfCheckSchema = z
  .object({
    result: SpfResult.openapi({ description: "The SPF result (RFC 7208 §2.6). A temporary DNS error is the result temperror, not an HTTP error." }),
    domain: z.string(),
    ip: z.string().openapi({ description: "The address evaluated (IPv6 in RFC 5952 form, IPv4-mapped IPv6 as IPv4)." }),
    sender: z.string(),
    helo: z.string().nullable(),
    mechanism: z
      .string()
      .nullable()
      .openapi({ description: "The term that matched in the record that decided the result; null for the default neutral, none and errors." }),
    decided_by: z.string().openapi({ description: "The domain whose record holds `mechanism` (the queried domain or a redirect target)." }),
    explanation: z.string().nullable().openapi({ description: "The expanded exp= text (RFC 7208 §6.2), only for fail." }),
    reason: z.string().openapi({ description: "Why, in words." }),
    lookups: z.number().int().openapi({ description: "DNS-querying terms counted toward the limit of 10 (RFC 7208 §4.6.4)." }),
    void_lookups: z.number().int().openapi({ description: "Lookups that found nothing, counted toward the limit of 2 (RFC 7208 §4.6.4)." }),
    path: z.array(PathStep).openapi({ description: "Every record evaluated, in order: the queried domain, then include and redirect targets." }),
  })
  .openapi("SpfCheck", {
    example: {
      result: "pass",
      domain: "example.com",
      ip: "192.0.2.10",
      sender: "postmaster@example.com",
      helo: null,
      mechanism: "include:_spf.example.net",
      decided_by: "example.com",
      explanation: null,
      reason: "matched include:_spf.example.net in example.com",
      lookups: 1,
      void_lookups: 0,
      path: [
        { domain: "example.com", record: "v=spf1 include:_spf.example.net -all", via: null, term: "include:_spf.example.net", result: "pass" },
        { domain: "_spf.example.net", record: "v=spf1 ip4:192.0.2.0/24 -all", via: "include:_spf.example.net", term: "ip4:192.0.2.0/24", result: "pass" },
      ],
    },
  });
