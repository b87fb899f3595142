// Test helper: replaces global fetch with an RFC 8484 DNS-over-HTTPS server answering from a zone
// map, with injectable faults. No real I/O; other URLs go to opts.passthrough or get a 404.
import { type MockInstance, vi } from "vitest";
import { CLASS_IN, decodeResponse, encodeResponse, RCODE, type ResourceRecord, TYPE, typeName } from "../../src/core/dns/wire";

export interface StubRecords {
  A?: string[];
  AAAA?: string[];
  CNAME?: string;
  MX?: Array<{ preference: number; exchange: string }>;
  /** A string is one record (split into 255-octet strings on the wire); an array gives the strings. */
  TXT?: Array<string | string[]>;
  NS?: string[];
  PTR?: string[];
  TLSA?: Array<{ usage: number; selector: number; matchingType: number; data: string }>;
  /** The answer for this name carries AD=1, as from a validating resolver for a signed zone (RFC 6840 §5.7). */
  ad?: boolean;
  /** TTL of this name's records; defaults to opts.ttl, then 300. */
  ttl?: number;
}
/** Names not in the zone are NXDOMAIN; keys are matched case-insensitively, trailing dot optional. */
export type StubZone = Record<string, StubRecords | "nxdomain">;
export type StubFault = "servfail" | "refused" | "timeout" | "garbage" | "truncated" | "wrong-id" | "http-500";
export interface StubQuery {
  name: string;
  type: string;
  endpoint: string;
}

export interface DohStubOptions {
  /** Handles every request whose URL path does not end in /dns-query (default: 404). */
  passthrough?: (req: Request) => Response | Promise<Response>;
  /** Delay before each DNS answer, in ms (for benchmarks and concurrency tests). */
  delayMs?: number | ((q: StubQuery) => number);
  /** Default record TTL (300). Negative answers carry an SOA with MINIMUM 60. */
  ttl?: number;
  /** Like a recursive resolver, follow CNAMEs inside one answer (default). With false an answer
   *  stops at the first CNAME, as some forwarders do, so the client must query the target. */
  followCnames?: boolean;
}

export interface DohStub {
  restore(): void;
  /** Every DNS query received, in order, including ones answered with a fault. */
  readonly queries: StubQuery[];
  /** Fault for "name TYPE": on every endpoint, or one (full URL or host); `times` limits how often
   *  it fires; `null` clears it. */
  setFault(name: string, type: string, fault: StubFault | null, opts?: { endpoint?: string; times?: number }): void;
  readonly spy: MockInstance<typeof fetch>;
}

interface FaultRule {
  fault: StubFault;
  endpoint?: string;
  remaining: number;
}

const norm = (name: string): string => name.toLowerCase().replace(/\.$/, "");
const DNS_MESSAGE = { "content-type": "application/dns-message" };

/** Stubs still installed; test/setup.ts restores them after every test, so no file needs its own afterEach. */
const installed = new Set<DohStub>();

export function restoreDohStubs(): void {
  for (const stub of installed) stub.restore();
}

export function installDohStub(zone: StubZone, opts: DohStubOptions = {}): DohStub {
  const queries: StubQuery[] = [];
  const faults = new Map<string, FaultRule[]>();
  const spy = vi.spyOn(globalThis, "fetch").mockImplementation(async (input, init) => {
    const req = new Request(input instanceof URL ? input.href : input, init);
    const signal = init?.signal ?? (input instanceof Request ? input.signal : undefined) ?? undefined;
    const url = new URL(req.url);
    if (!url.pathname.endsWith("/dns-query")) {
      return opts.passthrough ? opts.passthrough(req) : new Response("not found", { status: 404 });
    }
    if (req.method !== "POST") return new Response("stub supports POST only", { status: 405 });
    const decoded = decodeResponse(new Uint8Array(await req.arrayBuffer()));
    const question = decoded.ok ? decoded.value.question[0] : undefined;
    if (!decoded.ok || !question) return new Response("bad DNS query", { status: 400 });
    const q: StubQuery = { name: norm(question.name), type: typeName(question.type), endpoint: req.url };
    queries.push(q);
    const delay = typeof opts.delayMs === "function" ? opts.delayMs(q) : (opts.delayMs ?? 0);
    if (delay > 0) await sleep(delay, signal);

    const rules = faults.get(`${q.name} ${q.type}`) ?? [];
    const rule = rules.find((r) => r.remaining > 0 && (!r.endpoint || r.endpoint === req.url || r.endpoint === url.host));
    if (rule) rule.remaining--;
    const fault = rule?.fault;
    if (fault === "timeout") return hang(signal);
    if (fault === "http-500") return new Response("stub fault", { status: 500 });
    if (fault === "garbage") return new Response(new Uint8Array([0xde, 0xad, 0xbe, 0xef, 0x00]), { headers: DNS_MESSAGE });

    const answer = fault === "servfail" || fault === "refused" || fault === "truncated" ? null : answerFor(zone, q.name, question.type, opts);
    const rcode = fault === "servfail" ? RCODE.SERVFAIL : fault === "refused" ? RCODE.REFUSED : (answer?.rcode ?? RCODE.NOERROR);
    const id = fault === "wrong-id" ? (decoded.value.header.id + 0x1234) & 0xffff : decoded.value.header.id;
    const bytes = encodeResponse({
      header: { id, rcode, flags: { tc: fault === "truncated", rd: decoded.value.header.flags.rd, ad: answer?.ad === true && rcode !== RCODE.SERVFAIL } },
      question: [question],
      answer: answer?.answer ?? [],
      authority: answer?.authority ?? [],
    });
    if (!bytes.ok) return new Response(`stub cannot encode answer: ${bytes.error}`, { status: 500 });
    return new Response(bytes.value, { headers: DNS_MESSAGE });
  });

  const stub: DohStub = {
    queries,
    spy,
    restore: () => {
      spy.mockRestore();
      installed.delete(stub);
    },
    setFault(name, type, fault, o = {}) {
      const key = `${norm(name)} ${type.toUpperCase()}`;
      if (fault === null) faults.delete(key);
      else faults.set(key, [...(faults.get(key) ?? []), { fault, endpoint: o.endpoint, remaining: o.times ?? Infinity }]);
    },
  };
  installed.add(stub);
  return stub;
}

/** The test deployment's report domain (vitest.config.ts REPORT_DOMAIN), set up as the README tells an
 *  operator: an MX and the RFC 9990 §3.2.3 wildcard authorization, so a domain that sends its reports
 *  there is authorised. A zone that names these itself overrides them. */
const REPORT_DOMAIN_ZONE: StubZone = {
  "reports.test": { MX: [{ preference: 10, exchange: "mx.reports.test" }] },
  "mx.reports.test": { A: ["198.51.100.250"] },
};
const REPORT_AUTHORIZATION = /\._report\._dmarc\.reports\.test$/;

function lookup(zone: StubZone, name: string): StubRecords | "nxdomain" | undefined {
  for (const [k, v] of Object.entries(zone)) if (norm(k) === name) return v;
  if (REPORT_AUTHORIZATION.test(name)) return { TXT: ["v=DMARC1"] };
  return REPORT_DOMAIN_ZONE[name];
}

/** What a recursive resolver would return: the CNAME chain, then the target's RRset, with an SOA
 *  in the authority section of negative answers (RFC 2308 §3) and NXDOMAIN for the last name. */
function answerFor(zone: StubZone, qname: string, qtype: number, opts: DohStubOptions) {
  const answer: ResourceRecord[] = [];
  const visited = new Set([qname]);
  const rr = (name: string, type: number, ttl: number, data: ResourceRecord["data"]): ResourceRecord => ({ name, type, class: CLASS_IN, ttl, data });
  let current = qname;
  for (;;) {
    const entry = lookup(zone, current);
    if (entry === undefined || entry === "nxdomain") return { rcode: RCODE.NXDOMAIN, answer, authority: [soa(current)], ad: false };
    const ttl = entry.ttl ?? opts.ttl ?? 300;
    if (entry.CNAME !== undefined && qtype !== TYPE.CNAME) {
      const target = norm(entry.CNAME);
      answer.push(rr(current, TYPE.CNAME, ttl, { kind: "CNAME", target }));
      if (visited.has(target) || opts.followCnames === false) return { rcode: RCODE.NOERROR, answer, authority: [] };
      visited.add(target);
      current = target;
      continue;
    }
    const records: ResourceRecord[] = [];
    const add = (type: number, data: ResourceRecord["data"]): number => records.push(rr(current, type, ttl, data));
    if (qtype === TYPE.A) for (const address of entry.A ?? []) add(TYPE.A, { kind: "A", address });
    if (qtype === TYPE.AAAA) for (const address of entry.AAAA ?? []) add(TYPE.AAAA, { kind: "AAAA", address });
    if (qtype === TYPE.CNAME && entry.CNAME !== undefined) add(TYPE.CNAME, { kind: "CNAME", target: norm(entry.CNAME) });
    if (qtype === TYPE.MX) for (const mx of entry.MX ?? []) add(TYPE.MX, { kind: "MX", preference: mx.preference, exchange: norm(mx.exchange) });
    if (qtype === TYPE.TXT) for (const t of entry.TXT ?? []) add(TYPE.TXT, { kind: "TXT", strings: typeof t === "string" ? [t] : t });
    if (qtype === TYPE.NS) for (const target of entry.NS ?? []) add(TYPE.NS, { kind: "NS", target: norm(target) });
    if (qtype === TYPE.PTR) for (const target of entry.PTR ?? []) add(TYPE.PTR, { kind: "PTR", target: norm(target) });
    if (qtype === TYPE.TLSA) for (const t of entry.TLSA ?? []) add(TYPE.TLSA, { kind: "TLSA", ...t });
    return { rcode: RCODE.NOERROR, answer: [...answer, ...records], authority: records.length > 0 ? [] : [soa(current)], ad: entry.ad === true };
  }
}

function soa(name: string): ResourceRecord {
  const apex = name.split(".").slice(-2).join(".");
  return {
    name: apex,
    type: TYPE.SOA,
    class: CLASS_IN,
    ttl: 3600,
    data: { kind: "SOA", mname: `ns1.${apex}`, rname: `hostmaster.${apex}`, serial: 1, refresh: 7200, retry: 900, expire: 1209600, minimum: 60 },
  };
}

const abortError = (signal: AbortSignal | undefined): unknown => signal?.reason ?? new DOMException("aborted", "AbortError");

function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(abortError(signal));
    const t = setTimeout(resolve, ms);
    signal?.addEventListener(
      "abort",
      () => {
        clearTimeout(t);
        reject(abortError(signal));
      },
      { once: true },
    );
  });
}

/** A server that never answers: settles only when the client's signal aborts (its timeout). */
function hang(signal: AbortSignal | undefined): Promise<Response> {
  if (!signal) return Promise.reject(new Error("doh-stub: a timeout fault needs a request with an AbortSignal"));
  return new Promise((_, reject) => {
    if (signal.aborted) return reject(abortError(signal));
    signal.addEventListener("abort", () => reject(abortError(signal)), { once: true });
  });
}
