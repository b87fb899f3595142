// DANE for inbound SMTP (RFC 7672): TLSA records at _25._tcp.<mx> for each live MX host, trusted only when
// the validating resolver authenticated the answer (AD bit). I/O via Resolver only.
import type { Resolver, TlsaRecord } from "../dns/types";
import type { ViewStatus } from "../part/types";
import type { Finding } from "../types";
import { tlsaText, unusableReason, usageName } from "./tlsa";

/**
 * Per host: "secure" (authenticated TLSA records), "none" (an authenticated denial: no DANE there),
 * "insecure" (not authenticated, so neither: RFC 7672 §2.2 has senders ignore it), "temperror" (unknown).
 */
export type TlsaState = "secure" | "none" | "insecure" | "temperror";

export interface DaneHost {
  host: string;
  name: string;
  state: TlsaState;
  records: Array<TlsaRecord & { usable: boolean; problem: string | null }>;
}

export interface DaneResult {
  status: ViewStatus;
  /** The TLSA name of the first live MX host (each host's is in `hosts`). */
  host: string;
  /** One line per TLSA record, "<mx host> <usage> <selector> <matching type> <data>", sorted. */
  record: string | null;
  hosts: DaneHost[];
  findings: Finding[];
}

const f = (rule: string, severity: Finding["severity"], description: string, fix: string | null = null): Finding => ({ rule, severity, description, fix });

export async function lookupTlsa(host: string, resolver: Resolver): Promise<DaneHost> {
  const name = `_25._tcp.${host}`;
  const r = await resolver.query(name, "TLSA");
  if (r.kind === "temperror") return { host, name, state: "temperror", records: [] };
  if (r.authenticated !== true) {
    const records = r.kind === "records" ? r.records.map((t) => ({ ...t, usable: false, problem: "not DNSSEC-authenticated" })) : [];
    return { host, name, state: "insecure", records };
  }
  if (r.kind !== "records") return { host, name, state: "none", records: [] };
  const records = r.records.map((t) => {
    const problem = unusableReason(t);
    return { ...t, usable: problem === null, problem };
  });
  return { host, name, state: "secure", records };
}

function statusOf(hosts: DaneHost[]): ViewStatus {
  if (hosts.some((h) => h.state === "temperror")) return "temperror";
  if (hosts.length === 0) return "missing";
  const secure = hosts.filter((h) => h.state === "secure");
  if (secure.some((h) => h.records.some((r) => r.usable))) return "present";
  if (secure.length > 0) return "invalid";
  return hosts.every((h) => h.state === "none") ? "missing" : "insecure";
}

function findingsOf(hosts: DaneHost[], status: ViewStatus): Finding[] {
  if (status === "temperror") return [];
  const out: Finding[] = [];
  for (const h of hosts) {
    const usable = h.records.filter((r) => r.usable);
    const unusable = h.records.filter((r) => !r.usable);
    if (h.state === "insecure" && h.records.length > 0) {
      out.push(
        f(
          "dane.insecure",
          "Medium",
          `The TLSA records at ${h.name} are not DNSSEC-authenticated, so senders ignore them (RFC 7672 §2.2).`,
          `Sign the zone of ${h.name} with DNSSEC (and publish its DS record), or remove the TLSA records.`,
        ),
      );
    }
    if (h.state !== "secure") continue;
    if (usable.length === 0) {
      const usages = [...new Set(h.records.map((r) => usageName(r.usage)))].join(", ");
      out.push(
        f(
          "dane.no-usable-tlsa",
          "High",
          `${h.name} publishes TLSA records but none a sender can use (${usages}; ${unusable.map((r) => r.problem).join("; ")}): DANE senders still insist on TLS but cannot authenticate ${h.host} (RFC 7672 §2.2, §3.1.3).`,
          `Publish a DANE-EE record for the server key, e.g. "${h.name}. IN TLSA 3 1 1 <SHA-256 of the SubjectPublicKeyInfo>".`,
        ),
      );
    } else if (unusable.length > 0) {
      out.push(
        f(
          "dane.unusable-record",
          "Low",
          `${unusable.length} of the TLSA records at ${h.name} cannot be used (${unusable.map((r) => `${tlsaText(r)}: ${r.problem}`).join("; ")}); the others still authenticate ${h.host}.`,
          "Remove the unusable records.",
        ),
      );
    }
  }
  const withDane = hosts.filter((h) => h.state === "secure").map((h) => h.host);
  const without = hosts.filter((h) => h.state === "none").map((h) => h.host);
  if (withDane.length > 0 && without.length > 0) {
    out.push(
      f(
        "dane.partial",
        "Medium",
        `${without.join(", ")} publish no TLSA records while ${withDane.join(", ")} do: mail routed to them is not protected by DANE (RFC 7672 §2.2.1).`,
        `Publish TLSA records at ${without.map((h) => `_25._tcp.${h}`).join(", ")}.`,
      ),
    );
  }
  return out;
}

/** `mxHosts`: the live MX hosts (null: MX unknown, so DANE is unknown too). */
export async function checkDane(domain: string, mxHosts: string[] | null, resolver: Resolver): Promise<DaneResult> {
  const first = mxHosts?.[0];
  const host = first ? `_25._tcp.${first}` : `_25._tcp.${domain}`;
  if (mxHosts === null) return { status: "temperror", host, record: null, hosts: [], findings: [] };
  const hosts = await Promise.all([...new Set(mxHosts.map((h) => h.toLowerCase()))].map((h) => lookupTlsa(h, resolver)));
  const lines = hosts.flatMap((h) => h.records.map((r) => `${h.host} ${tlsaText(r)}`)).sort();
  const status = statusOf(hosts);
  return { status, host, record: lines.length > 0 ? lines.join("\n") : null, hosts, findings: findingsOf(hosts, status) };
}
