// Bindings and settings of the Worker, typed once. Values are read through loadConfig().
import type { OAuthHelpers } from "@cloudflare/workers-oauth-provider";
import type { DomainStore } from "./durable-objects/domain-store/object";
import type { RateLimiter } from "./durable-objects/rate-limiter";
import type { TeamWebhooks } from "./durable-objects/team-webhooks/object";

export interface Env {
  DB: D1Database;
  CHECKS_QUEUE: Queue;
  DELIVERIES_QUEUE: Queue;
  RATE_LIMITER: DurableObjectNamespace<RateLimiter>;
  /** One object per domain: its report data (docs/decisions.md D120). */
  DOMAIN_STORE: DurableObjectNamespace<DomainStore>;
  /** One object per team: its webhook events, deliveries and endpoint streaks (docs/decisions.md D140). */
  TEAM_WEBHOOKS: DurableObjectNamespace<TeamWebhooks>;
  SEND_EMAIL?: SendEmail;
  /** Static data beside the script, read by the Worker only (wrangler.toml [assets]; docs/decisions.md D59). */
  ASSETS: Fetcher;
  ADMIN_TOKEN?: string;
  DOH_RESOLVERS?: string;
  /** "false" turns off the DNS answer cache shared across checks (docs/decisions.md D197). */
  DNS_SHARED_CACHE?: string;
  WEBHOOK_ALLOW_PRIVATE?: string;
  WEBHOOK_ALLOW_INSECURE?: string;
  DMARC_INGEST_SECRET?: string;
  /** Spamhaus Data Query Service key (secret). */
  DNSBL_DQS_KEY?: string;
  REPORT_DOMAIN?: string;
  SITE_URL?: string;
  WEBHOOK_SECRET_KEY?: string;
  WEBHOOK_SECRET_KEY_PREVIOUS?: string;
  NOTIFY_FROM?: string;
  /** PagerDuty Events API v2 endpoint: the US service by default; EU accounts use https://events.eu.pagerduty.com/v2/enqueue. */
  PAGERDUTY_EVENTS_URL?: string;
  /** Hosted MTA-STS (issue 32): the Cloudflare for SaaS zone (custom hostnames, and the `_mta-sts` id records
   *  under MTA_STS_ID_ZONE, a name inside that zone), the API token (secret), the API base, and the name
   *  customers point `mta-sts.<domain>` at with a CNAME. */
  CF_SAAS_ZONE_ID?: string;
  CLOUDFLARE_API_TOKEN?: string;
  CLOUDFLARE_API_BASE?: string;
  MTA_STS_ID_ZONE?: string;
  MTA_STS_CNAME_TARGET?: string;
  /** "true" in local development only: sign-in and invitation mail is kept at /dev/outbox. */
  DEV_OUTBOX?: string;
  /** OAuth clients, grants and tokens of the agent endpoint (workers-oauth-provider storage, docs/decisions.md D44). */
  OAUTH_KV: KVNamespace;
  /** Set by the OAuth provider on the requests it hands to the consent and grants pages. */
  OAUTH_PROVIDER?: OAuthHelpers;
}
