// Upload the logo served for l=: held to the SVG Tiny PS size limit (413), refused with every finding
// and its fix when it breaks the profile (422), stored with its SHA-256, and the hosted certificate (if
// any) validated again against it. Does I/O (D1).
import { inspectSvg, SVG_MAX_BYTES } from "../../core/bimi/svg";
import { sha256Hex } from "../../lib/crypto";
import { payloadTooLarge, validationFailed } from "../../lib/errors";
import type { Services } from "../../services";
import { type ServiceContext, requireWrite } from "../context";
import { findHosted, hostableDomain, normalizeSelector } from "./row";
import { type BimiHostingView, viewOf } from "./state";
import { writeHosted } from "./write";

/** The SVG Tiny PS limit the BIMI Group publishes (32 KB), as the posture check applies it. */
export const LOGO_MAX_BYTES = SVG_MAX_BYTES;

export interface PutLogoInput {
  selector?: string | null;
  svg: string | Uint8Array;
  origin: string | null;
}

/** A finding as one line a person can act on: what is wrong, then how to fix it. */
export const findingLine = (f: { description: string; fix: string | null }) => (f.fix ? `${f.description} Fix: ${f.fix}` : f.description);

export function decodeSvg(svg: string | Uint8Array): { text: string; bytes: number } {
  const raw = typeof svg === "string" ? new TextEncoder().encode(svg) : svg;
  if (raw.length > LOGO_MAX_BYTES) throw payloadTooLarge(`The logo is ${raw.length} bytes; SVG Tiny PS allows at most ${LOGO_MAX_BYTES} bytes (32 KB).`);
  if (raw.length === 0) throw validationFailed({ svg: ["must not be empty"] }, "Choose an SVG file.");
  let text: string;
  try {
    // ignoreBOM keeps a byte order mark in the text: the logo is stored and served byte for byte (D224).
    text = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true }).decode(raw);
  } catch {
    throw validationFailed({ svg: ["must be UTF-8 text"] }, "The logo is not an SVG text file.");
  }
  return { text, bytes: raw.length };
}

export async function putLogo(svc: Services, ctx: ServiceContext, domainId: number, input: PutLogoInput): Promise<BimiHostingView> {
  requireWrite(ctx);
  // The domain first: another team's id is a 404 whatever the body holds (docs/decisions.md D1).
  const domain = await hostableDomain(svc, ctx, domainId);
  const selector = normalizeSelector(input.selector);
  const { text, bytes } = decodeSvg(input.svg);
  const findings = inspectSvg(text, bytes);
  // Info findings (e.g. a view box that is not square) are advice; anything else breaks the profile.
  const broken = findings.filter((f) => f.severity !== "Info");
  if (broken.length > 0)
    throw validationFailed(
      { svg: broken.map(findingLine) },
      `The logo does not follow SVG Tiny PS (${broken.length} problem${broken.length === 1 ? "" : "s"}); fix each one and upload it again.`,
    );
  const existing = await findHosted(svc, ctx.teamId, domain.id, selector);
  const sha256 = await sha256Hex(text);
  const now = svc.clock.now();
  await writeHosted(
    svc,
    ctx,
    domain,
    selector,
    existing,
    { logoSvg: text, logoSha256: sha256, logoUploadedAt: now },
    { sha256, bytes, findings },
    { verb: "bimi_hosting.logo_upload", summary: `selector=${selector} bytes=${bytes} sha256=${sha256.slice(0, 16)}` },
  );
  return viewOf(svc, domain, selector, await findHosted(svc, ctx.teamId, domain.id, selector), input.origin);
}
