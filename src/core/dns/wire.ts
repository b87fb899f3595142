// RFC 1035 §4 message codec: query and response encoding, response decoding to a Result. No I/O.
import { err, ok, type Result } from "../types";
import { CLASS_IN, decodeRData, encodeRData, type RData, TYPE, type TypeName, typeNumber } from "./rdata";
import { Reader, WireError, Writer } from "./wire-io";

export { CLASS_IN, TYPE, typeName, typeNumber } from "./rdata";
export type { RData, TypeName } from "./rdata";
export { canonicalName, sameName } from "./wire-io";

export const RCODE = { NOERROR: 0, FORMERR: 1, SERVFAIL: 2, NXDOMAIN: 3, NOTIMP: 4, REFUSED: 5 } as const;

export interface Flags {
  qr: boolean;
  aa: boolean;
  tc: boolean;
  rd: boolean;
  ra: boolean;
  ad: boolean;
  cd: boolean;
}

export interface Header {
  id: number;
  opcode: number;
  /** Includes the EDNS0 extended RCODE bits when an OPT record is present (RFC 6891 §6.1.3). */
  rcode: number;
  flags: Flags;
}

export interface Question {
  name: string;
  type: number;
  class: number;
}

/** A resource record; names are presentation text, lower case, without the trailing dot. */
export interface ResourceRecord {
  name: string;
  type: number;
  class: number;
  ttl: number;
  data: RData;
}

export interface DnsMessage {
  header: Header;
  question: Question[];
  answer: ResourceRecord[];
  authority: ResourceRecord[];
  additional: ResourceRecord[];
}

/** What encodeResponse needs: flags default to a recursive answer (QR, RD, RA set). */
export interface ResponseInit {
  header: { id: number; rcode: number; opcode?: number; flags?: Partial<Flags> };
  question: Question[];
  answer?: ResourceRecord[];
  authority?: ResourceRecord[];
  additional?: ResourceRecord[];
}

const EDNS_UDP_SIZE = 4096;

function flagBits(opcode: number, rcode: number, f: Flags): number {
  return (
    (f.qr ? 0x8000 : 0) |
    ((opcode & 0xf) << 11) |
    (f.aa ? 0x400 : 0) |
    (f.tc ? 0x200 : 0) |
    (f.rd ? 0x100 : 0) |
    (f.ra ? 0x80 : 0) |
    (f.ad ? 0x20 : 0) |
    (f.cd ? 0x10 : 0) |
    (rcode & 0xf)
  );
}

function guard<T>(f: () => T): Result<T> {
  try {
    return ok(f());
  } catch (e) {
    if (e instanceof WireError) return err(e.message);
    // Anything else is a bug in the codec, but malformed input must still never escape as a throw.
    return err(`malformed DNS message: ${e instanceof Error ? e.message : String(e)}`);
  }
}

/** A recursive (RD=1) query with an EDNS0 OPT record advertising a 4096-octet UDP size (RFC 6891).
 *  AD=1 asks a validating resolver to say whether it authenticated the answer (RFC 6840 §5.7), without
 *  the DNSSEC records DO=1 would add. DoH requires id 0 for cacheability (RFC 8484 §4.1). */
export function encodeQuery(name: string, type: TypeName | number, id = 0): Result<Uint8Array> {
  return guard(() => {
    const w = new Writer();
    w.u16(id);
    w.u16(0x0120); // RD, AD
    for (const count of [1, 0, 0, 1]) w.u16(count);
    w.name(name, false);
    w.u16(typeNumber(type));
    w.u16(CLASS_IN);
    w.u8(0); // OPT owner: root
    w.u16(TYPE.OPT);
    w.u16(EDNS_UDP_SIZE);
    w.u32(0);
    w.u16(0);
    return w.finish();
  });
}

export function encodeResponse(msg: ResponseInit): Result<Uint8Array> {
  return guard(() => {
    const w = new Writer();
    const flags: Flags = { qr: true, aa: false, tc: false, rd: true, ra: true, ad: false, cd: false, ...msg.header.flags };
    const sections = [msg.answer ?? [], msg.authority ?? [], msg.additional ?? []];
    w.u16(msg.header.id);
    w.u16(flagBits(msg.header.opcode ?? 0, msg.header.rcode, flags));
    w.u16(msg.question.length);
    for (const s of sections) w.u16(s.length);
    for (const q of msg.question) {
      w.name(q.name);
      w.u16(q.type);
      w.u16(q.class);
    }
    for (const rr of sections.flat()) {
      w.name(rr.name);
      w.u16(rr.type);
      w.u16(rr.class);
      w.u32(rr.ttl);
      const lenAt = w.len;
      w.u16(0);
      encodeRData(w, rr.data);
      const rdlength = w.len - lenAt - 2;
      if (rdlength > 0xffff) throw new WireError("RDATA longer than 65535 octets");
      w.setU16(lenAt, rdlength);
    }
    if (w.len > 0xffff) throw new WireError("message longer than 65535 octets");
    return w.finish();
  });
}

function readRecord(r: Reader): ResourceRecord {
  const name = r.name();
  const type = r.u16();
  const klass = r.u16();
  // RFC 2181 §8: a TTL with the top bit set is treated as zero.
  const rawTtl = r.u32();
  const ttl = rawTtl > 0x7fffffff ? 0 : rawTtl;
  const rdlength = r.u16();
  const data = type === TYPE.OPT ? { kind: "raw" as const, bytes: r.bytes(rdlength) } : decodeRData(r, type, rdlength);
  return { name, type, class: klass, ttl: type === TYPE.OPT ? rawTtl : ttl, data };
}

/** Decodes a whole message. Malformed input (truncation, bad pointers, bad lengths) is an error
 *  result, never a throw. Trailing octets after the last record are ignored. */
export function decodeResponse(bytes: Uint8Array): Result<DnsMessage> {
  return guard(() => {
    const r = new Reader(bytes);
    if (bytes.length < 12) throw new WireError(`message of ${bytes.length} octets is shorter than a header`);
    const id = r.u16();
    const bits = r.u16();
    const counts = [r.u16(), r.u16(), r.u16(), r.u16()] as const;
    const question: Question[] = [];
    for (let i = 0; i < counts[0]; i++) question.push({ name: r.name(), type: r.u16(), class: r.u16() });
    const section = (n: number): ResourceRecord[] => Array.from({ length: n }, () => readRecord(r));
    const answer = section(counts[1]);
    const authority = section(counts[2]);
    const additional = section(counts[3]);
    const opt = additional.find((rr) => rr.type === TYPE.OPT);
    const header: Header = {
      id,
      opcode: (bits >> 11) & 0xf,
      rcode: (bits & 0xf) | (opt ? (opt.ttl >>> 24) << 4 : 0),
      flags: {
        qr: (bits & 0x8000) !== 0,
        aa: (bits & 0x400) !== 0,
        tc: (bits & 0x200) !== 0,
        rd: (bits & 0x100) !== 0,
        ra: (bits & 0x80) !== 0,
        ad: (bits & 0x20) !== 0,
        cd: (bits & 0x10) !== 0,
      },
    };
    return { header, question, answer, authority, additional };
  });
}
