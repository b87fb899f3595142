// OpenAPI schemas of hosted BIMI (issue 32 §2): the state, the validation report and the Gmail answer.
import { z } from "@hono/zod-openapi";
import { BIMI_HOSTING_EXAMPLE } from "./example";

const ts = (description: string) => z.string().nullable().openapi({ format: "date-time", description });
const STATE = z.enum(["met", "not_met", "cannot_tell"]);

export const SelectorQuery = z.object({
  selector: z
    .string()
    .max(63)
    .optional()
    .openapi({ description: 'The BIMI selector (default "default"): the record is at <selector>._bimi.<domain>.', example: "default" }),
});

const LogoFinding = z.object({
  rule: z.string().openapi({ example: "bimi.svg-not-square" }),
  severity: z.enum(["Critical", "High", "Medium", "Low", "Info"]),
  description: z.string(),
  fix: z.string().nullable(),
});

const CertificateCheck = z.object({
  id: z.string().openapi({ example: "chain" }),
  ok: z.boolean().nullable().openapi({ description: "null: cannot tell from the certificate alone." }),
  message: z.string(),
  fix: z.string().nullable(),
  blocking: z.boolean().openapi({
    description:
      "Whether a failure of this check makes the certificate invalid. false: it informs only (a subject field the CA should have set; receivers still honour the certificate).",
  }),
});

export const CertificateReportSchema = z
  .object({
    kind: z.enum(["VMC", "CMC"]).nullable().openapi({ description: "VMC: registered trademark; CMC: prior-use (or modified registered) mark." }),
    valid: z.boolean().openapi({ description: "Every check passed." }),
    checks: z.array(CertificateCheck),
    subject: z.object({
      organization: z.string().nullable(),
      common_name: z.string().nullable(),
      trademark_registration: z.string().nullable(),
      trademark_country: z.string().nullable(),
      mark_type: z.string().nullable(),
    }),
    issuer: z.string().nullable(),
    sans: z.array(z.string()),
    not_before: ts("Start of validity."),
    not_after: ts("End of validity."),
    embedded_svg_sha256: z.string().nullable().openapi({ description: "SHA-256 (hex) of the SVG in the logotype extension (RFC 3709)." }),
    logo_matches: z.boolean().nullable().openapi({ description: "The embedded SVG is the hosted logo; null when either is missing." }),
  })
  .openapi("MarkCertificateReport");

export const GmailReadinessSchema = z
  .object({
    verdict: z.enum(["shows", "does_not_show", "cannot_tell"]),
    summary: z.string().openapi({ description: "The answer in one sentence." }),
    requirements: z.array(
      z.object({
        id: z.enum(["dmarc_enforcement", "dmarc_pct", "logo_profile", "mark_certificate", "certificate_dates", "logo_matches_certificate", "record_published"]),
        label: z.string(),
        state: STATE,
        detail: z.string(),
        fix: z.string().nullable(),
      }),
    ),
    sources: z.array(z.object({ title: z.string(), url: z.string() })),
  })
  .openapi("GmailBimiReadiness");

export const BimiHosting = z
  .object({
    domain: z.object({ id: z.number().int(), name: z.string(), verified: z.boolean() }),
    selector: z.string(),
    hosted: z.boolean().openapi({ description: "A logo or certificate is stored for this selector." }),
    logo: z
      .object({
        url: z.string().nullable().openapi({ description: "The public URL for l= (null when SITE_URL is unset)." }),
        sha256: z.string(),
        bytes: z.number().int(),
        uploaded_at: ts("When the logo was uploaded."),
      })
      .nullable(),
    certificate: z
      .object({
        url: z.string().nullable().openapi({ description: "The public URL for a=." }),
        source_url: z.string().nullable().openapi({ description: "The URL it was fetched from, when given as a URL." }),
        kind: z.enum(["VMC", "CMC"]).nullable(),
        not_after: ts("End of validity."),
        uploaded_at: ts("When it was uploaded or fetched."),
      })
      .nullable(),
    record: z
      .object({ host: z.string(), type: z.literal("TXT"), value: z.string() })
      .nullable()
      .openapi({ description: "The BIMI record to publish; null when the service's public origin (SITE_URL) is not configured." }),
    published: z
      .object({
        status: z.string().nullable(),
        record: z.string().nullable(),
        logo: z.string().nullable(),
        authority: z.string().nullable(),
        host: z.string().openapi({ description: "The name answered for: <selector>._bimi.<domain>, or the Organizational Domain's when the domain has none." }),
        from_org_domain: z
          .boolean()
          .openapi({ description: "The domain has no record of its own and receivers fall back to the Organizational Domain's (BIMI draft)." }),
      })
      .nullable()
      .openapi({ description: "What DNS answers now for the record receivers use: status present, missing, invalid or temperror." }),
    validation: z
      .object({
        logo: z.object({ sha256: z.string(), bytes: z.number().int(), findings: z.array(LogoFinding) }).nullable(),
        certificate: CertificateReportSchema.nullable(),
      })
      .nullable(),
    validated_at: ts("When the validation report was made."),
    gmail: GmailReadinessSchema,
  })
  .openapi("BimiHosting", { example: BIMI_HOSTING_EXAMPLE });

export const LogoBody = z.object({
  svg: z.string().openapi({ description: "The SVG Tiny PS document, at most 32 KB." }),
});

export const CertificateBody = z.object({
  pem: z.string().optional().openapi({ description: "The PEM bundle, leaf first, then the intermediates." }),
  url: z.string().optional().openapi({ description: "An https URL to fetch the PEM bundle from (public addresses only)." }),
});
