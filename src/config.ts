// Validated settings from vars and secrets (README "Settings"). Read once per request or batch.
import { parseResolverList } from "./core/dns/doh-resolver";
import { PAGERDUTY_EVENTS_URL } from "./core/notify/pagerduty";
import type { Env } from "./env";

export interface Config {
  dohResolvers: string[];
  /** DNS_SHARED_CACHE: the DNS answer cache shared across checks (docs/decisions.md D194-D197); on unless "false". */
  dnsSharedCache: boolean;
  webhookAllowPrivate: boolean;
  webhookAllowInsecure: boolean;
  reportDomain: string;
  siteUrl: string | null;
  /** The admin token, null when unset or too short (then adminTokenTooShort says why the admin API is off). */
  adminToken: string | null;
  adminTokenTooShort: boolean;
  dmarcIngestSecret: string | null;
  /** Spamhaus Data Query Service key (secret): without it Spamhaus lists are "unknown" (docs/decisions.md D105). */
  dnsblDqsKey: string | null;
  webhookSecretKey: string | null;
  /** The key being retired: still opens secrets it sealed, never seals new ones. */
  webhookSecretKeyPrevious: string | null;
  notifyFrom: string | null;
  /** Where PagerDuty events go: PAGERDUTY_EVENTS_URL, or the US service's Events API v2 endpoint. */
  pagerDutyEventsUrl: string;
  /** Local development only: mail to people is also kept in the dev outbox shown at /dev/outbox. */
  devOutbox: boolean;
}

const flag = (v: string | undefined) => v?.trim().toLowerCase() === "true";
const nonEmpty = (v: string | undefined) => (v && v.trim() !== "" ? v.trim() : null);

/** Hosts a local development server answers on (wrangler dev listens on 127.0.0.1). */
const LOOPBACK_HOSTS = new Set(["127.0.0.1", "localhost", "[::1]"]);

/**
 * The origin every link and absolute URL is built from (docs/decisions.md D148): SITE_URL. Only in
 * local development (DEV_OUTBOX=true, which `npm start` writes into .dev.vars) may a missing SITE_URL
 * fall back to the request's own origin, and only when that is a loopback address; anything else is
 * null and the caller refuses to make the link. A Host header from the open internet never becomes a link.
 */
export function linkOrigin(config: Pick<Config, "siteUrl" | "devOutbox">, requestUrl: string): string | null {
  if (config.siteUrl) return config.siteUrl.replace(/\/+$/, "");
  if (!config.devOutbox) return null;
  const url = new URL(requestUrl);
  return LOOPBACK_HOSTS.has(url.hostname) ? url.origin : null;
}

/** A shorter ADMIN_TOKEN can be guessed or brute-forced: the admin API refuses to run with one (docs/limits.md). */
export const MIN_ADMIN_TOKEN_LENGTH = 32;

export function loadConfig(env: Env): Config {
  const admin = nonEmpty(env.ADMIN_TOKEN);
  return {
    dohResolvers: parseResolverList(env.DOH_RESOLVERS),
    dnsSharedCache: env.DNS_SHARED_CACHE?.trim().toLowerCase() !== "false",
    webhookAllowPrivate: flag(env.WEBHOOK_ALLOW_PRIVATE),
    webhookAllowInsecure: flag(env.WEBHOOK_ALLOW_INSECURE),
    reportDomain: nonEmpty(env.REPORT_DOMAIN) ?? "reports.emailauth.example",
    siteUrl: nonEmpty(env.SITE_URL),
    adminToken: admin !== null && admin.length >= MIN_ADMIN_TOKEN_LENGTH ? admin : null,
    adminTokenTooShort: admin !== null && admin.length < MIN_ADMIN_TOKEN_LENGTH,
    dmarcIngestSecret: nonEmpty(env.DMARC_INGEST_SECRET),
    dnsblDqsKey: nonEmpty(env.DNSBL_DQS_KEY),
    webhookSecretKey: nonEmpty(env.WEBHOOK_SECRET_KEY),
    webhookSecretKeyPrevious: nonEmpty(env.WEBHOOK_SECRET_KEY_PREVIOUS),
    notifyFrom: nonEmpty(env.NOTIFY_FROM),
    pagerDutyEventsUrl: nonEmpty(env.PAGERDUTY_EVENTS_URL) ?? PAGERDUTY_EVENTS_URL,
    devOutbox: flag(env.DEV_OUTBOX),
  };
}
