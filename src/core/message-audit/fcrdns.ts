// Forward-confirmed reverse DNS of the sending IP (RFC 8601 §3 "iprev"): the PTR names of the address,
// then A/AAAA of each name back to the same address. I/O only through the Resolver.
import { reverseName } from "../dns/reverse";
import type { Resolver } from "../dns/types";
import { parseIp } from "../spf/ip";

export interface FcrdnsCheck {
  result: "pass" | "fail" | "temperror" | "none";
  ptr: string[];
  /** The PTR name whose A/AAAA answer contains the IP. */
  confirmed: string | null;
  reason: string;
}

/** Same cap as the SPF ptr mechanism (RFC 7208 §4.6.4): at most 10 PTR names are checked. */
export const MAX_PTR_NAMES = 10;

const sameIp = (a: string, b: string): boolean => {
  const x = parseIp(a);
  const y = parseIp(b);
  return x !== null && y !== null && x.version === y.version && x.bytes.every((v, i) => v === y.bytes[i]);
};

export async function checkFcrdns(ip: string, resolver: Resolver): Promise<FcrdnsCheck> {
  const parsed = parseIp(ip);
  const name = reverseName(ip);
  if (parsed === null || !name.ok) return { result: "none", ptr: [], confirmed: null, reason: `"${ip}" is not an IP address` };
  const ptr = await resolver.query(name.value, "PTR");
  if (ptr.kind === "temperror") return { result: "temperror", ptr: [], confirmed: null, reason: `PTR lookup of ${name.value} failed: ${ptr.reason}` };
  if (ptr.kind !== "records") return { result: "fail", ptr: [], confirmed: null, reason: `${ip} has no PTR record` };
  const names = ptr.records.slice(0, MAX_PTR_NAMES);
  const type = parsed.version === 4 ? "A" : "AAAA";
  const answers = await Promise.all(names.map((n) => resolver.query(n, type)));
  const hit = names.find((_n, i) => {
    const a = answers[i];
    return a?.kind === "records" && a.records.some((r) => sameIp(r, ip));
  });
  if (hit !== undefined) return { result: "pass", ptr: ptr.records, confirmed: hit, reason: `${hit} resolves back to ${ip}` };
  if (answers.some((a) => a.kind === "temperror"))
    return { result: "temperror", ptr: ptr.records, confirmed: null, reason: `a ${type} lookup of the PTR names failed` };
  return { result: "fail", ptr: ptr.records, confirmed: null, reason: `no PTR name of ${ip} (${names.join(", ")}) has an ${type} record back to it` };
}
