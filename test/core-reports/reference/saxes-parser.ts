// Test-only reference (was src/core/reports/parse.ts): the saxes-based streaming parser, the oracle of the differential test.
import { SaxesParser, type SaxesTagPlain } from "saxes";
import { err, ok, type Result } from "../../../src/core/types";
import { ReportBuilder, ROOT, UNKNOWN, type PathNode } from "./builder";
import { MAX_FIELD_CHARS } from "../../../src/core/reports/fields";
import { XmlGuard } from "../../../src/core/reports/guard";
import type { PolicyPublished, ReportError, ReportErrorCode, ReportMetadata, ReportRecord, SchemaVersion } from "../../../src/core/reports/types";
import { XmlTextDecoder } from "../../../src/core/reports/encoding";

/** RFC 9990 §4 (XML schema) target namespace; RFC 7489 Appendix C reports have none (or a draft one). */
export const DMARC2_NS = "urn:ietf:params:xml:ns:dmarc-2.0";
/** Reports nest five deep; extensions a little more. Deeper is hostile (saxes keeps a tag stack). */
export const MAX_DEPTH = 32;

export interface ParsedDocument {
  version: SchemaVersion;
  metadata: ReportMetadata;
  policy: PolicyPublished;
  records: number;
}

class ParseStop extends Error {}

interface Capture {
  path: string;
  text: string;
  free: boolean;
  full: boolean;
}

/**
 * Records are handed to `onRecord` as each </record> closes and never kept, so memory stays
 * bounded by one record plus what the callback retains. Text is only collected inside the leaf
 * elements we read: saxes buffers no text elsewhere because no text handler is registered there.
 */
export class ReportParser {
  private readonly decoder = new XmlTextDecoder();
  private readonly guard = new XmlGuard();
  private readonly sax = new SaxesParser({});
  private readonly builder: ReportBuilder;
  private readonly stack: PathNode[] = [];
  private capture: Capture | null = null;
  private error: ReportError | null = null;
  private sawRoot = false;
  private ns2 = false;
  private started = false;
  private readonly onText = (t: string): void => this.text(t);

  constructor(onRecord: (r: ReportRecord) => void, maxRecords?: number) {
    this.builder = new ReportBuilder(onRecord, maxRecords);
    this.sax.on("opentag", (tag) => this.openTag(tag));
    this.sax.on("closetag", () => this.closeTag());
    this.sax.on("error", (e) => this.fail("malformed_xml", e.message));
  }

  /** Feeds the next bytes. False once the document is refused (see `end()` for why). */
  write(bytes: Uint8Array): boolean {
    const text = this.decoder.decode(bytes);
    if (!text.ok) return this.fail("malformed_xml", text.error);
    return this.feed(text.value);
  }

  end(): Result<ParsedDocument, ReportError> {
    const rest = this.error === null ? this.decoder.decode(new Uint8Array(0), true) : null;
    if (rest !== null && !rest.ok) this.fail("malformed_xml", rest.error);
    if (this.error === null && rest?.ok && this.feed(rest.value)) {
      this.guarded(() => this.sax.close());
    }
    if (this.error !== null) return err(this.error);
    if (!this.sawRoot) return err({ code: "not_a_report", message: "no XML element" });
    const done = this.builder.finish();
    if (!done.ok) return done;
    const version: SchemaVersion = this.ns2 || this.builder.uses9990() ? "2.0" : "1.0";
    return ok({ version, ...done.value, records: this.builder.records });
  }

  private feed(text: string): boolean {
    if (this.error !== null) return false;
    if (!this.started) {
      // Leading whitespace (and a stray BOM) before "<?xml" is common and harmless; saxes refuses it.
      text = text.replace(/^[\s\uFEFF]+/, "");
      this.started = text.length > 0;
    }
    if (text.length === 0) return true;
    const refused = this.guard.check(text); // before saxes sees any of this text
    if (refused !== null) {
      this.error = refused;
      return false;
    }
    return this.guarded(() => this.sax.write(text));
  }

  private guarded(f: () => void): boolean {
    try {
      f();
    } catch (e) {
      if (!(e instanceof ParseStop)) this.error ??= { code: "malformed_xml", message: String(e) };
    }
    return this.error === null;
  }

  private fail(code: ReportErrorCode, message: string): never {
    this.error ??= { code, message };
    throw new ParseStop(message);
  }

  private openTag(tag: SaxesTagPlain): void {
    if (this.stack.length >= MAX_DEPTH) this.fail("malformed_xml", `elements nested deeper than ${MAX_DEPTH}`);
    const colon = tag.name.indexOf(":");
    let name = tag.name.slice(colon + 1).toLowerCase(); // namespace prefixes are tolerated
    if (this.stack.length === 0) {
      if (name !== "feedback") this.fail("not_a_report", `root element is <${tag.name.slice(0, 64)}>, not <feedback>`);
      this.sawRoot = true;
      const nsAttr = colon > 0 ? `xmlns:${tag.name.slice(0, colon)}` : "xmlns";
      this.ns2 = tag.attributes[nsAttr]?.trim() === DMARC2_NS;
      this.stack.push(ROOT);
      return;
    }
    if (name === "identities") name = "identifiers"; // older reporters (parsedmarc handles it too)
    const node = (this.stack[this.stack.length - 1] ?? UNKNOWN).kids.get(name) ?? UNKNOWN;
    this.stack.push(node);
    if (node === UNKNOWN) return;
    this.builder.open(node.path);
    if (this.capture === null && node.leaf) {
      this.capture = { path: node.path, text: "", free: node.free, full: false };
      this.sax.on("text", this.onText);
      this.sax.on("cdata", this.onText);
    }
  }

  private text(t: string): void {
    const c = this.capture;
    if (c === null || c.full) return;
    c.text += t;
    if (c.text.length <= MAX_FIELD_CHARS) return;
    // Free text (comments, human_result, errors) is cut; an identifier this long is not real.
    if (!c.free) this.fail("malformed_xml", `<${c.path}> longer than ${MAX_FIELD_CHARS} characters`);
    c.text = c.text.slice(0, MAX_FIELD_CHARS);
    c.full = true;
  }

  private closeTag(): void {
    const node = this.stack.pop() ?? UNKNOWN;
    if (node === UNKNOWN || node === ROOT) return;
    const path = node.path;
    const c = this.capture;
    if (c !== null && c.path === path) {
      this.capture = null;
      this.sax.off("text");
      this.sax.off("cdata");
      this.builder.leaf(path, c.text);
    }
    const e = this.builder.close(path);
    if (e !== null) this.fail(e.code, e.message);
  }
}
