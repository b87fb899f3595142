// A channel's secret target (a Slack or Teams webhook URL, a PagerDuty routing key): sealed at rest with the
// webhook secret key, bound to its channel ("notification-channel:<id>", so a sealed value copied onto another
// row does not open), and never shown again in full: only the hint (docs/decisions.md D178). No I/O besides WebCrypto.
import { openBound, sealBound } from "../../core/webhooks";
import type { Services } from "../../services";
import { sealingKeys, secretKeyMissing } from "../webhooks/secrets";

export const channelBinding = (channelId: number) => `notification-channel:${channelId}`;

export async function sealTarget(svc: Services, plain: string, channelId: number): Promise<string> {
  const [current] = await sealingKeys(svc);
  if (!current || svc.config.webhookSecretKey === null) throw secretKeyMissing();
  return sealBound(plain, current, channelBinding(channelId));
}

/** The plain target, or null when no configured key opens it (the key was replaced and the old one removed). */
export async function openTarget(svc: Services, sealed: string, channelId: number): Promise<string | null> {
  const opened = await openBound(sealed, await sealingKeys(svc), channelBinding(channelId));
  return opened.ok ? opened.value : null;
}

/**
 * What may be shown of a target: a URL's host and the last four characters of its path, or the last four
 * characters of a key. Enough to tell two channels apart, useless to send to.
 */
export function targetHint(kind: "slack" | "teams" | "pagerduty", plain: string): string {
  const tail = plain.slice(-4);
  if (kind === "pagerduty") return `routing key …${tail}`;
  try {
    return `${new URL(plain).host}/…${tail}`;
  } catch {
    return `…${tail}`;
  }
}
