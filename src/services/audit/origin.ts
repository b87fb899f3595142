// Where a call came from, for the audit log (docs/audit.md "Who and from where"): each face builds its
// CallOrigin here from the request's headers, so every face reads the client address the same way.
import type { CallOrigin, ServiceContext } from "../context";

const LABEL_MAX = 200;

/**
 * The client's address as Cloudflare's edge reports it (CF-Connecting-IP is set by the edge and replaces
 * any value the client sent, so it cannot be spoofed behind Cloudflare); null when absent (local calls).
 */
export function clientAddress(headers: Headers): string | null {
  const value = headers.get("cf-connecting-ip")?.trim();
  return value ? value.slice(0, 64) : null;
}

/** The origin of a request through one face, with a readable actor label (never a secret). */
export function requestOrigin(headers: Headers, face: CallOrigin["face"], label: string): CallOrigin {
  return { face, label: label.slice(0, LABEL_MAX), ip: clientAddress(headers), userAgent: headers.get("user-agent") };
}

/** How a team token is named in the log: its name and its public prefix, never the token. */
export const tokenLabel = (token: { name: string; prefix: string }) => `token ${token.name} (${token.prefix})`;

/** The operator's admin API acting on a team (actor kind "operator" in the log). */
export function operatorContext(teamId: number, headers: Headers): ServiceContext {
  return { teamId, scope: "full", actor: { kind: "system", id: "operator" }, origin: requestOrigin(headers, "operator", "the operator") };
}
