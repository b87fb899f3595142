// The one strict IP text parser and formatter (RFC 4291 §2.2 text forms, strict dotted quads, RFC 5952 §4 output), used by DNS, SPF, reports and the outbound address rules. No I/O.

/** Strict dotted quad: four decimal octets, no leading zeros (they mean octal to some parsers). */
export function parseIPv4(text: string): Uint8Array | null {
  const parts = text.split(".");
  if (parts.length !== 4) return null;
  const out = new Uint8Array(4);
  for (let i = 0; i < 4; i++) {
    const p = parts[i] ?? "";
    if (!/^(0|[1-9][0-9]{0,2})$/.test(p)) return null;
    const n = Number(p);
    if (n > 255) return null;
    out[i] = n;
  }
  return out;
}

export const formatIPv4 = (b: Uint8Array): string => `${b[0]}.${b[1]}.${b[2]}.${b[3]}`;

/** RFC 4291 §2.2 text forms, including "::" and a trailing embedded IPv4; no zone ids. */
export function parseIPv6(text: string): Uint8Array | null {
  if (text.length === 0 || text.length > 45 || text.includes("%")) return null;
  let body = text;
  const tail: number[] = [];
  const lastColon = body.lastIndexOf(":");
  if (body.slice(lastColon + 1).includes(".")) {
    const v4 = parseIPv4(body.slice(lastColon + 1));
    if (!v4 || lastColon < 0) return null;
    tail.push(((v4[0] ?? 0) << 8) | (v4[1] ?? 0), ((v4[2] ?? 0) << 8) | (v4[3] ?? 0));
    body = body.slice(0, lastColon + 1);
    if (!body.endsWith("::")) body = body.slice(0, -1); // drop the separator before the IPv4 part
  }
  const halves = body.split("::");
  if (halves.length > 2) return null;
  const parseGroups = (s: string): number[] | null => {
    if (s === "") return [];
    const out: number[] = [];
    for (const g of s.split(":")) {
      if (!/^[0-9a-fA-F]{1,4}$/.test(g)) return null;
      out.push(parseInt(g, 16));
    }
    return out;
  };
  const head = parseGroups(halves[0] ?? "");
  const rest = halves.length === 2 ? parseGroups(halves[1] ?? "") : [];
  if (!head || !rest) return null;
  const groups = [...head];
  const explicit = head.length + rest.length + tail.length;
  if (halves.length === 2) {
    if (explicit > 7) return null; // "::" stands for at least one zero group
    for (let i = explicit; i < 8; i++) groups.push(0);
  } else if (explicit !== 8) {
    return null;
  }
  groups.push(...rest, ...tail);
  const out = new Uint8Array(16);
  groups.forEach((g, i) => {
    out[2 * i] = g >> 8;
    out[2 * i + 1] = g & 0xff;
  });
  return out;
}

/** RFC 5952 §4: lower-case hex, no leading zeros, the longest (first on a tie) run of two or
 *  more zero groups shortened to "::". Embedded IPv4 (§5) is not used, as in WHATWG URLs. */
export function formatIPv6(b: Uint8Array): string {
  const groups: number[] = [];
  for (let i = 0; i < 8; i++) groups.push(((b[2 * i] ?? 0) << 8) | (b[2 * i + 1] ?? 0));
  let bestStart = -1;
  let bestLen = 0;
  for (let i = 0; i < 8; ) {
    if (groups[i] !== 0) {
      i++;
      continue;
    }
    let j = i;
    while (j < 8 && groups[j] === 0) j++;
    if (j - i > bestLen) [bestStart, bestLen] = [i, j - i];
    i = j;
  }
  const hex = (g: number[]): string => g.map((n) => n.toString(16)).join(":");
  if (bestLen < 2) return hex(groups);
  return `${hex(groups.slice(0, bestStart))}::${hex(groups.slice(bestStart + bestLen))}`;
}
