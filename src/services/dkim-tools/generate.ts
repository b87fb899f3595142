// POST /dkim/generate service: validates the names and generates a key pair with WebCrypto. No I/O; nothing stored or logged.
import { generateKeyPair, isValidSelector, type GeneratedKey, type KeyAlgorithm } from "../../core/dkim";
import { normalizeDomainName } from "../../core/dns/names";
import { validationFailed, type FieldErrors } from "../../lib/errors";

export async function generateDkimKey(input: { domain: string; selector: string; algorithm: KeyAlgorithm }): Promise<GeneratedKey> {
  const errors: FieldErrors = {};
  const domain = normalizeDomainName(input.domain);
  if (!domain.ok) errors.domain = [domain.error];
  // RFC 6376 §3.1: a selector is a sub-domain (dot-separated labels).
  if (!isValidSelector(input.selector))
    errors.selector = [`"${input.selector}" is not a valid selector: use labels of letters, digits, hyphens or underscores separated by dots`];
  if (!domain.ok || errors.selector) throw validationFailed(errors);
  const r = await generateKeyPair({ domain: domain.value, selector: input.selector, algorithm: input.algorithm });
  // The names were checked above, so a failure here is the core refusing something we accepted.
  if (!r.ok) throw validationFailed({ domain: [r.error] });
  return r.value;
}
