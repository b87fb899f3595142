// One RFC 8484 DNS-over-HTTPS exchange and its classification. Does network I/O via injected fetch.
import type { HttpFetch } from "../types";
import { CLASS_IN, type DnsMessage, decodeResponse, encodeQuery, RCODE, sameName, type TypeName, typeName, typeNumber } from "./wire";

const DNS_MESSAGE = "application/dns-message";
/** RFC 1035 §4.2.2 framing caps a DNS message at 65535 octets; anything longer is not one. */
const MAX_MESSAGE = 0xffff;

/** The answer of one endpoint. NXDOMAIN and NOERROR are definitive; every failure is temperror. */
export type Exchange =
  | { kind: "records"; message: DnsMessage } // NOERROR with at least one answer record
  | { kind: "nodata"; message: DnsMessage } // NOERROR with an empty answer section
  | { kind: "nxdomain"; message: DnsMessage } // may still carry the CNAME chain (RFC 6604 §2)
  /** `cause` lets a resolver tell a bad name ("query", nothing was sent) and an unreachable or
   *  slow endpoint ("network") from a bad or failed answer ("answer"). */
  | { kind: "temperror"; reason: string; cause: "query" | "network" | "answer" };

export interface ExchangeOptions {
  fetch: HttpFetch;
  timeoutMs: number;
}

const RCODE_NAMES: Record<number, string> = { 1: "FORMERR", 2: "SERVFAIL", 4: "NOTIMP", 5: "REFUSED" };

export async function dohExchange(endpoint: string, name: string, type: TypeName | number, opts: ExchangeOptions): Promise<Exchange> {
  const query = encodeQuery(name, type, 0); // id 0: RFC 8484 §4.1
  if (!query.ok) return { kind: "temperror", reason: `cannot encode query: ${query.error}`, cause: "query" };
  let body: Uint8Array;
  try {
    const res = await opts.fetch(endpoint, {
      method: "POST",
      headers: { "content-type": DNS_MESSAGE, accept: DNS_MESSAGE },
      body: query.value,
      signal: AbortSignal.timeout(opts.timeoutMs),
    });
    if (res.status !== 200) {
      await res.body?.cancel();
      return { kind: "temperror", reason: `HTTP ${res.status} from ${endpoint}`, cause: "network" };
    }
    const ctype = (res.headers.get("content-type") ?? "").split(";")[0]?.trim().toLowerCase();
    if (ctype !== DNS_MESSAGE) {
      await res.body?.cancel();
      return { kind: "temperror", reason: `unexpected content-type "${ctype}" from ${endpoint}`, cause: "answer" };
    }
    const read = await readCapped(res, MAX_MESSAGE);
    if (read === null) return { kind: "temperror", reason: `oversized answer from ${endpoint}`, cause: "answer" };
    body = read;
  } catch (e) {
    return { kind: "temperror", reason: describeFetchError(e, endpoint, opts.timeoutMs), cause: "network" };
  }
  return classify(body, name, typeNumber(type), endpoint);
}

/** Reads at most `cap` octets, so a misbehaving endpoint cannot make the isolate buffer an
 *  arbitrarily large body; null when the body is longer. */
async function readCapped(res: Response, cap: number): Promise<Uint8Array | null> {
  if (Number(res.headers.get("content-length") ?? "0") > cap || !res.body) {
    await res.body?.cancel();
    return res.body ? null : new Uint8Array(0);
  }
  const reader = res.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > cap) {
      await reader.cancel();
      return null;
    }
    chunks.push(value);
  }
  const out = new Uint8Array(total);
  let at = 0;
  for (const c of chunks) {
    out.set(c, at);
    at += c.byteLength;
  }
  return out;
}

function describeFetchError(e: unknown, endpoint: string, timeoutMs: number): string {
  const errName = e instanceof Error || e instanceof DOMException ? e.name : "";
  if (errName === "TimeoutError" || errName === "AbortError") return `timeout after ${timeoutMs} ms from ${endpoint}`;
  return `fetch to ${endpoint} failed: ${e instanceof Error ? e.message : String(e)}`;
}

/** Checks that the bytes are an answer to exactly this question before trusting any of it. */
export function classify(body: Uint8Array, name: string, type: number, endpoint: string): Exchange {
  const decoded = decodeResponse(body);
  if (!decoded.ok) return { kind: "temperror", reason: `malformed answer from ${endpoint}: ${decoded.error}`, cause: "answer" };
  return classifyMessage(decoded.value, name, type, endpoint);
}

/** classify() for a message already decoded (also a kept answer of the shared cache, D196). */
export function classifyMessage(message: DnsMessage, name: string, type: number, endpoint: string): Exchange {
  const { header } = message;
  if (!header.flags.qr) return { kind: "temperror", reason: `answer from ${endpoint} is not a response (QR=0)`, cause: "answer" };
  if (header.id !== 0) return { kind: "temperror", reason: `answer from ${endpoint} has id ${header.id}, expected 0`, cause: "answer" };
  const q = message.question[0];
  const wanted = name.toLowerCase().replace(/\.$/, "");
  // Compared as wire labels, case-insensitively (RFC 4343 §3): the decoder presents a space or other
  // unusual octet as \DDD, which is still the name that was asked for.
  if (message.question.length !== 1 || !q || !sameName(q.name, wanted) || q.type !== type || q.class !== CLASS_IN) {
    const got = q ? `${q.name} ${typeName(q.type)}` : "no question";
    return { kind: "temperror", reason: `answer from ${endpoint} is for ${got}, not ${wanted} ${typeName(type)}`, cause: "answer" };
  }
  // A truncated answer may be missing records, so "no records" in it proves nothing (RFC 2181 §9).
  if (header.flags.tc) return { kind: "temperror", reason: `truncated answer (TC) from ${endpoint}`, cause: "answer" };
  if (header.rcode === RCODE.NXDOMAIN) return { kind: "nxdomain", message };
  if (header.rcode !== RCODE.NOERROR) {
    const rname = RCODE_NAMES[header.rcode] ?? `RCODE ${header.rcode}`;
    return { kind: "temperror", reason: `${rname} from ${endpoint}`, cause: "answer" };
  }
  return message.answer.length > 0 ? { kind: "records", message } : { kind: "nodata", message };
}
