// Intelligence tools: live posture of any domain and risk checks of addresses (single and batch). Nothing stored.
import { z } from "zod";
import { EmailQuery, IntelEmailsRequest } from "../../services/intel/inputs";
import { domainIntel } from "../../services/intel/domain-intel";
import { checkEmail, checkEmailBatch } from "../../services/intel/emails";
import { tool } from "../kit";

export const intelTools = [
  tool({
    name: "check_domain_intel",
    title: "Live posture of any domain",
    description:
      "Analyzes any domain's SPF, DMARC, DKIM, BIMI, MTA-STS, TLS-RPT, DANE, MX and blocklist posture live, without adding it to the team. full: true returns the whole analysis with findings and fixes; otherwise a summary with score and grade. Both carry data.plan, the remediation plan: ordered steps with the exact records and the projected score after each. Use it for domains the team does not monitor (for monitored ones, get_domain_posture is cheaper).",
    input: z.object({
      domain: z.string().min(1).max(300).describe("Domain name, e.g. example.com; IDNs are converted to punycode."),
      full: z.boolean().optional().describe("true: the complete analysis with findings and fixes; default: the summary."),
    }),
    effect: "compute",
    openWorld: true,
    run: async ({ svc }, { domain, full }) => ({ data: await domainIntel(svc, domain, full === true) }),
  }),
  tool({
    name: "check_email",
    title: "Check one email address",
    description:
      "Risk check of one address: syntax, whether its domain accepts mail (MX, null MX), free, disposable and role accounts, the domain's DMARC policy, with a score and the reasons. Nothing is sent to the address.",
    input: EmailQuery,
    effect: "compute",
    openWorld: true,
    run: async ({ svc }, { email }) => ({ data: await checkEmail(svc, email) }),
  }),
  tool({
    name: "check_emails",
    title: "Check up to 100 email addresses",
    description: "The same risk check as check_email for 1 to 100 addresses in one call; each distinct domain is resolved once. Results come in input order.",
    input: IntelEmailsRequest,
    effect: "compute",
    openWorld: true,
    run: async ({ svc }, { emails }) => ({ data: await checkEmailBatch(svc, emails) }),
  }),
];
