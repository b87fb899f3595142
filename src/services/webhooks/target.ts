// Webhook target rules as the API applies them: URL shape plus a live DNS check (SSRF,
// docs/decisions.md D14). Does I/O (DNS through the resolver port).
import { resolveAndCheckTarget, type TargetError } from "../../core/net/target";
import type { Result } from "../../core/types";
import { dependencyUnavailable, validationFailed } from "../../lib/errors";
import type { Services } from "../../services";

export const MAX_URL_LENGTH = 2048;

/** Checks a target with the configured WEBHOOK_ALLOW_INSECURE / WEBHOOK_ALLOW_PRIVATE. */
export async function checkTarget(svc: Services, url: string): Promise<Result<URL, TargetError>> {
  const opts = { allowInsecure: svc.config.webhookAllowInsecure, allowPrivate: svc.config.webhookAllowPrivate };
  const checked = await resolveAndCheckTarget(url, svc.createResolver(), opts);
  return checked.ok ? { ok: true, value: checked.value.url } : checked;
}

/** For create and update: a rule violation is a 422 on `url`; a DNS failure is a 503, never "fine". */
export async function assertTargetAllowed(svc: Services, url: string): Promise<string> {
  if (url.length > MAX_URL_LENGTH) throw validationFailed({ url: [`must be at most ${MAX_URL_LENGTH} characters`] });
  const checked = await checkTarget(svc, url);
  if (checked.ok) return checked.value.href;
  if (checked.error.code === "dns_temperror") throw dependencyUnavailable(`Could not resolve the webhook URL's host: ${checked.error.message}`);
  throw validationFailed({ url: [checked.error.message] });
}
