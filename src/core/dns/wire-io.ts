// Bounds-checked byte reader and growable writer for DNS messages, with domain-name (de)compression
// (RFC 1035 §3.1, §4.1.4). No I/O. Both throw WireError, which the public codec turns into a Result.

export class WireError extends Error {}

const MAX_NAME_OCTETS = 255; // RFC 1035 §3.1, counting length octets and the root label

export class Reader {
  private readonly view: DataView;
  pos = 0;
  constructor(readonly buf: Uint8Array) {
    this.view = new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
  }
  need(n: number): void {
    if (n < 0 || this.pos + n > this.buf.length) throw new WireError(`truncated message at offset ${this.pos}`);
  }
  u8(): number {
    this.need(1);
    return this.view.getUint8(this.pos++);
  }
  u16(): number {
    this.need(2);
    const v = this.view.getUint16(this.pos);
    this.pos += 2;
    return v;
  }
  u32(): number {
    this.need(4);
    const v = this.view.getUint32(this.pos);
    this.pos += 4;
    return v;
  }
  bytes(n: number): Uint8Array {
    this.need(n);
    const out = this.buf.slice(this.pos, this.pos + n);
    this.pos += n;
    return out;
  }
  /** Reads a possibly compressed name. Every pointer must point strictly before the previous
   *  jump target (or the name's start), so pointer loops cannot happen and decoding terminates. */
  name(): string {
    const labels: string[] = [];
    let pos = this.pos;
    let limit = this.pos;
    let resume = -1;
    let octets = 1;
    for (;;) {
      const len = this.buf[pos];
      if (len === undefined) throw new WireError(`name runs past the end at offset ${pos}`);
      if (len === 0) {
        if (resume < 0) resume = pos + 1;
        break;
      }
      const kind = len & 0xc0;
      if (kind === 0xc0) {
        const low = this.buf[pos + 1];
        if (low === undefined) throw new WireError(`truncated compression pointer at offset ${pos}`);
        const target = ((len & 0x3f) << 8) | low;
        if (target >= limit) throw new WireError(`compression pointer at offset ${pos} does not point backwards`);
        if (resume < 0) resume = pos + 2;
        limit = target;
        pos = target;
        continue;
      }
      if (kind !== 0) throw new WireError(`unsupported label type 0x${kind.toString(16)} at offset ${pos}`);
      octets += len + 1;
      if (octets > MAX_NAME_OCTETS) throw new WireError("name longer than 255 octets");
      if (pos + 1 + len > this.buf.length) throw new WireError(`label runs past the end at offset ${pos}`);
      labels.push(presentLabel(this.buf.subarray(pos + 1, pos + 1 + len)));
      pos += 1 + len;
    }
    this.pos = resume;
    return labels.join(".");
  }
}

/** Presentation form of one label (RFC 4343 §2.1): ASCII lower-cased, and "." "\" and
 *  non-printable octets escaped, so a binary label never aliases a different name. */
function presentLabel(label: Uint8Array): string {
  let s = "";
  for (const b of label) {
    if (b >= 0x41 && b <= 0x5a) s += String.fromCharCode(b + 0x20);
    else if (b === 0x2e || b === 0x5c) s += `\\${String.fromCharCode(b)}`;
    else if (b > 0x20 && b < 0x7f) s += String.fromCharCode(b);
    else s += `\\${b.toString().padStart(3, "0")}`;
  }
  return s;
}

/** Splits presentation text into label octets, honouring \X and \DDD escapes. "" and "." are root. */
export function nameToLabels(name: string): Uint8Array[] {
  const text = name.endsWith(".") && !name.endsWith("\\.") ? name.slice(0, -1) : name;
  if (text === "") return [];
  const labels: Uint8Array[] = [];
  let cur: number[] = [];
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c > 0x7e) throw new WireError(`non-ASCII character in name "${name}" (convert IDNs to punycode first)`);
    if (c === 0x2e) {
      labels.push(Uint8Array.from(cur));
      cur = [];
    } else if (c === 0x5c) {
      const digits = text.slice(i + 1, i + 4);
      if (/^[0-9]{3}$/.test(digits) && Number(digits) < 256) {
        cur.push(Number(digits));
        i += 3;
      } else if (i + 1 < text.length) {
        cur.push(text.charCodeAt(++i));
      } else throw new WireError(`dangling escape in name "${name}"`);
    } else cur.push(c);
  }
  labels.push(Uint8Array.from(cur));
  let octets = 1;
  for (const l of labels) {
    if (l.length === 0 || l.length > 63) throw new WireError(`label of ${l.length} octets in "${name}" (RFC 1035 §2.3.4: 1-63)`);
    octets += l.length + 1;
  }
  if (octets > MAX_NAME_OCTETS) throw new WireError(`name "${name}" is longer than 255 octets`);
  return labels;
}

/** The canonical presentation form of a name: its wire labels (escapes decoded), ASCII lower-cased
 *  and re-escaped the way the decoder presents them, so "A B.example.com" and "a\032b.example.com"
 *  give the same text. Null when the name cannot be put on the wire (empty or oversized label). */
export function canonicalName(name: string): string | null {
  try {
    return nameToLabels(name).map(presentLabel).join(".");
  } catch (e) {
    if (e instanceof WireError) return null;
    throw e;
  }
}

/** Two names are the same when their wire labels are equal, ASCII case ignored (RFC 4343 §3):
 *  a question echoed as "a\032b" is the name "a b" that was asked for. */
export function sameName(a: string, b: string): boolean {
  if (a === b) return true;
  const ca = canonicalName(a);
  return ca !== null && ca === canonicalName(b);
}

export class Writer {
  private buf = new Uint8Array(512);
  len = 0;
  private readonly suffixes = new Map<string, number>();
  private grow(n: number): void {
    if (this.len + n <= this.buf.length) return;
    const next = new Uint8Array(Math.max(this.buf.length * 2, this.len + n));
    next.set(this.buf.subarray(0, this.len));
    this.buf = next;
  }
  u8(v: number): void {
    this.grow(1);
    this.buf[this.len++] = v & 0xff;
  }
  u16(v: number): void {
    this.u8(v >>> 8);
    this.u8(v);
  }
  u32(v: number): void {
    this.u16(Math.floor(v / 0x10000) & 0xffff);
    this.u16(v & 0xffff);
  }
  bytes(b: Uint8Array): void {
    this.grow(b.length);
    this.buf.set(b, this.len);
    this.len += b.length;
  }
  setU16(at: number, v: number): void {
    this.buf[at] = (v >>> 8) & 0xff;
    this.buf[at + 1] = v & 0xff;
  }
  /** Writes a name, replacing the longest suffix already written by a pointer (RFC 1035 §4.1.4). */
  name(name: string, compress = true): void {
    const labels = nameToLabels(name);
    const key = (i: number): string =>
      labels
        .slice(i)
        .map((l) => Array.from(l, lowerByte).join(","))
        .join(".");
    for (let i = 0; i < labels.length; i++) {
      const known = compress ? this.suffixes.get(key(i)) : undefined;
      if (known !== undefined) {
        this.u16(0xc000 | known);
        return;
      }
      // Pointers have 14 bits, so only suffixes starting in the first 16 KB can be targets.
      if (compress && this.len < 0x4000) this.suffixes.set(key(i), this.len);
      const label = labels[i] ?? new Uint8Array(0);
      this.u8(label.length);
      this.bytes(label);
    }
    this.u8(0);
  }
  finish(): Uint8Array {
    return this.buf.slice(0, this.len);
  }
}

const lowerByte = (b: number): number => (b >= 0x41 && b <= 0x5a ? b + 0x20 : b);
