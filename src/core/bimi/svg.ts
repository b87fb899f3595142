// BIMI logo checks for SVG Tiny Portable/Secure (size, profile, title, square, no scripts, animation, links, external refs or rasters). I/O only via the HttpFetch port.
import type { Finding, HttpFetch } from "../types";
import { fetchTextCapped } from "../net/http";

/** SVG Tiny PS size limit used by the BIMI Group and checkdmarc: 32 KB. */
export const SVG_MAX_BYTES = 32 * 1024;

export interface SvgCheck {
  /** "unknown" when the logo could not be fetched (network, TLS, timeout). */
  status: "valid" | "invalid" | "unknown";
  bytes: number | null;
  findings: Finding[];
  /** The logo as fetched (whole files only: null when over the cap or not fetched); compared with a mark certificate's. */
  body: string | null;
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

/** SVG Tiny 1.2 animation elements (SVG Tiny 1.2 §19); SVG Tiny PS allows no animation. */
const ANIMATION = /<(animate|animateColor|animateMotion|animateTransform|set|discard)\b/i;
/** Interactivity: links, SVG Tiny 1.2 event handlers and listeners (§13), focus attributes. */
const INTERACTIVE = /<(a|handler|listener)\b|\sfocusable\s*=|\snav-[a-z-]+\s*=/i;

// Every scan below runs in time linear in the text: the checks read logos fetched from any domain and the
// SVG inflated from any certificate's logotype, so a backtracking pattern such as /<[a-z][^>]*>/ over
// "<a <a <a ..." (no ">") would cost time quadratic in the file.

/** Where `close` ends after `from` (-1: not found). */
const endOf = (text: string, close: string, from: number): number => {
  const at = text.indexOf(close, from);
  return at < 0 ? -1 : at + close.length;
};

/** The end of the DOCTYPE declaration whose "<!DOCTYPE" ends at `from` ("[...]" subsets skipped; -1: unterminated). */
function doctypeEnd(text: string, from: number): number {
  for (let i = from; i < text.length; i++) {
    if (text[i] === ">") return i + 1;
    if (text[i] === "[") {
      const close = text.indexOf("]", i + 1);
      if (close < 0) return -1;
      i = close;
    }
  }
  return -1;
}

/** One kind of section a scan cuts out: where it ends (-1: unterminated) and what stands in its place. */
interface Section {
  end: (text: string, bodyStart: number) => number;
  replaceWith?: (body: string) => string;
}

/**
 * The text with every section that `opener` starts cut out (or replaced), in one pass from the left. `kinds`
 * maps each opener text (lower case) to its section. An unterminated section is left in place (it hides
 * nothing from the checks), and no later one of its kind is tried: its terminator is missing after it too.
 */
function cutSections(text: string, opener: RegExp, kinds: Record<string, Section>): string {
  const dead = new Set<string>();
  let out = "";
  let kept = 0;
  for (let m = opener.exec(text); m !== null; m = opener.exec(text)) {
    const key = m[0].toLowerCase();
    const kind = kinds[key];
    if (kind === undefined || dead.has(key)) continue;
    const bodyStart = m.index + m[0].length;
    const end = kind.end(text, bodyStart);
    if (end < 0) {
      dead.add(key);
      continue;
    }
    out += text.slice(kept, m.index);
    if (kind.replaceWith) out += kind.replaceWith(text.slice(bodyStart, end));
    kept = end;
    opener.lastIndex = end;
  }
  return out + text.slice(kept);
}

/** The XML declaration, processing instructions and the DOCTYPE: what may come before the document element. */
const withoutPrologNoise = (text: string): string =>
  cutSections(text, /<\?|<!DOCTYPE/gi, {
    "<?": { end: (t, from) => endOf(t, "?>", from) },
    "<!doctype": { end: doctypeEnd },
  });

const charOf = (n: string): string => {
  const code = n[0] === "x" || n[0] === "X" ? Number.parseInt(n.slice(1), 16) : Number(n);
  return code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : "";
};

/**
 * The text as an XML parser reads its markup: comments dropped and CDATA sections made text, in one pass
 * from the left (XML 1.0 §2.5, §2.7: "<!--" inside CDATA is text and "]]>" inside a comment is text, so
 * neither hides what follows).
 */
const withoutCommentsOrCdata = (text: string): string =>
  cutSections(text, /<!--|<!\[CDATA\[/g, {
    "<!--": { end: (t, from) => endOf(t, "-->", from), replaceWith: () => "" },
    "<![cdata[": {
      end: (t, from) => endOf(t, "]]>", from),
      replaceWith: (body) => body.slice(0, -3).replace(/&/g, "&amp;").replace(/</g, "&lt;"),
    },
  });

/** The first start tag: "<" and a name start, up to its ">" (null: none, or none closed). */
function firstTag(text: string): string | null {
  const start = /<[A-Za-z_]/.exec(text);
  if (start === null) return null;
  const end = text.indexOf(">", start.index);
  return end < 0 ? null : text.slice(start.index, end + 1);
}

/** The text of the first <title> element (null: none). */
function titleText(markup: string): string | null {
  const open = /<title\b/i.exec(markup);
  if (open === null) return null;
  const gt = markup.indexOf(">", open.index);
  if (gt < 0) return null;
  const close = /<\/title>/i;
  const rest = markup.slice(gt + 1);
  const at = close.exec(rest);
  return at === null ? null : rest.slice(0, at.index);
}

/** A DOCTYPE with an internal subset ("<!DOCTYPE svg [ ... ]"). */
function doctypeWithSubset(markup: string): boolean {
  const opener = /<!DOCTYPE/gi;
  for (let m = opener.exec(markup); m !== null; m = opener.exec(markup)) {
    let i = m.index + 9;
    while (i < markup.length && markup[i] !== ">" && markup[i] !== "[") i++;
    if (i >= markup.length) return false;
    if (markup[i] === "[") return true;
    opener.lastIndex = i + 1;
  }
  return false;
}

/** Every element name without its namespace prefix (Namespaces in XML 1.0 §4: svg:script and html:script are scripts a browser runs). */
const withoutPrefixes = (markup: string): string => markup.replace(/<(\/?)[A-Za-z_][\w.-]*:(?=[A-Za-z_])/g, "<$1");

const SVG_NS = "http://www.w3.org/2000/svg";

/**
 * Static checks over SVG text against the SVG Tiny Portable/Secure profile as the BIMI Group publishes it
 * (draft-svg-tiny-ps-abrotman): root svg version="1.2" baseProfile="tiny-ps", a title, a square viewBox,
 * no scripts, animation or interactivity, no external references, no raster images, 32 KB at most.
 * Every finding says what to change. Exported for uploads and for callers that already hold the file.
 */
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
  const plain = withoutCommentsOrCdata(text);
  const body = withoutPrefixes(plain);
  // XML 1.0 §2.8: the document element is the first start tag after the prolog; a tiny-ps <svg> nested in
  // another root (an XHTML page) is not an SVG document.
  const root = firstTag(withoutPrologNoise(plain));
  const rootName = root === null ? null : /^<(?:([A-Za-z_][\w.-]*):)?svg[\s/>]/.exec(root);
  if (root === null || rootName === null) {
    out.push(f("bimi.svg-not-svg", "High", "The file is not an SVG document.", "Export the logo as SVG (File > Save as SVG), then convert it to SVG Tiny PS."));
    return out;
  }
  // Namespaces in XML 1.0 §6.2: an <svg> root outside the SVG namespace (none, or XHTML's) is not SVG, and
  // what it holds (an <iframe>) is another language's markup.
  if (attr(root, rootName[1] ? `xmlns:${rootName[1]}` : "xmlns") !== SVG_NS) {
    out.push(
      f(
        "bimi.svg-namespace",
        "High",
        `The root <svg> is not in the SVG namespace (${SVG_NS}), so receivers do not read it as SVG.`,
        `Add xmlns="${SVG_NS}" to the root <svg> element.`,
      ),
    );
  }
  // XML 1.0 §4.3.3: a parser decodes by the declared encoding. The file is read (and served) as UTF-8, so
  // another name (UTF-7, where "+ADw-script+AD4-" is "<script>") would make receivers read other markup.
  const encoding = /^\uFEFF?<\?xml\s[^?]*?\bencoding\s*=\s*["']([^"']*)["']/.exec(text)?.[1];
  if (encoding !== undefined && !/^utf-?8$/i.test(encoding.trim())) {
    out.push(
      f(
        "bimi.svg-encoding",
        "High",
        "The XML declaration names an encoding other than UTF-8, so receivers would read the file differently from these checks.",
        'Save the file as UTF-8 and declare encoding="UTF-8" (or leave the encoding out).',
      ),
    );
  }
  if (doctypeWithSubset(body)) {
    out.push(
      f(
        "bimi.svg-dtd",
        "High",
        "SVG declares entities or attributes in a DOCTYPE ([...]), which can expand into hidden markup; SVG Tiny PS has no DTD.",
        "Remove the <!DOCTYPE ...> declaration (and every <!ENTITY> in it).",
      ),
    );
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
    out.push(
      f("bimi.svg-root-xy", "Low", "SVG Tiny PS forbids x= and y= attributes on the root <svg> element.", "Remove x= and y= from the root <svg> element."),
    );
  }
  const title = titleText(body)?.trim();
  if (title === undefined || PLACEHOLDER_TITLES.has(title.toLowerCase())) {
    out.push(
      f("bimi.svg-title", "Low", "SVG needs a <title> with the brand name (not a placeholder).", "Add <title>Your Brand</title> as the first child of <svg>."),
    );
  }
  if (/<script\b/i.test(body) || /\son[a-z]+\s*=/i.test(body)) {
    out.push(
      f(
        "bimi.svg-script",
        "High",
        "SVG contains scripts or event handlers, which SVG Tiny PS forbids.",
        "Remove every <script> element and every on...= attribute (onclick, onload...).",
      ),
    );
  }
  // External references: any href (under any namespace prefix: xl:href is xlink:href) or CSS url() other
  // than a same-document fragment, a CSS @import, a stylesheet processing instruction, xml:base, or <foreignObject>.
  // Character references are read as the XML parser reads them: u&#114;l( is url(.
  const refs = body.replace(/&#(x[0-9a-f]+|[0-9]+);/gi, (_m, n: string) => charOf(n));
  const hrefs = [...refs.matchAll(/\s(?:[A-Za-z_][\w.-]*:)?href\s*=\s*["']([^"']*)["']/gi)].map((m) => m[1] ?? "");
  const urls = [...refs.matchAll(/url\(\s*["']?\s*([^"')\s]*)/gi)].map((m) => m[1] ?? "");
  if (
    [...hrefs, ...urls].some((h) => !h.startsWith("#")) ||
    /@import\b/i.test(refs) ||
    /<\?xml-stylesheet\b/i.test(body) ||
    // XML Base: xml:base turns even href="#id" into a reference to another document.
    /\sxml:base\s*=/i.test(body) ||
    /<foreignObject\b/i.test(body)
  ) {
    out.push(
      f(
        "bimi.svg-external-ref",
        "High",
        "SVG references external content (an href or CSS url() to another file or URL, a stylesheet, xml:base, or <foreignObject>).",
        'Keep everything inside the file: only href="#id" and url(#id) references to elements of the same SVG are allowed, and no xml:base.',
      ),
    );
  }
  if (/<image\b/i.test(body)) {
    out.push(
      f(
        "bimi.svg-raster-image",
        "High",
        "SVG contains an <image> (a raster picture), which SVG Tiny PS forbids.",
        "Redraw the picture as vector shapes (paths); a PNG or JPEG inside the SVG is not allowed.",
      ),
    );
  }
  const animation = ANIMATION.exec(body)?.[1];
  if (animation !== undefined) {
    out.push(
      f(
        "bimi.svg-animation",
        "High",
        `SVG contains animation (<${animation}>), which SVG Tiny PS forbids.`,
        "Remove every animation element; the logo must be still.",
      ),
    );
  }
  if (INTERACTIVE.test(body)) {
    out.push(
      f(
        "bimi.svg-interactive",
        "Medium",
        "SVG contains interactive content (links, handlers or focus attributes), which SVG Tiny PS forbids.",
        "Remove <a> links, <handler>/<listener> elements and focusable/nav-* attributes.",
      ),
    );
  }
  const vb = attr(root, "viewBox")
    ?.trim()
    .split(/[\s,]+/)
    .map(Number);
  if (vb === undefined) {
    out.push(
      f(
        "bimi.svg-no-viewbox",
        "Low",
        "The root <svg> has no viewBox, so receivers cannot tell it is square.",
        'Add a square viewBox, e.g. viewBox="0 0 512 512".',
      ),
    );
  } else if (vb.length !== 4 || !vb.every(Number.isFinite) || (vb[2] ?? 0) <= 0 || (vb[3] ?? 0) <= 0) {
    // SVG Tiny 1.2 §7.7: four numbers, min-x min-y width height; a width or height of 0 or less shows nothing.
    out.push(
      f(
        "bimi.svg-viewbox-invalid",
        "Low",
        // The value is not quoted back: posture findings reach agents, and this text is the logo owner's.
        "The root viewBox is not four numbers with a positive width and height.",
        'Give a square viewBox of four numbers, e.g. viewBox="0 0 512 512".',
      ),
    );
  } else if (vb[2] !== vb[3]) {
    out.push(
      f(
        "bimi.svg-not-square",
        "Low",
        `Logo viewBox is not square (${vb[2]} x ${vb[3]}); receivers show the logo in a square or circle.`,
        "Make the viewBox square (equal width and height) and center the logo in it.",
      ),
    );
  }
  return out;
}

export async function checkBimiSvg(url: string, fetch: HttpFetch, timeoutMs = 10_000): Promise<SvgCheck> {
  // Read one byte past the limit so an oversize file is detected without buffering all of it.
  const res = await fetchTextCapped(fetch, url, { timeoutMs, maxBytes: SVG_MAX_BYTES + 1 });
  if (!res.ok) {
    return {
      status: "unknown",
      bytes: null,
      findings: [f("bimi.svg-fetch-failed", "Info", `Logo could not be fetched (${res.error}); not checked.`)],
      body: null,
    };
  }
  const r = res.value;
  if (r.status >= 300 && r.status < 400) {
    return {
      status: "invalid",
      bytes: null,
      body: null,
      findings: [f("bimi.svg-redirect", "Medium", `Logo URL redirects (HTTP ${r.status}); publish the final URL in l=.`)],
    };
  }
  if (r.status !== 200) {
    return { status: "invalid", bytes: null, body: null, findings: [f("bimi.svg-unavailable", "High", `Logo URL returned HTTP ${r.status}.`)] };
  }
  const findings = inspectSvg(r.body, r.bytes);
  const bad = findings.some((x) => x.severity !== "Info");
  return { status: bad ? "invalid" : "valid", bytes: r.bytes, findings, body: r.tooLarge ? null : r.body };
}
