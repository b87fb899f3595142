// DKIM tools: a monitored domain's selector inventory and one selector's history, and the stateless
// tools (live lookup of any domain, verify a raw message, generate a key pair).
import { z } from "zod";
import type { SelectorScan } from "../../core/dkim";
import { getDkimOverview, getDkimSelector } from "../../services/dkim-inventory/overview";
import { DaysQuery } from "../../services/dkim-inventory/inputs";
import { generateDkimKey } from "../../services/dkim-tools/generate";
import { GenerateBody, LookupQuery, VerifyBody } from "../../services/dkim-tools/inputs";
import { lookupDkim } from "../../services/dkim-tools/lookup";
import { verifyDkimMessage } from "../../services/dkim-tools/verify";
import { tool } from "../kit";
import { domainId } from "./ids";

/** Names each found selector's host; names that do not exist are listed under `missing` only. */
function lookupView(scan: SelectorScan) {
  const selectors = Object.fromEntries(
    Object.entries(scan.selectors)
      .filter(([, e]) => e.status !== "missing")
      .map(([name, e]) => [name, { host: `${name}._domainkey.${scan.domain}`, ...e }]),
  );
  return { ...scan, selectors };
}

export const dkimTools = [
  tool({
    name: "get_dkim_overview",
    title: "DKIM selector inventory",
    description:
      "The monitored domain's DKIM selectors: status (active, revoked, invalid, missing, pending), key type and size, key age, provider, CNAME delegation, rotations, and which selectors DMARC reports show signing in the last `days` days (1-365, default 30). Use it to review DKIM health or find stale or weak keys.",
    input: DaysQuery.extend({ domain_id: domainId }),
    effect: "read",
    run: async ({ svc, ctx }, { domain_id, days }) => ({ data: await getDkimOverview(svc, ctx, domain_id, days) }),
  }),
  tool({
    name: "get_dkim_selector",
    title: "One DKIM selector",
    description:
      "One selector of a monitored domain with its key history (every key seen, when, and why it was retired) and its DMARC report evidence over `days` days. Use after get_dkim_overview to dig into one selector.",
    input: DaysQuery.extend({ domain_id: domainId, selector: z.string().min(1).max(253).describe("The selector name, e.g. selector1.") }),
    effect: "read",
    run: async ({ svc, ctx }, { domain_id, selector, days }) => ({ data: await getDkimSelector(svc, ctx, domain_id, selector, days) }),
  }),
  tool({
    name: "lookup_dkim",
    title: "Look up DKIM selectors of any domain",
    description:
      "Looks up DKIM keys of any domain live in DNS (not only monitored ones). Give `selector` and/or comma-separated `selectors` (at most 20 in all); with neither, the common selectors of major providers are scanned. Selectors cannot be enumerated, so an empty result means 'not found among the names checked', never 'no DKIM'.",
    input: LookupQuery,
    effect: "compute",
    openWorld: true,
    run: async ({ svc }, q) => ({ data: lookupView(await lookupDkim(svc, q)) }),
  }),
  tool({
    name: "verify_dkim_message",
    title: "Verify a message's DKIM signatures",
    description:
      "Verifies every DKIM-Signature of a raw RFC 5322 message (headers and body, at most 1 MB) against the keys published in DNS, and reports DMARC alignment with the From domain. A key lookup that fails is a temperror for that signature, never a fail. Nothing is stored.",
    input: VerifyBody,
    effect: "compute",
    openWorld: true,
    run: async ({ svc }, { message }) => ({ data: await verifyDkimMessage(svc, message) }),
  }),
  tool({
    name: "generate_dkim_key",
    title: "Generate a DKIM key pair",
    description:
      "Generates a DKIM key pair (rsa-2048 by default, or rsa-1024, rsa-4096, ed25519) and returns the exact TXT record to publish (dns.host, dns.value), a zone-file line and the private key in PEM. Nothing is stored: the answer is the only copy of the private key, so hand it to the user and do not repeat it elsewhere.",
    input: GenerateBody,
    effect: "compute",
    run: async (_call, input) => ({ data: await generateDkimKey(input) }),
  }),
];
