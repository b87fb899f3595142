// The audit log's hash chain (docs/audit.md "The chain"). Pure: no I/O; SHA-256 comes through an injected
// digest (WebCrypto by default). Each sealed entry's hash is SHA-256(previous hash || canonical bytes of
// the entry), so changing, removing or reordering a sealed entry changes every later hash and the head.

/** Every field a reader of the log sees, in the order they are hashed. */
export interface ChainEntry {
  teamId: number;
  seq: number;
  /** Milliseconds since the epoch, as stored. */
  at: number;
  actorKind: string;
  actorId: string;
  actorLabel: string;
  face: string;
  verb: string;
  targetType: string | null;
  targetId: string | null;
  summary: string;
  ip: string | null;
  userAgent: string | null;
}

export type Digest = (bytes: Uint8Array) => Promise<Uint8Array>;

export const webCryptoSha256: Digest = async (bytes) => new Uint8Array(await crypto.subtle.digest("SHA-256", bytes));

/** The hash before the first entry of a team (nothing pruned yet): 32 zero bytes, hex. */
export const GENESIS_HASH = "0".repeat(64);

/** Names the canonical form, so a later change of fields is a new version rather than a silent break. */
const VERSION = "eam-audit-v1";

/**
 * The canonical bytes: UTF-8 of a JSON array (RFC 8259) with a fixed order, so no object key order is
 * involved: the version, then every field a reader sees (the team, because an entry moved to another
 * team must not verify; seq, because order is the point; the time, who, from where, what, to what,
 * the summary). JSON.stringify escapes lone surrogates (ES2019), so every string has one encoding.
 */
export function canonicalEntry(e: ChainEntry): Uint8Array {
  const fields = [VERSION, e.teamId, e.seq, e.at, e.actorKind, e.actorId, e.actorLabel, e.face, e.verb, e.targetType, e.targetId, e.summary, e.ip, e.userAgent];
  return new TextEncoder().encode(JSON.stringify(fields));
}

const toHex = (bytes: Uint8Array) => Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");

function fromHex(hex: string): Uint8Array {
  if (!/^[0-9a-f]{64}$/.test(hex)) throw new Error("a chain hash is 64 lowercase hex digits");
  const out = new Uint8Array(32);
  for (let i = 0; i < 32; i++) out[i] = Number.parseInt(hex.slice(i * 2, i * 2 + 2), 16);
  return out;
}

/** hash(entry) = SHA-256(previous hash as 32 bytes || canonical bytes), lowercase hex. */
export async function chainHash(previousHex: string, entry: ChainEntry, digest: Digest = webCryptoSha256): Promise<string> {
  const prev = fromHex(previousHex);
  const body = canonicalEntry(entry);
  const input = new Uint8Array(prev.length + body.length);
  input.set(prev, 0);
  input.set(body, prev.length);
  return toHex(await digest(input));
}

/** Where verification starts: the last removed entry (retention) and its hash, or seq 0 and the genesis hash. */
export interface ChainAnchor {
  seq: number;
  hash: string;
}

/** What the sealer last recorded: the highest sealed seq and its hash. */
export interface ChainHead {
  sealedSeq: number;
  headHash: string;
}

export type ChainProblem =
  | { seq: number; reason: "altered"; message: string }
  | { seq: number; reason: "gap"; message: string }
  | { seq: number; reason: "unsealed_inside"; message: string }
  | { seq: number; reason: "head_mismatch"; message: string };

export interface ChainReport {
  ok: boolean;
  /** Sealed entries whose hash was recomputed and matched. */
  checked: number;
  /** The last seq that verified (the anchor's when none did). */
  verifiedThrough: number;
  /** Entries after the sealed head, not yet sealed (written, waiting for the sealer). */
  unsealed: number;
  /** The first problem found, in seq order; null when ok. */
  problem: ChainProblem | null;
}

type Stored = ChainEntry & { hash: string | null };

/**
 * Verifies a team's entries in ascending seq order, fed page by page (a log can be long): each sealed
 * entry must follow the previous seq by one and carry SHA-256(previous hash || itself); sealed entries
 * end at the head, and whatever follows is the unsealed tail. Stops at the first problem.
 */
export class ChainVerifier {
  private prevSeq: number;
  private prevHash: string;
  private checked = 0;
  private unsealed = 0;
  private problem: ChainProblem | null = null;

  constructor(
    anchor: ChainAnchor,
    private readonly head: ChainHead,
    private readonly digest: Digest = webCryptoSha256,
  ) {
    this.prevSeq = anchor.seq;
    this.prevHash = anchor.hash;
  }

  /** False once a problem is found (the caller may stop reading). */
  async push(entries: readonly Stored[]): Promise<boolean> {
    for (const e of entries) {
      if (this.problem) return false;
      if (e.seq <= this.head.sealedSeq) await this.checkSealed(e);
      else this.checkTail(e);
    }
    return this.problem === null;
  }

  private async checkSealed(e: Stored): Promise<void> {
    if (e.seq !== this.prevSeq + 1) {
      this.problem = gap(this.prevSeq + 1, e.seq);
      return;
    }
    if (e.hash === null) {
      this.problem = {
        seq: e.seq,
        reason: "unsealed_inside",
        message: `Entry ${e.seq} is inside the sealed chain (head ${this.head.sealedSeq}) but has no hash: it was altered.`,
      };
      return;
    }
    const expected = await chainHash(this.prevHash, e, this.digest);
    if (expected !== e.hash) {
      this.problem = { seq: e.seq, reason: "altered", message: `Entry ${e.seq} does not match its hash: it was changed after it was sealed, or its hash was.` };
      return;
    }
    this.checked++;
    this.prevSeq = e.seq;
    this.prevHash = e.hash;
  }

  private checkTail(e: Stored): void {
    // Sealed entries must all be there before the tail starts.
    if (this.prevSeq < this.head.sealedSeq) {
      this.problem = gap(this.prevSeq + 1, e.seq);
      return;
    }
    const expectedSeq = this.head.sealedSeq + this.unsealed + 1;
    if (e.seq !== expectedSeq) {
      this.problem = gap(expectedSeq, e.seq);
      return;
    }
    // The sealer writes an entry's hash and moves the head in one batch: a hash past the head means the
    // head was moved back or removed.
    if (e.hash !== null) {
      this.problem = {
        seq: e.seq,
        reason: "head_mismatch",
        message: `Entry ${e.seq} is sealed but the head ends at ${this.head.sealedSeq}: the head was moved back or removed.`,
      };
      return;
    }
    this.unsealed++;
  }

  finish(): ChainReport {
    if (!this.problem && this.prevSeq !== this.head.sealedSeq) {
      this.problem = {
        seq: this.prevSeq + 1,
        reason: "head_mismatch",
        message: `The head records entries up to ${this.head.sealedSeq}, but the log ends at ${this.prevSeq}: the newest sealed entries were removed.`,
      };
    } else if (!this.problem && this.prevHash !== this.head.headHash) {
      this.problem = {
        seq: this.head.sealedSeq,
        reason: "head_mismatch",
        message: `The recomputed hash of entry ${this.head.sealedSeq} differs from the head's: the chain was rewritten.`,
      };
    }
    return { ok: this.problem === null, checked: this.checked, verifiedThrough: this.prevSeq, unsealed: this.unsealed, problem: this.problem };
  }
}

function gap(expected: number, found: number): ChainProblem {
  const missing = found - expected === 1 ? `entry ${expected} is missing` : `entries ${expected} to ${found - 1} are missing`;
  return { seq: expected, reason: "gap", message: `The log jumps from ${expected - 1} to ${found}: ${missing}.` };
}
