// Streams a report body (raw XML, gzip or zip) into a chunk sink with a cap on real output bytes. No I/O beyond the input it is given.
import { Gunzip, Unzip, UnzipInflate, type UnzipFile } from "fflate";
import { err, ok, type Result } from "../types";
import { detectFormat, looksLikeArchive, looksLikeXml, SNIFF_BYTES } from "./detect";
import type { ReportError, ReportErrorCode } from "./types";

/** Receives XML bytes in order. Return false to stop early (the sink keeps its own reason). */
export type ChunkSink = (chunk: Uint8Array) => boolean;

export interface DecompressOptions {
  /** Cap on XML bytes after decompression (docs/decisions.md D17: 100 MB), counted on what inflate emits. */
  maxXmlBytes?: number;
}

export interface DecompressInfo {
  format: "xml" | "gzip" | "zip";
  xmlBytes: number;
  entryName: string | null;
  /** The sink asked to stop before the end of the input. */
  stopped: boolean;
}

export const DEFAULT_MAX_XML_BYTES = 100 * 1024 * 1024;
// Deflate expands at most ~1032:1, so an 8 KB push yields at most ~8 MB before we can look at the
// count again: that bounds both the overshoot past the cap and the memory of a bomb.
const INFLATE_SLICE = 8 * 1024;
const READ_SLICE = 64 * 1024;

class Stop extends Error {
  constructor(readonly reason: ReportError | null) {
    super(reason?.message ?? "stopped by sink");
  }
}
const fail = (code: ReportErrorCode, message: string): Stop => new Stop({ code, message });

async function* chunksOf(input: Uint8Array | ReadableStream<Uint8Array>): AsyncGenerator<Uint8Array> {
  if (input instanceof Uint8Array) {
    for (let i = 0; i < input.length; i += READ_SLICE) yield input.subarray(i, i + READ_SLICE);
    return;
  }
  const reader = input.getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      if (value.length > 0) yield value;
    }
  } finally {
    // Stops the producer when we quit early (cap, bad input); harmless after the end.
    await reader.cancel().catch(() => undefined);
  }
}

/** Zip-slip (absolute paths, drive letters, ".." segments) and NUL bytes in an entry name. */
export function isUnsafeEntryName(name: string): boolean {
  if (name.length === 0 || name.includes("\0")) return true;
  if (name.startsWith("/") || name.startsWith("\\") || /^[a-zA-Z]:/.test(name)) return true;
  return name.split(/[\\/]/).some((seg) => seg === "..");
}

/** Counts output, enforces the cap, checks the first bytes of decompressed content, feeds the sink. */
class Emitter {
  bytes = 0;
  private head: Uint8Array[] | null;
  private headLen = 0;
  constructor(
    private readonly sink: ChunkSink,
    private readonly max: number,
    sniff: boolean,
  ) {
    this.head = sniff ? [] : null;
  }
  push(data: Uint8Array): void {
    if (data.length === 0) return;
    this.bytes += data.length;
    if (this.bytes > this.max) throw fail("too_large", `more than ${this.max} bytes of XML after decompression`);
    if (this.head === null) {
      this.forward(data);
      return;
    }
    this.head.push(data.slice()); // copy: inflate may reuse its buffer
    this.headLen += data.length;
    if (this.headLen >= SNIFF_BYTES) this.flushHead();
  }
  /** Called at the end of the content: flushes a short head. */
  end(): void {
    if (this.head !== null && this.headLen > 0) this.flushHead();
  }
  private flushHead(): void {
    const parts = this.head ?? [];
    this.head = null;
    const all = new Uint8Array(this.headLen);
    let at = 0;
    for (const p of parts) {
      all.set(p, at);
      at += p.length;
    }
    if (looksLikeArchive(all)) throw fail("malformed_archive", "nested archive inside the archive");
    if (!looksLikeXml(all)) throw fail("not_a_report", "the archive does not hold an XML file");
    this.forward(all);
  }
  private forward(data: Uint8Array): void {
    if (!this.sink(data)) throw new Stop(null);
  }
}

export async function decompress(
  input: Uint8Array | ReadableStream<Uint8Array>,
  sink: ChunkSink,
  opts: DecompressOptions = {},
): Promise<Result<DecompressInfo, ReportError>> {
  const max = opts.maxXmlBytes ?? DEFAULT_MAX_XML_BYTES;
  const chunks = chunksOf(input);
  let format: DecompressInfo["format"] | null = null;
  let entryName: string | null = null;
  let emitter: Emitter | null = null;
  let feed: (chunk: Uint8Array, final: boolean) => void = () => undefined;
  let finished = (): void => undefined;
  let pending: Uint8Array[] = [];
  let pendingLen = 0;

  const start = (head: Uint8Array): void => {
    const f = detectFormat(head);
    if (f === "unknown") {
      throw fail("not_a_report", head.length === 0 ? "empty input" : "not XML, gzip or zip");
    }
    format = f;
    const em = new Emitter(sink, max, f !== "xml");
    emitter = em;
    if (f === "xml") {
      feed = (c) => em.push(c);
    } else if (f === "gzip") {
      let done = false;
      const gz = new Gunzip((data, final) => {
        em.push(data);
        if (final) done = true;
      });
      feed = (c, final) => sliced(c, final, (s, fin) => gz.push(s, fin));
      finished = () => {
        if (!done) throw fail("malformed_archive", "truncated gzip stream");
      };
    } else {
      const z = zipFeeder(em, (n) => (entryName = n));
      feed = (c, final) => sliced(c, final, (s, fin) => z.push(s, fin));
      finished = z.finished;
    }
  };

  try {
    for await (const chunk of chunks) {
      if (format === null) {
        pending.push(chunk);
        pendingLen += chunk.length;
        if (pendingLen < SNIFF_BYTES) continue;
        const head = concat(pending, pendingLen);
        pending = [];
        start(head);
        feed(head, false);
      } else {
        feed(chunk, false);
      }
    }
    if (format === null) {
      const head = concat(pending, pendingLen);
      start(head);
      feed(head, false);
    }
    feed(new Uint8Array(0), true);
    finished();
    (emitter as Emitter | null)?.end();
  } catch (e) {
    await chunks.return(undefined); // releases the reader (cancel) when we stop early
    if (!(e instanceof Stop)) {
      return err({ code: "malformed_archive", message: `corrupt ${format ?? "input"}: ${String(e)}` });
    }
    if (e.reason !== null) return err(e.reason);
    const em = emitter as Emitter | null;
    return ok({ format: format ?? "xml", xmlBytes: em?.bytes ?? 0, entryName, stopped: true });
  }
  const em = emitter as Emitter | null;
  return ok({ format: format ?? "xml", xmlBytes: em?.bytes ?? 0, entryName, stopped: false });
}

function concat(parts: Uint8Array[], len: number): Uint8Array {
  if (parts.length === 1 && parts[0]) return parts[0];
  const out = new Uint8Array(len);
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

function sliced(c: Uint8Array, final: boolean, push: (s: Uint8Array, final: boolean) => void): void {
  if (c.length === 0) {
    push(c, final);
    return;
  }
  for (let i = 0; i < c.length; i += INFLATE_SLICE) {
    push(c.subarray(i, i + INFLATE_SLICE), final && i + INFLATE_SLICE >= c.length);
  }
}

/** One regular file per archive; directory entries are skipped. Never trusts declared sizes. */
function zipFeeder(em: Emitter, onName: (name: string) => void) {
  let files = 0;
  let done = false;
  const unzip = new Unzip((file: UnzipFile) => {
    if (file.name.endsWith("/") && !file.size) return; // a directory entry
    if (isUnsafeEntryName(file.name)) throw fail("malformed_archive", `unsafe entry name ${JSON.stringify(file.name.slice(0, 100))}`);
    if (++files > 1) throw fail("multiple_files", "the archive holds more than one file");
    onName(file.name);
    file.ondata = (e, data, final) => {
      // fflate hands exceptions thrown inside its inflater (our own Stop included) back here.
      if (e) throw e instanceof Stop ? e : fail("malformed_archive", `corrupt zip entry: ${e.message}`);
      em.push(data);
      if (final) done = true;
    };
    file.start();
  });
  unzip.register(UnzipInflate);
  return {
    push: (s: Uint8Array, final: boolean) => unzip.push(s, final),
    finished: () => {
      if (files === 0) throw fail("not_a_report", "the archive holds no file");
      if (!done) throw fail("malformed_archive", "truncated zip entry");
    },
  };
}
