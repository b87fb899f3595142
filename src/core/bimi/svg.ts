// BIMI logo checks for SVG Tiny Portable/Secure (size, profile, title, no scripts or external refs). I/O only via the HttpFetch port.
import type { Finding, HttpFetch } from "../types";
import { fetchTextCapped } from "../net/http";

/** SVG Tiny PS size limit used by the BIMI Group and checkdmarc: 32 KB. */
export const SVG_MAX_BYTES = 32 * 1024;

export interface SvgCheck {
  /** "unknown" when the logo could not be fetched (network, TLS, timeout). */
  status: "valid" | "invalid" | "unknown";
  bytes: number | null;
  findings: Finding[];
}

const f = (rule: string, severity: Finding["severity"], description: string, fix: string | null = null): Finding => ({
  rule,
  severity,
  description,
  fix,
});

const attr = (tag: string, name: string): string | null => {
  const m = new RegExp(`\\s${name}\\s*=\\s*["']([^"']*)["']`, "i").exec(tag);
  return m ? (m[1] ?? "") : null;
};

const PLACEHOLDER_TITLES = new Set(["", "logo", "untitled", "svg", "image", "title", "company logo"]);

/** Static checks over SVG text; exported for tests and for callers that already hold the file. */
export function inspectSvg(text: string, bytes: number): Finding[] {
  const out: Finding[] = [];
  if (bytes > SVG_MAX_BYTES) {
    out.push(
      f(
        "bimi.svg-too-large",
        "Medium",
        `Logo is over 32 KB (${bytes > SVG_MAX_BYTES * 4 ? "far " : ""}above the SVG Tiny PS limit).`,
        "Optimise the SVG (remove metadata, simplify paths) to 32 KB or less.",
      ),
    );
  }
  const root = /<svg\b[^>]*>/i.exec(text)?.[0];
  if (root === undefined) {
    out.push(f("bimi.svg-not-svg", "High", "The l= URL does not serve an SVG document."));
    return out;
  }
  if (attr(root, "version") !== "1.2" || attr(root, "baseProfile") !== "tiny-ps") {
    out.push(
      f(
        "bimi.svg-profile",
        "Medium",
        'Root <svg> must declare version="1.2" and baseProfile="tiny-ps" (SVG Tiny PS).',
        'Add version="1.2" baseProfile="tiny-ps" to the root <svg> element.',
      ),
    );
  }
  if (attr(root, "x") !== null || attr(root, "y") !== null) {
    out.push(f("bimi.svg-root-xy", "Low", "SVG Tiny PS forbids x= and y= attributes on the root <svg> element."));
  }
  const title = /<title\b[^>]*>([\s\S]*?)<\/title>/i.exec(text)?.[1]?.trim();
  if (title === undefined || PLACEHOLDER_TITLES.has(title.toLowerCase())) {
    out.push(
      f("bimi.svg-title", "Low", "SVG needs a <title> with the brand name (not a placeholder).", "Add <title>Your Brand</title> as the first child of <svg>."),
    );
  }
  if (/<script\b/i.test(text) || /\son[a-z]+\s*=/i.test(text)) {
    out.push(f("bimi.svg-script", "High", "SVG contains scripts or event handlers, which SVG Tiny PS forbids."));
  }
  // External references: any href other than a same-document fragment, or <image>/<foreignObject>.
  const hrefs = [...text.matchAll(/\s(?:xlink:)?href\s*=\s*["']([^"']*)["']/gi)].map((m) => m[1] ?? "");
  if (hrefs.some((h) => !h.startsWith("#")) || /<(image|foreignObject)\b/i.test(text)) {
    out.push(f("bimi.svg-external-ref", "High", "SVG references external content (href, <image> or <foreignObject>)."));
  }
  const vb = attr(root, "viewBox")
    ?.trim()
    .split(/[\s,]+/)
    .map(Number);
  if (vb && vb.length === 4 && vb.every(Number.isFinite) && vb[2] !== vb[3]) {
    out.push(f("bimi.svg-not-square", "Info", "Logo viewBox is not square; receivers crop it to a square or circle."));
  }
  return out;
}

export async function checkBimiSvg(url: string, fetch: HttpFetch, timeoutMs = 10_000): Promise<SvgCheck> {
  // Read one byte past the limit so an oversize file is detected without buffering all of it.
  const res = await fetchTextCapped(fetch, url, { timeoutMs, maxBytes: SVG_MAX_BYTES + 1 });
  if (!res.ok) {
    return { status: "unknown", bytes: null, findings: [f("bimi.svg-fetch-failed", "Info", `Logo could not be fetched (${res.error}); not checked.`)] };
  }
  const r = res.value;
  if (r.status >= 300 && r.status < 400) {
    return {
      status: "invalid",
      bytes: null,
      findings: [f("bimi.svg-redirect", "Medium", `Logo URL redirects (HTTP ${r.status}); publish the final URL in l=.`)],
    };
  }
  if (r.status !== 200) {
    return { status: "invalid", bytes: null, findings: [f("bimi.svg-unavailable", "High", `Logo URL returned HTTP ${r.status}.`)] };
  }
  const findings = inspectSvg(r.body, r.bytes);
  const bad = findings.some((x) => x.severity !== "Info");
  return { status: bad ? "invalid" : "valid", bytes: r.bytes, findings };
}
