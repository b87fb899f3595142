// The origin that links in notifications are made from when there is no request to take it from (queued
// and scheduled work): SITE_URL; in local development only (DEV_OUTBOX=true) the dev server's loopback
// address, as for every other link (docs/decisions.md D148). Null: no link can be made; callers refuse.
import type { Services } from "../../services";

export const DEV_ORIGIN = "http://127.0.0.1:8787";

export function workOrigin(svc: Services): string | null {
  if (svc.config.siteUrl) return svc.config.siteUrl.replace(/\/+$/, "");
  return svc.config.devOutbox ? DEV_ORIGIN : null;
}
