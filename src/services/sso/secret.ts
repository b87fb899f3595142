// The OpenID client secret at rest: sealed with the webhook secret key like every stored secret,
// bound to its team ("team-sso:<id>", so a sealed value copied onto another team's row does not open).
// Never shown again after it is saved. No I/O besides WebCrypto.
import { openBound, sealBound } from "../../core/webhooks";
import type { Services } from "../../services";
import { sealingKeys, secretKeyMissing } from "../webhooks/secrets";

export const ssoSecretBinding = (teamId: number) => `team-sso:${teamId}`;

export async function sealClientSecret(svc: Services, plain: string, teamId: number): Promise<string> {
  const [current] = await sealingKeys(svc);
  if (!current || svc.config.webhookSecretKey === null) throw secretKeyMissing();
  return sealBound(plain, current, ssoSecretBinding(teamId));
}

/** The plain secret, or null when no configured key opens it (the key was replaced and the old one removed). */
export async function openClientSecret(svc: Services, sealed: string, teamId: number): Promise<string | null> {
  const opened = await openBound(sealed, await sealingKeys(svc), ssoSecretBinding(teamId));
  return opened.ok ? opened.value : null;
}
