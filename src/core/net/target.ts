// Outbound target rules against SSRF (webhook receivers, MTA-STS policy hosts): URL shape, blocked
// names, and resolved addresses checked through the injected Resolver port. No I/O of its own.
import type { Lookup, Resolver } from "../dns/types";
import { err, ok, type Result } from "../types";
import { endsInANumber, isBlockedAddress, parseIPv4, parseIPv6 } from "./ip-rules";

export { isBlockedAddress } from "./ip-rules";

/** WEBHOOK_ALLOW_INSECURE / WEBHOOK_ALLOW_PRIVATE (docs/decisions.md D14). */
export interface TargetOptions {
  allowInsecure: boolean;
  allowPrivate: boolean;
}

export type TargetErrorCode = "invalid_url" | "insecure_scheme" | "credentials" | "blocked_address" | "blocked_name" | "unresolvable" | "dns_temperror";

export interface TargetError {
  code: TargetErrorCode;
  message: string;
}

const fail = (code: TargetErrorCode, message: string): Result<never, TargetError> => err({ code, message });

// Names that only ever mean this host or a private network: localhost (RFC 6761 §6.3), .internal
// (reserved by ICANN for private use; incl. metadata.google.internal), .local (mDNS, RFC 6762),
// .home.arpa (RFC 8375) and the common .localdomain alias.
const BLOCKED_SUFFIXES = ["localhost", "internal", "local", "home.arpa", "localdomain"];

/** True when a host name (not an IP literal) may never be a target. */
export function isBlockedName(host: string): boolean {
  const name = host.toLowerCase().replace(/\.$/, "");
  // A single label ("metadata", "intranet") is never a public name and may hit a search domain.
  if (!name.includes(".")) return true;
  return BLOCKED_SUFFIXES.some((s) => name === s || name.endsWith(`.${s}`));
}

/**
 * Checks a target URL without DNS: https only (http when allowInsecure), no userinfo (credentials
 * would be sent to the target and stored in logs), any port, and the host is neither an IP literal
 * in a blocked range nor a blocked name. allowPrivate lifts the host checks only.
 */
export function validateTargetUrl(url: string, opts: TargetOptions): Result<URL, TargetError> {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return fail("invalid_url", "not a valid absolute URL");
  }
  if (parsed.protocol === "http:" && !opts.allowInsecure) return fail("insecure_scheme", "the URL must use https");
  if (parsed.protocol !== "https:" && parsed.protocol !== "http:") return fail("invalid_url", "the URL must use https");
  if (parsed.username !== "" || parsed.password !== "") return fail("credentials", "the URL must not contain credentials");
  if (opts.allowPrivate) return ok(parsed);

  // The URL parser has already turned IPv4 in decimal, octal or hex form (URL Standard §4.3) into
  // dotted decimal; parseIPv4 accepts every form anyway, so a host given raw is judged the same.
  const host = parsed.hostname;
  if (host.startsWith("[")) {
    if (parseIPv6(host) === null) return fail("invalid_url", "malformed IPv6 address");
    return isBlockedAddress(host) ? fail("blocked_address", `${host} is not a public address`) : ok(parsed);
  }
  if (endsInANumber(host)) {
    if (parseIPv4(host) === null) return fail("invalid_url", "malformed IPv4 address");
    return isBlockedAddress(host) ? fail("blocked_address", `${host} is not a public address`) : ok(parsed);
  }
  if (isBlockedName(host)) return fail("blocked_name", `${host} is not a public host name`);
  return ok(parsed);
}

export interface CheckedTarget {
  url: URL;
  /** Addresses the name resolved to (the literal itself for an IP host; empty when not resolved). */
  addresses: string[];
}

/**
 * validateTargetUrl, then resolves A and AAAA through the Resolver and rejects when any address
 * is blocked: one private address is enough to reach an internal service. A temperror is its own
 * error (RFC 7208 §4.4 spirit: never read a failed lookup as "absent" or "fine").
 * With allowPrivate nothing is resolved. Residual risk: the runtime resolves again at fetch time
 * (DNS rebinding); deployed Workers cannot reach private addresses anyway (docs/decisions.md D20).
 */
export async function resolveAndCheckTarget(url: string, resolver: Resolver, opts: TargetOptions): Promise<Result<CheckedTarget, TargetError>> {
  const checked = validateTargetUrl(url, opts);
  if (!checked.ok) return checked;
  const target = checked.value;
  if (opts.allowPrivate) return ok({ url: target, addresses: [] });
  const host = target.hostname;
  if (host.startsWith("[") || endsInANumber(host)) return ok({ url: target, addresses: [host] });

  const name = host.replace(/\.$/, "");
  const [a, aaaa] = await Promise.all([resolver.query(name, "A"), resolver.query(name, "AAAA")]);
  const addresses: string[] = [];
  for (const lookup of [a, aaaa] as Lookup<string>[]) {
    if (lookup.kind === "temperror") return fail("dns_temperror", `DNS lookup for ${name} failed: ${lookup.reason}`);
    const alias = lookup.chain.find(isBlockedName);
    if (alias !== undefined) return fail("blocked_name", `${name} is an alias of ${alias}`);
    if (lookup.kind === "records") addresses.push(...lookup.records);
  }
  if (addresses.length === 0) return fail("unresolvable", `${name} has no A or AAAA records`);
  const blocked = addresses.find(isBlockedAddress);
  if (blocked !== undefined) return fail("blocked_address", `${name} resolves to ${blocked}, which is not a public address`);
  return ok({ url: target, addresses });
}
