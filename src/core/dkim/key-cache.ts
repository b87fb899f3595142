// Key records read and public keys imported for DKIM verification, kept in a small LRU so a key is
// parsed, fingerprinted and imported once, not once per message (docs/decisions.md D53). No I/O.
import { analyzeKey, type KeyAnalysis } from "./key";
import { parseKeyRecord, type KeyRecord } from "./key-record";
import type { Result } from "../types";

/** A key record as verification uses it: the parse, and the analysis when the key is not revoked. */
export interface ReadKey {
  record: Result<KeyRecord>;
  analysis: KeyAnalysis | { error: string } | null;
}

/** A bounded map that forgets the least recently used entry (a Map iterates in insertion order). */
class Lru<V> {
  private readonly map = new Map<string, V>();

  constructor(private readonly capacity: number) {}

  get(key: string): V | undefined {
    const v = this.map.get(key);
    if (v !== undefined) {
      this.map.delete(key);
      this.map.set(key, v);
    }
    return v;
  }

  set(key: string, value: V): void {
    this.map.delete(key);
    this.map.set(key, value);
    if (this.map.size > this.capacity) this.map.delete(this.map.keys().next().value as string);
  }

  get size(): number {
    return this.map.size;
  }
}

/**
 * What a key record's text and its p= value determine, and nothing else: the parsed record with its
 * analysis (keyed by the exact TXT text) and the imported WebCrypto key (keyed by algorithm, hash
 * and p=). Neither depends on the message, the time or the DNS answer's freshness: the DNS lookup
 * itself is never cached here, so a rotated or revoked key is seen on the very next message.
 * One instance per verification keeps the old per-message behaviour; one per isolate shares keys
 * across messages.
 */
export class DkimKeyCache {
  private readonly records: Lru<Promise<ReadKey>>;
  private readonly keys: Lru<Promise<CryptoKey>>;

  constructor(readonly capacity = 256) {
    this.records = new Lru(capacity);
    this.keys = new Lru(capacity);
  }

  /** Parse and analyze a key record once per distinct TXT text. */
  read(txt: string): Promise<ReadKey> {
    let p = this.records.get(txt);
    if (!p) {
      p = readKey(txt);
      this.records.set(txt, p);
    }
    return p;
  }

  /** Import a public key once per (algorithm, hash, p=); a refused import stays refused. */
  imported(id: string, load: () => Promise<CryptoKey>): Promise<CryptoKey> {
    let k = this.keys.get(id);
    if (!k) {
      k = load();
      // Keep the promise observed so a refusal is never reported as unhandled while it waits here.
      k.catch(() => undefined);
      this.keys.set(id, k);
    }
    return k;
  }

  /** Entries held (records, keys), for tests. */
  get sizes(): { records: number; keys: number } {
    return { records: this.records.size, keys: this.keys.size };
  }
}

async function readKey(txt: string): Promise<ReadKey> {
  const record = parseKeyRecord(txt);
  if (!record.ok || record.value.revoked) return { record, analysis: null };
  return { record, analysis: await analyzeKey(record.value) };
}
