// The deployment's hosting settings (README "Hosting MTA-STS and BIMI"), read from the Worker's vars and
// secret. In local development (DEV_OUTBOX=true) without a token, a fake Cloudflare API inside the Worker
// answers instead (dev-cloudflare-api.ts, docs/decisions.md D219), with local names for the two zones.
import type { Services } from "../../services";

export interface HostingSettings {
  /** The Cloudflare for SaaS zone: custom hostnames and the id records live there. Null: not managed. */
  zoneId: string | null;
  token: string | null;
  apiBase: string;
  /** The `_mta-sts.<domain>` CNAME target is `<domain>.<idZone>`; null: only the plain TXT is offered. */
  idZone: string | null;
  /** What `mta-sts.<domain>` is a CNAME to (the SaaS zone's CNAME target). */
  cnameTarget: string | null;
  /** The fake API of local development answers (no token, DEV_OUTBOX=true). */
  devFake: boolean;
}

const DEFAULT_API_BASE = "https://api.cloudflare.com/client/v4";
const nonEmpty = (v: string | undefined): string | null => (v && v.trim() !== "" ? v.trim().toLowerCase().replace(/\.$/, "") : null);

export function hostingSettings(svc: Pick<Services, "env" | "config">): HostingSettings {
  const e = svc.env;
  const token = e.CLOUDFLARE_API_TOKEN?.trim() || null;
  const devFake = token === null && svc.config.devOutbox;
  return {
    zoneId: e.CF_SAAS_ZONE_ID?.trim() || (devFake ? "dev-zone" : null),
    token: token ?? (devFake ? "dev-token" : null),
    apiBase: (e.CLOUDFLARE_API_BASE?.trim() || DEFAULT_API_BASE).replace(/\/+$/, ""),
    idZone: nonEmpty(e.MTA_STS_ID_ZONE) ?? (devFake ? "sts-id.localhost" : null),
    cnameTarget: nonEmpty(e.MTA_STS_CNAME_TARGET) ?? (devFake ? "hosting.localhost" : null),
    devFake,
  };
}

/** The API is usable: a zone and a token. */
export const apiConfigured = (s: HostingSettings): boolean => s.zoneId !== null && s.token !== null;
