// Screens decoded XML text before the parser sees it: DTD/ENTITY refusal and per-construct size caps. Pure, no I/O.
import type { ReportError } from "./types";

/**
 * Why a separate pre-scan:
 * - docs/decisions.md D17: refuse any `<!DOCTYPE` / `<!ENTITY` before parsing and never expand
 *   entities (XXE, billion laughs). We match the text itself, case-insensitively, across chunk
 *   boundaries, wherever it appears (even in a comment): a report never needs one.
 * - saxes buffers a whole text node, comment, CDATA section, PI or tag in memory before it emits
 *   it. A 90 MB text node would exhaust a 128 MB isolate, so every construct is capped here, with a
 *   small lexer that only needs to know where each construct ends.
 */
export const MAX_TAG_CHARS = 8 * 1024;
export const MAX_CONSTRUCT_CHARS = 64 * 1024;

enum S {
  Text,
  Open, // after "<", deciding what follows
  Tag,
  Comment,
  CData,
  Pi,
}

const DTD = /<!(doctype|entity)/i;
const CDATA_OPEN = "![CDATA[";

export class XmlGuard {
  private carry = "";
  private state = S.Text;
  private len = 0;
  private open = ""; // the characters after "<" while in S.Open
  private quote = 0;
  private run = 0; // trailing "-" (comment), "]" (CDATA) or "?" (PI) count

  /** Returns an error for the first violation; call once per decoded chunk, in order. */
  check(text: string): ReportError | null {
    const window = this.carry + text;
    if (DTD.test(window)) {
      return { code: "forbidden_dtd", message: "DOCTYPE/ENTITY declarations are refused" };
    }
    this.carry = window.slice(-8); // "<!doctype".length - 1
    return this.scan(text);
  }

  private scan(t: string): ReportError | null {
    let i = 0;
    const n = t.length;
    while (i < n) {
      if (this.state === S.Text) {
        const lt = t.indexOf("<", i);
        const end = lt < 0 ? n : lt;
        this.len += end - i;
        if (this.len > MAX_CONSTRUCT_CHARS) return tooBig("text node");
        if (lt < 0) return null;
        this.state = S.Open;
        this.open = "";
        this.len = 0;
        i = lt + 1;
        continue;
      }
      const c = t.charCodeAt(i++);
      this.len++;
      switch (this.state) {
        case S.Open:
          this.open += String.fromCharCode(c);
          if (this.open === "?") this.enter(S.Pi);
          else if (this.open === "!--") this.enter(S.Comment);
          else if (this.open === CDATA_OPEN) this.enter(S.CData);
          else if (!"!--".startsWith(this.open) && !CDATA_OPEN.startsWith(this.open)) {
            this.state = S.Tag;
            this.quote = 0;
            if (c === 0x3e) this.state = S.Text; // "<>" or "<!x>": the parser reports it
          }
          break;
        case S.Tag:
          if (this.len > MAX_TAG_CHARS) return tooBig("tag");
          if (this.quote !== 0) {
            if (c === this.quote) this.quote = 0;
          } else if (c === 0x22 || c === 0x27) this.quote = c;
          else if (c === 0x3e) this.toText();
          break;
        case S.Comment:
          this.run = c === 0x2d ? this.run + 1 : c === 0x3e && this.run >= 2 ? -1 : 0;
          if (this.run === -1) this.toText();
          else if (this.len > MAX_CONSTRUCT_CHARS) return tooBig("comment");
          break;
        case S.CData:
          this.run = c === 0x5d ? this.run + 1 : c === 0x3e && this.run >= 2 ? -1 : 0;
          if (this.run === -1) this.toText();
          else if (this.len > MAX_CONSTRUCT_CHARS) return tooBig("CDATA section");
          break;
        case S.Pi:
          if (c === 0x3e && this.run === 1) this.toText();
          else if (this.len > MAX_CONSTRUCT_CHARS) return tooBig("processing instruction");
          else this.run = c === 0x3f ? 1 : 0;
          break;
      }
    }
    return null;
  }

  private enter(s: S): void {
    this.state = s;
    this.run = 0;
  }

  private toText(): void {
    this.state = S.Text;
    this.len = 0;
    this.run = 0;
  }
}

const tooBig = (what: string): ReportError => ({
  code: "malformed_xml",
  message: `${what} longer than the safety cap`,
});
