// Groups a message's ARC header fields into ARC Sets by instance and checks the chain's structure
// (RFC 8617 §4.2, §5.2 steps 1 and 3). No I/O.
import type { HeaderField } from "../dkim/message";

export type ArcFieldKind = "aar" | "ams" | "as";

const KINDS: Record<string, ArcFieldKind> = {
  "arc-authentication-results": "aar",
  "arc-message-signature": "ams",
  "arc-seal": "as",
};

export const arcKind = (h: HeaderField): ArcFieldKind | null => KINDS[h.key] ?? null;

/** RFC 8617 §4.2.1: instance values range from 1 to 50; §3.9: position = 1*2DIGIT. */
export const MAX_INSTANCE = 50;

const position = (text: string): number | null => {
  const s = text.replace(/[ \t\r\n]+/g, "");
  if (!/^[0-9]{1,2}$/.test(s)) return null;
  const n = Number(s);
  return n >= 1 && n <= MAX_INSTANCE ? n : null;
};

/**
 * The instance of one ARC header field, or null when it has none that is valid. The AAR must start
 * with it (§4.1.1: arc-info = instance [CFWS] ";" authres-payload); the AMS and AS carry it as the
 * i= tag of their tag-list (§4.1.2, §4.1.3), anywhere in the list.
 */
export function instanceOf(kind: ArcFieldKind, value: string): number | null {
  if (kind === "aar") {
    const m = /^[ \t\r\n]*i[ \t\r\n]*=([^;]*);/.exec(value);
    return m ? position(m[1] ?? "") : null;
  }
  const tags = [...value.matchAll(/(?:^|;)[ \t\r\n]*i[ \t\r\n]*=([^;]*)/g)];
  // Two i= tags make the tag-list invalid (RFC 6376 §3.2), so the field belongs to no set.
  return tags.length === 1 ? position(tags[0]?.[1] ?? "") : null;
}

export interface ArcSetFields {
  instance: number;
  aar: HeaderField[];
  ams: HeaderField[];
  as: HeaderField[];
}

export interface CollectedChain {
  /** Sets by instance, ascending; only instances some field named. */
  sets: ArcSetFields[];
  /** ARC header fields without a valid instance. */
  unplaced: Array<{ kind: ArcFieldKind; field: HeaderField }>;
  /** The highest instance seen (N in §5.2), 0 when there is none. */
  highest: number;
}

export function collectArcSets(headers: HeaderField[]): CollectedChain {
  const byInstance = new Map<number, ArcSetFields>();
  const unplaced: CollectedChain["unplaced"] = [];
  for (const h of headers) {
    const kind = arcKind(h);
    if (kind === null) continue;
    const i = instanceOf(kind, h.value);
    if (i === null) {
      unplaced.push({ kind, field: h });
      continue;
    }
    let set = byInstance.get(i);
    if (!set) {
      set = { instance: i, aar: [], ams: [], as: [] };
      byInstance.set(i, set);
    }
    set[kind].push(h);
  }
  const sets = [...byInstance.values()].sort((a, b) => a.instance - b.instance);
  return { sets, unplaced, highest: sets.at(-1)?.instance ?? 0 };
}

const NAMES: Record<ArcFieldKind, string> = { aar: "ARC-Authentication-Results", ams: "ARC-Message-Signature", as: "ARC-Seal" };

/**
 * §5.2 step 3 (parts 1 and 2): exactly one AAR, AMS and AS per set, instances 1..N without gaps or
 * repeats (§4.2.1). Returns the first problem with the instance it concerns (null when it is a field
 * with no instance at all), or null when the structure holds. The cv rule (part 3) needs the seals
 * and is checked by the caller.
 */
export function structureProblem(chain: CollectedChain): { instance: number | null; reason: string } | null {
  const first = chain.unplaced[0];
  if (first)
    return { instance: null, reason: `an ${NAMES[first.kind]} header field has no valid instance tag (i= from 1 to ${MAX_INSTANCE}, RFC 8617 §4.2.1)` };
  for (let i = 1; i <= chain.highest; i++) {
    const set = chain.sets.find((s) => s.instance === i);
    if (!set) return { instance: i, reason: `ARC Set i=${i} is missing: instances must run from 1 to ${chain.highest} without gaps (RFC 8617 §5.2 step 3)` };
    for (const kind of ["aar", "ams", "as"] as const) {
      const n = set[kind].length;
      if (n !== 1) {
        return {
          instance: i,
          reason: `ARC Set i=${i} has ${n === 0 ? "no" : n} ${NAMES[kind]} header field${n > 1 ? "s" : ""}; exactly one is required (RFC 8617 §4.2.1)`,
        };
      }
    }
  }
  return null;
}

/** The AAR's authserv-id and its results, unfolded (§4.1.1); the instance prefix is removed. */
export function readAar(value: string): { authserv_id: string | null; results: string } {
  const text = value
    .replace(/\r\n/g, "")
    .replace(/[ \t]+/g, " ")
    .trim();
  const rest = text.replace(/^i ?= ?[0-9]+ ?; ?/, "");
  const semi = rest.indexOf(";");
  const head = (semi < 0 ? rest : rest.slice(0, semi)).trim();
  // RFC 8601 §2.2: authserv-id [ CFWS authres-version ]; the id is the first word.
  const id = head.split(" ")[0] ?? "";
  return { authserv_id: id === "" ? null : id, results: semi < 0 ? "" : rest.slice(semi + 1).trim() };
}
