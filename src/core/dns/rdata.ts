// RDATA of the record types the service reads (RFC 1035 §3.3-3.4, RFC 3596), decoded and encoded;
// other types are kept raw (RFC 3597). No I/O.
import { formatIPv4, formatIPv6, parseIPv4, parseIPv6 } from "../ip/address";
import { type Reader, WireError, type Writer } from "./wire-io";

export const TYPE = { A: 1, NS: 2, CNAME: 5, SOA: 6, PTR: 12, MX: 15, TXT: 16, AAAA: 28, OPT: 41, TLSA: 52, SPF: 99 } as const;
export type TypeName = keyof typeof TYPE;
export const CLASS_IN = 1;

export const typeNumber = (t: TypeName | number): number => (typeof t === "number" ? t : TYPE[t]);
export function typeName(n: number): string {
  for (const [k, v] of Object.entries(TYPE)) if (v === n) return k;
  return `TYPE${n}`; // RFC 3597 §5
}

export type RData =
  | { kind: "A"; address: string }
  | { kind: "AAAA"; address: string }
  | { kind: "CNAME" | "NS" | "PTR"; target: string }
  | { kind: "MX"; preference: number; exchange: string }
  /** Character-strings as sent; join them with no separator to get the record's text. */
  | { kind: "TXT" | "SPF"; strings: string[] }
  | { kind: "SOA"; mname: string; rname: string; serial: number; refresh: number; retry: number; expire: number; minimum: number }
  /** RFC 6698 §2.1: certificate usage, selector, matching type, then the association data (hex here). */
  | { kind: "TLSA"; usage: number; selector: number; matchingType: number; data: string }
  | { kind: "raw"; bytes: Uint8Array };

/** Decodes `rdlength` octets at the reader's position; the reader must already hold the whole
 *  message because names inside RDATA may point anywhere before them. */
export function decodeRData(r: Reader, type: number, rdlength: number): RData {
  const end = r.pos + rdlength;
  r.need(rdlength);
  let data: RData;
  switch (type) {
    case TYPE.A:
      if (rdlength !== 4) throw new WireError(`A record with ${rdlength} octets`);
      data = { kind: "A", address: formatIPv4(r.bytes(4)) };
      break;
    case TYPE.AAAA:
      if (rdlength !== 16) throw new WireError(`AAAA record with ${rdlength} octets`);
      data = { kind: "AAAA", address: formatIPv6(r.bytes(16)) };
      break;
    case TYPE.CNAME:
    case TYPE.NS:
    case TYPE.PTR:
      data = { kind: type === TYPE.CNAME ? "CNAME" : type === TYPE.NS ? "NS" : "PTR", target: r.name() };
      break;
    case TYPE.MX:
      data = { kind: "MX", preference: r.u16(), exchange: r.name() };
      break;
    case TYPE.TXT:
    case TYPE.SPF: {
      // One streaming decoder per record: a UTF-8 sequence split across two character-strings
      // then still joins into the right text.
      const decoder = new TextDecoder("utf-8", { fatal: false, ignoreBOM: true });
      const strings: string[] = [];
      while (r.pos < end) strings.push(decoder.decode(r.bytes(r.u8()), { stream: true }));
      const rest = decoder.decode();
      if (rest && strings.length > 0) strings[strings.length - 1] += rest;
      data = { kind: type === TYPE.TXT ? "TXT" : "SPF", strings };
      break;
    }
    case TYPE.SOA:
      data = {
        kind: "SOA",
        mname: r.name(),
        rname: r.name(),
        serial: r.u32(),
        refresh: r.u32(),
        retry: r.u32(),
        expire: r.u32(),
        minimum: r.u32(),
      };
      break;
    case TYPE.TLSA: {
      if (rdlength < 3) throw new WireError(`TLSA record with ${rdlength} octets`);
      const [usage, selector, matchingType] = [r.u8(), r.u8(), r.u8()];
      const bytes = r.bytes(rdlength - 3);
      data = { kind: "TLSA", usage, selector, matchingType, data: Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("") };
      break;
    }
    default:
      data = { kind: "raw", bytes: r.bytes(rdlength) };
  }
  if (r.pos !== end) throw new WireError(`${typeName(type)} RDATA length ${rdlength} does not match its content`);
  return data;
}

const encoder = new TextEncoder();

/** Writes RDATA (without RDLENGTH). Names in CNAME/NS/PTR/MX/SOA may be compressed (RFC 3597 §4). */
export function encodeRData(w: Writer, data: RData): void {
  switch (data.kind) {
    case "A": {
      const b = parseIPv4(data.address);
      if (!b) throw new WireError(`bad IPv4 address "${data.address}"`);
      w.bytes(b);
      return;
    }
    case "AAAA": {
      const b = parseIPv6(data.address);
      if (!b) throw new WireError(`bad IPv6 address "${data.address}"`);
      w.bytes(b);
      return;
    }
    case "CNAME":
    case "NS":
    case "PTR":
      w.name(data.target);
      return;
    case "MX":
      w.u16(data.preference);
      w.name(data.exchange);
      return;
    case "TXT":
    case "SPF":
      // A string over 255 octets is split into 255-octet character-strings, as zone tools do.
      for (const s of data.strings) {
        const b = encoder.encode(s);
        if (b.length === 0) w.u8(0);
        for (let i = 0; i < b.length; i += 255) {
          const part = b.subarray(i, i + 255);
          w.u8(part.length);
          w.bytes(part);
        }
      }
      return;
    case "SOA":
      w.name(data.mname);
      w.name(data.rname);
      for (const n of [data.serial, data.refresh, data.retry, data.expire, data.minimum]) w.u32(n);
      return;
    case "TLSA": {
      if (!/^(?:[0-9a-f]{2})*$/i.test(data.data)) throw new WireError("TLSA data is not hex");
      for (const n of [data.usage, data.selector, data.matchingType]) w.u8(n);
      w.bytes(Uint8Array.from(data.data.match(/../g) ?? [], (h) => Number.parseInt(h, 16)));
      return;
    }
    case "raw":
      w.bytes(data.bytes);
  }
}
