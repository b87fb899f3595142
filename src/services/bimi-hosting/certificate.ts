// Upload the mark certificate served for a= (a PEM bundle, or fetched from an https URL the user gives,
// through the webhook target rules: no private or reserved addresses), validated against the hosted
// logo; the report, kind and end date are stored. An invalid certificate is kept and reported, never
// refused: the report says why. Does I/O (D1, DNS and HTTPS for a URL).
import { fetchTextCapped } from "../../core/net/http";
import { dependencyUnavailable, payloadTooLarge, validationFailed } from "../../lib/errors";
import type { Services } from "../../services";
import { type ServiceContext, requireWrite } from "../context";
import { checkTarget, MAX_URL_LENGTH } from "../webhooks/target";
import { findHosted, hostableDomain, normalizeSelector } from "./row";
import { type BimiHostingView, viewOf } from "./state";
import { writeHosted } from "./write";

/** A leaf with an embedded 32 KB logo plus two intermediates stays far below this. */
export const CERTIFICATE_MAX_BYTES = 128 * 1024;
const FETCH_TIMEOUT_MS = 10_000;

export interface PutCertificateInput {
  selector?: string | null;
  pem?: string | null;
  url?: string | null;
  origin: string | null;
}

const BEGIN = "-----BEGIN CERTIFICATE-----";
const END = "-----END CERTIFICATE-----";
const BLOCK = /-----BEGIN CERTIFICATE-----[\s\S]*?-----END CERTIFICATE-----/g;

/** The certificate blocks of a bundle, leaf first as given (RFC 7468 §5), one newline apart; anything else is dropped. */
export function certificateBundle(text: string, field: "pem" | "url"): string {
  // A private key never belongs here and must not be stored or served (it would be public at a=).
  if (/-----BEGIN [A-Z ]*PRIVATE KEY-----/.test(text)) throw validationFailed({ [field]: ["contains a private key; upload only the certificates"] });
  const blocks = text.replace(/\r\n?/g, "\n").match(BLOCK);
  if (!blocks) throw validationFailed({ [field]: ["must hold PEM certificates (-----BEGIN CERTIFICATE----- blocks, leaf first)"] });
  // RFC 7468 §3: a block holds base64 text (whitespace allowed); anything else is not a certificate and
  // would be served from the service's origin as it was given.
  const base64 = (block: string) => /^[A-Za-z0-9+/]+={0,2}$/.test(block.slice(BEGIN.length, -END.length).replace(/\s+/g, ""));
  if (!blocks.every(base64)) throw validationFailed({ [field]: ["each CERTIFICATE block must hold base64 text only (RFC 7468 §3)"] });
  return `${blocks.join("\n")}\n`;
}

async function fetchBundle(svc: Services, url: string): Promise<string> {
  if (url.length > MAX_URL_LENGTH) throw validationFailed({ url: [`must be at most ${MAX_URL_LENGTH} characters`] });
  const target = await checkTarget(svc, url);
  if (!target.ok) {
    if (target.error.code === "dns_temperror") throw dependencyUnavailable(`Could not resolve the certificate URL's host: ${target.error.message}`);
    throw validationFailed({ url: [target.error.message] });
  }
  // Redirects are not followed: their target would escape the address check above.
  const got = await fetchTextCapped(svc.fetch, target.value.href, { timeoutMs: FETCH_TIMEOUT_MS, maxBytes: CERTIFICATE_MAX_BYTES });
  if (!got.ok) throw validationFailed({ url: [`could not be fetched (${got.error})`] });
  const r = got.value;
  if (r.status >= 300 && r.status < 400)
    throw validationFailed({ url: [`redirects (HTTP ${r.status}${r.location ? ` to ${r.location}` : ""}); give the final URL`] });
  if (r.status !== 200) throw validationFailed({ url: [`answered HTTP ${r.status}`] });
  if (r.tooLarge) throw payloadTooLarge(`The certificate file at the URL is over ${CERTIFICATE_MAX_BYTES} bytes.`);
  return certificateBundle(r.body, "url");
}

export async function putCertificate(svc: Services, ctx: ServiceContext, domainId: number, input: PutCertificateInput): Promise<BimiHostingView> {
  requireWrite(ctx);
  // The domain first: another team's id is a 404 whatever the body holds (docs/decisions.md D1).
  const domain = await hostableDomain(svc, ctx, domainId);
  const selector = normalizeSelector(input.selector);
  const pem = input.pem ?? null;
  const url = input.url?.trim() || null;
  if ((pem === null || pem.trim() === "") === (url === null))
    throw validationFailed({ pem: ["give either the PEM bundle or an https url to fetch it from"] }, "Give the certificate as PEM or as a URL.");
  if (pem !== null && new TextEncoder().encode(pem).length > CERTIFICATE_MAX_BYTES)
    throw payloadTooLarge(`The certificate bundle must be at most ${CERTIFICATE_MAX_BYTES} bytes.`);
  const bundle = url !== null ? await fetchBundle(svc, url) : certificateBundle(pem ?? "", "pem");
  const existing = await findHosted(svc, ctx.teamId, domain.id, selector);
  await writeHosted(svc, ctx, domain, selector, existing, { certificatePem: bundle, certificateUrl: url, certificateUploadedAt: svc.clock.now() }, null, {
    verb: "bimi_hosting.certificate_upload",
    summary: `selector=${selector} source=${url === null ? "pem" : "url"}`,
  });
  const row = await findHosted(svc, ctx.teamId, domain.id, selector);
  return viewOf(svc, domain, selector, row, input.origin);
}
