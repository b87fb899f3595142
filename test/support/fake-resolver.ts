// An in-memory Resolver for unit tests of the pure core: answers from a zone map, counts queries,
// and injects temperrors. Wire-format behaviour is tested separately against the DoH stub.
import type { Lookup, RecordData, RecordType, Resolver } from "../../src/core/dns/types";

type RecordSet = { [K in RecordType]?: RecordData[K][] };
/** A name maps to its records, or to "nxdomain", or to "temperror" (every type fails). */
export type Zone = Record<string, RecordSet | "nxdomain" | "temperror">;

export class FakeResolver implements Resolver {
  queriesSent = 0;
  readonly log: string[] = [];
  /** Per "name TYPE" overrides, e.g. { "example.com TXT": "temperror" }. */
  readonly faults = new Map<string, "temperror">();

  constructor(private readonly zone: Zone) {}

  async query<T extends RecordType>(name: string, type: T): Promise<Lookup<RecordData[T]>> {
    const chain: string[] = [];
    let current = name.toLowerCase().replace(/\.$/, "");
    for (let hops = 0; hops <= 8; hops++) {
      this.queriesSent++;
      this.log.push(`${current} ${type}`);
      if (this.faults.get(`${current} ${type}`) === "temperror") return { kind: "temperror", reason: "injected fault" };
      const entry = this.zone[current];
      if (entry === undefined || entry === "nxdomain") return { kind: "nxdomain", chain };
      if (entry === "temperror") return { kind: "temperror", reason: "injected fault" };
      const records = entry[type];
      if (records && records.length > 0) return { kind: "records", records: [...records] as RecordData[T][], ttl: 300, chain };
      const cname = entry.CNAME?.[0];
      if (type !== "CNAME" && cname !== undefined) {
        if (chain.includes(cname)) return { kind: "temperror", reason: "CNAME loop" };
        chain.push(cname);
        current = cname;
        continue;
      }
      return { kind: "nodata", chain };
    }
    return { kind: "temperror", reason: "CNAME chain too long" };
  }
}
