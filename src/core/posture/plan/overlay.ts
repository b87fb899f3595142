// The zone as it would be after a plan's records are published: a resolver that answers the planned records
// over the check's own answers (each asked once, then remembered), and a fetch that serves the planned files
// (the MTA-STS policy) over remembered responses. Pure wrappers over the injected ports.
import type { Lookup, MxRecord, QueryOptions, RecordData, RecordType, Resolver } from "../../dns/types";
import type { HttpFetch } from "../../types";

/** One record the plan publishes (replacing the records of its kind at that name) or removes. */
export interface ZoneEdit {
  host: string;
  type: "TXT" | "MX" | "CNAME" | "A";
  /** TXT: the whole record text (its strings joined); MX: "pref host"; A: an address. */
  value: string;
  remove?: boolean;
}

export interface PlannedFile {
  url: string;
  contentType: string;
  body: string;
}

/** The kind of a TXT record: its version tag ("v=spf1", "v=dmarc1", ...), or the record itself. Publishing a
 *  record replaces the others of its kind at that name and keeps unrelated TXT records (verification tokens). */
export function txtKind(value: string): string {
  const m = /^\s*(v\s*=\s*[a-z0-9.]+)/i.exec(value);
  return m?.[1] ? m[1].replace(/\s+/g, "").toLowerCase() : value;
}

const norm = (name: string) => name.trim().toLowerCase().replace(/\.$/, "");

function parseMx(value: string): MxRecord {
  const [pref, host] = value.trim().split(/\s+/);
  return { preference: Number(pref), exchange: norm(host ?? "") };
}

/** Remembers every answer of `base` (positive, negative and failures alike) so that each projection of a plan
 *  reads the zone exactly as the check saw it, and asks the network at most once per name and type. */
export function memoResolver(base: Resolver): Resolver {
  const seen = new Map<string, Promise<Lookup<unknown>>>();
  return {
    get queriesSent() {
      return base.queriesSent;
    },
    query<T extends RecordType>(name: string, type: T, opts?: QueryOptions): Promise<Lookup<RecordData[T]>> {
      const key = `${norm(name)}|${type}`;
      let p = seen.get(key);
      if (!p) {
        p = base.query(name, type, opts);
        seen.set(key, p);
      }
      return p as Promise<Lookup<RecordData[T]>>;
    },
  };
}

/** `base` with `edits` applied: a name the plan publishes at answers its records (CNAMEs are not followed
 *  past the plan; the plan only points names at hosts whose answers it does not need to change). */
export function overlayResolver(base: Resolver, edits: readonly ZoneEdit[]): Resolver {
  const byKey = new Map<string, ZoneEdit[]>();
  for (const e of edits) {
    const key = `${norm(e.host)}|${e.type}`;
    byKey.set(key, [...(byKey.get(key) ?? []), e]);
  }
  const names = new Set(edits.map((e) => norm(e.host)));
  return {
    get queriesSent() {
      return base.queriesSent;
    },
    async query<T extends RecordType>(name: string, type: T, opts?: QueryOptions): Promise<Lookup<RecordData[T]>> {
      const n = norm(name);
      const mine = byKey.get(`${n}|${type}`);
      if (!mine) {
        // A name the plan creates (a policy host, an SPF chain record) exists: other types there are NODATA.
        if (names.has(n) && !byKey.has(`${n}|CNAME`)) {
          const real = await base.query(name, type, opts);
          return real.kind === "nxdomain" ? { kind: "nodata", chain: [] } : real;
        }
        return base.query(name, type, opts);
      }
      const real = await base.query(name, type, opts);
      if (real.kind === "temperror") return real;
      const current = real.kind === "records" ? (real.records as unknown[]) : [];
      let records: unknown[];
      if (type === "TXT") {
        const kinds = new Set(mine.map((e) => txtKind(e.value)));
        records = [...(current as string[]).filter((r) => !kinds.has(txtKind(r))), ...mine.filter((e) => !e.remove).map((e) => e.value)];
      } else if (type === "MX") {
        records = mine.filter((e) => !e.remove).map((e) => parseMx(e.value));
      } else {
        records = mine.filter((e) => !e.remove).map((e) => (type === "CNAME" ? norm(e.value) : e.value));
      }
      if (records.length === 0) return { kind: "nodata", chain: [] };
      return { kind: "records", records: records as RecordData[T][], ttl: 300, chain: [] };
    },
  };
}

interface Remembered {
  status: number;
  headers: [string, string][];
  body: ArrayBuffer;
}

/** Serves `files` by URL and every other GET once from the network, remembered for later projections. */
export function overlayFetch(base: HttpFetch, files: readonly PlannedFile[]): HttpFetch {
  const planned = new Map(files.map((f) => [f.url, f]));
  return async (input, init) => {
    const url = typeof input === "string" ? input : input.url;
    const file = planned.get(url);
    if (file) return new Response(file.body, { status: 200, headers: { "content-type": file.contentType } });
    return base(input, init);
  };
}

/** Every reader behind this port caps what it reads far below this; a larger body is cut here, still too large for them. */
const MEMO_MAX_BYTES = 1024 * 1024;

async function readCapped(r: Response): Promise<ArrayBuffer> {
  if (!r.body) return new ArrayBuffer(0);
  const reader = r.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  while (size <= MEMO_MAX_BYTES) {
    const { done, value } = await reader.read();
    if (done) break;
    chunks.push(value);
    size += value.byteLength;
  }
  if (size > MEMO_MAX_BYTES) await reader.cancel();
  const out = new Uint8Array(Math.min(size, MEMO_MAX_BYTES + 1));
  let at = 0;
  for (const c of chunks) {
    const part = c.subarray(0, out.length - at);
    out.set(part, at);
    at += part.length;
    if (at >= out.length) break;
  }
  return out.buffer;
}

export function memoFetch(base: HttpFetch): HttpFetch {
  const seen = new Map<string, Promise<Remembered>>();
  return async (input, init) => {
    const url = typeof input === "string" ? input : input.url;
    const method = (init?.method ?? (typeof input === "string" ? "GET" : input.method)).toUpperCase();
    if (method !== "GET") return base(input, init);
    let p = seen.get(url);
    if (!p) {
      p = base(input, init).then(async (r) => ({ status: r.status, headers: [...r.headers.entries()], body: await readCapped(r) }));
      seen.set(url, p);
    }
    const r = await p;
    // 1xx/204/304 and friends cannot carry a body in the Response constructor.
    const bodyless = r.status === 204 || r.status === 304 || r.status < 200;
    return new Response(bodyless ? null : r.body.slice(0), { status: r.status, headers: r.headers });
  };
}
