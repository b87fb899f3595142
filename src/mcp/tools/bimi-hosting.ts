// Hosted BIMI, read-only (issue 32 §3: uploads happen on the dashboard or over REST): the hosted logo and
// certificate of a domain, the record to publish, the validation report and whether Gmail would show the logo.
import { z } from "zod";
import { getBimiHosting } from "../../services/bimi-hosting/state";
import { tool } from "../kit";
import { domainId } from "./ids";

export const bimiHostingTools = [
  tool({
    name: "get_bimi_hosting",
    title: "Hosted BIMI logo, certificate and validation report",
    description:
      "The BIMI logo and mark certificate (VMC or CMC) this service hosts for a domain: the public URLs for l= and a=, the TXT record to publish and what DNS answers for it now, the stored validation report (SVG Tiny PS findings of the logo; the certificate's checks with their fixes: chain to a BIMI-trusted root, key purpose, dates, names, the embedded logo and whether it matches) and gmail: each requirement Gmail publishes for showing a logo, met / not_met / cannot_tell, with the fix, and a one-sentence verdict. hosted=false when nothing is uploaded. Uploads are made on the dashboard or over the REST API.",
    input: z.object({
      domain_id: domainId,
      selector: z.string().max(63).optional().describe('The BIMI selector (default "default").'),
    }),
    effect: "read",
    // The check messages and the Gmail rows quote the certificate's own fields (mark type, organization, issuer).
    untrusted: [
      "validation.certificate.subject",
      "validation.certificate.issuer",
      "validation.certificate.sans",
      "validation.certificate.checks",
      "gmail.requirements",
      "gmail.summary",
      "published.record",
    ],
    run: async ({ svc, ctx }, { domain_id, selector }) => ({
      data: await getBimiHosting(svc, ctx, domain_id, { selector, origin: svc.config.siteUrl?.replace(/\/+$/, "") ?? null }),
    }),
  }),
];
