// OpenAPI schemas of the stateless DKIM tools (verify, generate, lookup), with examples. No I/O.
import { z } from "@hono/zod-openapi";
import { KEY_ALGORITHMS } from "../../services/dkim-tools/inputs";

// Inline on purpose (not a named component): the Finding component belongs to the shared schemas.
const FindingShape = z.object({
  rule: z.string(),
  severity: z.enum(["Critical", "High", "Medium", "Low", "Info"]),
  description: z.string(),
  fix: z.string().nullable(),
});

const KeyBrief = z.object({
  type: z.enum(["rsa", "ed25519"]),
  bits: z.number().int().nullable(),
  fingerprint: z.string().nullable().openapi({ description: "SHA-256 of the base64-decoded p= bytes, lower-case hex." }),
  testing: z.boolean().openapi({ description: "t=y in the key record." }),
});

const RESULTS = ["pass", "fail", "neutral", "none", "permerror", "temperror"] as const;

export const DkimSignatureCheck = z
  .object({
    domain: z.string().nullable().openapi({ description: "d=" }),
    selector: z.string().nullable().openapi({ description: "s=" }),
    algorithm: z.string().nullable().openapi({ description: "a=, e.g. rsa-sha256 or ed25519-sha256" }),
    canonicalization: z.string().nullable().openapi({ description: "header/body, e.g. relaxed/relaxed" }),
    headers: z.array(z.string()).openapi({ description: "h= as written (over-signed names repeat)." }),
    key: KeyBrief.nullable().openapi({ description: "The published key, when one was found and decoded." }),
    body_hash: z
      .enum(["pass", "fail"])
      .nullable()
      .openapi({ description: "bh= compared with the canonicalized body; null when the signature could not be parsed." }),
    result: z.enum(RESULTS).openapi({ description: "RFC 8601 result of this signature; neutral: expired (x=) or t= in the future." }),
    reason: z.string().nullable(),
    expires_at: z.string().nullable().openapi({ description: "x= as date-time" }),
    signed_at: z.string().nullable().openapi({ description: "t= as date-time" }),
    aligned: z.boolean().openapi({ description: "d= aligns with the From domain (strict or relaxed)." }),
    alignment: z.enum(["strict", "relaxed", "none"]),
    testing: z.boolean().openapi({ description: "The key has t=y (RFC 6376 §3.6.1): receivers treat the mail as unsigned, so `aligned` is false." }),
    length_limited: z.boolean().openapi({ description: "The signature has l=." }),
  })
  .openapi("DkimSignatureCheck");

const SIG_EXAMPLE = {
  domain: "football.example.com",
  selector: "brisbane",
  algorithm: "ed25519-sha256",
  canonicalization: "relaxed/relaxed",
  headers: ["from", "to", "subject", "date", "message-id", "from", "subject", "date"],
  key: { type: "ed25519", bits: 256, fingerprint: "21fe31dfa154a261626bf854046fd2271b7bed4b6abe45aa58877ef47f9721b9", testing: false },
  body_hash: "pass",
  result: "pass",
  reason: null,
  expires_at: null,
  signed_at: "2018-06-10T13:38:29.000Z",
  aligned: true,
  alignment: "strict",
  testing: false,
  length_limited: false,
} as const;

export const DkimVerification = z
  .object({
    result: z
      .enum(["pass", "fail", "none", "permerror", "temperror"])
      .openapi({ description: "pass when any signature passes; none when the message has no DKIM-Signature; otherwise fail, then temperror, then permerror." }),
    from_domain: z.string().nullable(),
    aligned: z.boolean().openapi({ description: "A passing signature aligns with the From domain." }),
    signatures: z.array(DkimSignatureCheck),
    warnings: z.array(z.string()),
  })
  .openapi("DkimVerification", {
    example: {
      result: "pass",
      from_domain: "football.example.com",
      aligned: true,
      signatures: [SIG_EXAMPLE],
      warnings: [],
    },
  });

export { VerifyBody, KEY_ALGORITHMS, GenerateBody, LookupQuery } from "../../services/dkim-tools/inputs";

export const DkimKeyPair = z
  .object({
    domain: z.string(),
    selector: z.string(),
    algorithm: z.enum(KEY_ALGORITHMS),
    dns: z.object({ host: z.string(), type: z.literal("TXT"), value: z.string() }),
    zone_file: z.string().openapi({ description: "BIND line with the value split into quoted strings of at most 255 bytes." }),
    fingerprint: z.string().openapi({ description: "SHA-256 of the p= bytes (SubjectPublicKeyInfo DER for RSA, the raw key for Ed25519), lower-case hex." }),
    key_bits: z.number().int(),
    private_key_pem: z.string().openapi({ description: "PKCS#8 PEM. Not stored anywhere: this response is the only copy." }),
  })
  .openapi("DkimKeyPair", {
    example: {
      domain: "example.com",
      selector: "mail2026",
      algorithm: "ed25519",
      dns: { host: "mail2026._domainkey.example.com", type: "TXT", value: "v=DKIM1; k=ed25519; p=6R9J2AHouMiZZlnKS02zH4Bsx+TM9FQEZ9/q1RpH7LQ=" },
      zone_file: 'mail2026._domainkey.example.com. IN TXT "v=DKIM1; k=ed25519; p=6R9J2AHouMiZZlnKS02zH4Bsx+TM9FQEZ9/q1RpH7LQ="',
      fingerprint: "5e42fdb2488617f83210fda63038477da85e6e2fbfbe12404e2fb89dba526545",
      key_bits: 256,
      private_key_pem: "-----BEGIN PRIVATE KEY-----\nMC4CAQAwBQYDK2VwBCIEIJPvBSWxFdvo6IDQUxX78wLvDaN1oCqqDoiLXvnodOQd\n-----END PRIVATE KEY-----\n",
    },
  });

export const DkimLookupSelector = z
  .object({
    host: z.string(),
    status: z.enum(["active", "invalid", "revoked", "temperror"]),
    delegated_to: z.string().nullable().openapi({ description: "First CNAME target of the selector." }),
    provider: z.string().nullable().openapi({ description: "Attributed from the CNAME target suffix only, never from the selector name." }),
    key: KeyBrief.extend({ revoked: z.boolean(), usable: z.boolean() }).nullable(),
    record: z.string().nullable(),
    issues: z.array(FindingShape),
  })
  .openapi("DkimLookupSelector");

export const DkimLookup = z
  .object({
    domain: z.string(),
    status: z.enum(["found", "not_found", "temperror"]),
    score: z.number().int().openapi({ description: "0-100: the best active key; less for weak, testing or sha1-only keys, and for a wildcard." }),
    summary: z.string(),
    scanned: z.number().int().openapi({ description: "Selectors checked." }),
    wildcard: z.boolean().openapi({ description: "A random selector answered: *._domainkey is a wildcard and results are unreliable." }),
    selectors: z.record(z.string(), DkimLookupSelector).openapi({ description: "Selectors that answered, by name." }),
    missing: z.record(z.string(), z.string()).openapi({ description: "Selectors with no record, by name, with the reason." }),
    issues: z.array(FindingShape),
  })
  .openapi("DkimLookup", {
    example: {
      domain: "example.com",
      status: "found",
      score: 70,
      summary: "1 active DKIM key(s) found among 2 selectors checked: s1",
      scanned: 2,
      wildcard: false,
      selectors: {
        s1: {
          host: "s1._domainkey.example.com",
          status: "active",
          delegated_to: "s1.domainkey.u123.wl.sendgrid.net",
          provider: "Twilio SendGrid",
          key: {
            type: "rsa",
            bits: 1024,
            fingerprint: "362d9a99501883f6d1ac717c53fff96582fb0a7c52464cb64b9082aa887bc7b4",
            testing: false,
            revoked: false,
            usable: true,
          },
          record: "v=DKIM1; k=rsa; p=MIGfMA0GCSqGSIb3DQEBAQUAA4GNADCBiQKBgQDkHlOQ...",
          issues: [
            {
              rule: "dkim.key.weak",
              severity: "Medium",
              description: "s1: The RSA key has 1024 bits; signers should use at least 2048 (RFC 8301 §3.2).",
              fix: "Rotate to a 2048-bit key under a new selector.",
            },
          ],
        },
      },
      missing: { google: "no such name" },
      issues: [
        {
          rule: "dkim.key.weak",
          severity: "Medium",
          description: "s1: The RSA key has 1024 bits; signers should use at least 2048 (RFC 8301 §3.2).",
          fix: "Rotate to a 2048-bit key under a new selector.",
        },
      ],
    },
  });
