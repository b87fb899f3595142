// Where a domain's SMTP TLS reports go (docs/decisions.md D100): the HTTPS intake URL when the site's
// public root is configured, else the domain's report mailbox (both are RFC 8460 §3 rua forms). No I/O.
import type { Config } from "../../config";

export const TLS_INTAKE_PATH = "/api/webhooks/tlsrpt";

export function tlsRptRua(domain: { reportToken: string }, config: Pick<Config, "siteUrl" | "reportDomain">): string {
  if (config.siteUrl) return `${config.siteUrl.replace(/\/+$/, "")}${TLS_INTAKE_PATH}/${domain.reportToken}`;
  return `mailto:${domain.reportToken}@${config.reportDomain}`;
}
