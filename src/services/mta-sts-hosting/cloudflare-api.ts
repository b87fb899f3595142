// A small client for the two Cloudflare API resources hosting needs (README "Hosting MTA-STS and BIMI"):
// Cloudflare for SaaS custom hostnames (POST/GET/DELETE /zones/{zone_id}/custom_hostnames) for the
// certificate of mta-sts.<domain>, and DNS records (GET/POST/PATCH/DELETE /zones/{zone_id}/dns_records)
// for the `_mta-sts` id TXT records in the operator's zone. Every call is a bearer-token request through
// the injected fetch; a failure is a CloudflareApiError (the caller decides: 503, or retry later).
import type { HttpFetch } from "../../core/types";
import type { HostingSettings } from "./settings";

export class CloudflareApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
    this.name = "CloudflareApiError";
  }
}

/** One custom hostname as the API reports it, reduced to what the user is shown. */
export interface HostnameState {
  id: string;
  hostname: string;
  /** "pending", "active", "moved", "blocked", "deleted"... */
  status: string;
  /** The certificate: "initializing", "pending_validation", "pending_issuance", "pending_deployment", "active"... */
  sslStatus: string | null;
  /** Records or files that prove control of the name, while the certificate waits for them. */
  validation: Array<{ txtName?: string; txtValue?: string; httpUrl?: string; httpBody?: string }>;
  /** The API's validation and verification errors, in its words. */
  errors: string[];
}

interface Envelope<T> {
  success: boolean;
  errors?: Array<{ code?: number; message?: string }>;
  result: T;
}

interface RawHostname {
  id: string;
  hostname: string;
  status?: string;
  ssl?: {
    status?: string;
    validation_records?: Array<{ txt_name?: string; txt_value?: string; http_url?: string; http_body?: string }>;
    validation_errors?: Array<{ message?: string }>;
  };
  verification_errors?: string[];
}

interface RawDnsRecord {
  id: string;
  name: string;
  type: string;
  content: string;
}

/** HTTP validation (DCV through the CNAME the customer publishes), a DV certificate, TLS 1.2 or later. */
const SSL = { method: "http", type: "dv", settings: { min_tls_version: "1.2" } };

/** The id records are read by senders' resolvers after every change: a short TTL lets a new id show quickly. */
export const ID_RECORD_TTL = 60;

export function hostnameState(raw: RawHostname): HostnameState {
  return {
    id: raw.id,
    hostname: raw.hostname,
    status: raw.status ?? "pending",
    sslStatus: raw.ssl?.status ?? null,
    validation: (raw.ssl?.validation_records ?? []).map((v) => ({
      ...(v.txt_name ? { txtName: v.txt_name } : {}),
      ...(v.txt_value ? { txtValue: v.txt_value } : {}),
      ...(v.http_url ? { httpUrl: v.http_url } : {}),
      ...(v.http_body ? { httpBody: v.http_body } : {}),
    })),
    errors: [...(raw.ssl?.validation_errors ?? []).map((e) => e.message ?? "validation error"), ...(raw.verification_errors ?? [])],
  };
}

export interface CloudflareClient {
  createHostname(hostname: string): Promise<HostnameState>;
  /** Null when the API no longer knows the id (deleted outside the service). */
  getHostname(id: string): Promise<HostnameState | null>;
  /** Finds a hostname by name (a create that raced, or one made by hand). */
  findHostname(hostname: string): Promise<HostnameState | null>;
  deleteHostname(id: string): Promise<void>;
  /** Re-runs HTTP validation once the customer's CNAME is in place (the API asks for a PATCH then). */
  revalidateHostname(id: string): Promise<HostnameState | null>;
  /** Creates or changes the one TXT record at `name`. */
  putTxt(name: string, content: string): Promise<void>;
  deleteTxt(name: string): Promise<void>;
}

export function cloudflareClient(settings: HostingSettings, fetch: HttpFetch): CloudflareClient {
  const zone = settings.zoneId ?? "";
  const base = `${settings.apiBase}/zones/${encodeURIComponent(zone)}`;

  async function call<T>(method: string, path: string, body?: unknown): Promise<{ status: number; result: T | null }> {
    let res: Response;
    try {
      res = await fetch(`${base}${path}`, {
        method,
        headers: { authorization: `Bearer ${settings.token ?? ""}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        signal: AbortSignal.timeout(10_000),
      });
    } catch (e) {
      throw new CloudflareApiError(0, `The Cloudflare API could not be reached (${e instanceof Error ? e.name : "error"}).`);
    }
    if (res.status === 404) return { status: 404, result: null };
    let parsed: Envelope<T> | null = null;
    try {
      parsed = (await res.json()) as Envelope<T>;
    } catch {
      parsed = null;
    }
    if (!res.ok || !parsed?.success) {
      const why =
        parsed?.errors
          ?.map((e) => e.message)
          .filter(Boolean)
          .join("; ") || `HTTP ${res.status}`;
      throw new CloudflareApiError(res.status, `The Cloudflare API refused ${method} ${path.split("?")[0]}: ${why}`);
    }
    return { status: res.status, result: parsed.result };
  }

  /** The TXT records at `name`, in id order (so two callers that find the same ones keep the same one). */
  async function txtRecords(name: string): Promise<RawDnsRecord[]> {
    const found = await call<RawDnsRecord[]>("GET", `/dns_records?type=TXT&name=${encodeURIComponent(name)}`);
    return (found.result ?? []).filter((r) => r.name.toLowerCase() === name.toLowerCase()).sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  }

  return {
    async createHostname(hostname) {
      const body = { hostname, ssl: SSL };
      const { result } = await call<RawHostname>("POST", "/custom_hostnames", body);
      if (!result) throw new CloudflareApiError(404, "The Cloudflare API does not know the zone (CF_SAAS_ZONE_ID).");
      return hostnameState(result);
    },
    async getHostname(id) {
      const { result } = await call<RawHostname>("GET", `/custom_hostnames/${encodeURIComponent(id)}`);
      return result ? hostnameState(result) : null;
    },
    async findHostname(hostname) {
      const { result } = await call<RawHostname[]>("GET", `/custom_hostnames?hostname=${encodeURIComponent(hostname)}`);
      const raw = result?.find((h) => h.hostname.toLowerCase() === hostname.toLowerCase());
      return raw ? hostnameState(raw) : null;
    },
    async revalidateHostname(id) {
      const { result } = await call<RawHostname>("PATCH", `/custom_hostnames/${encodeURIComponent(id)}`, { ssl: SSL });
      return result ? hostnameState(result) : null;
    },
    async deleteHostname(id) {
      await call("DELETE", `/custom_hostnames/${encodeURIComponent(id)}`);
    },
    async putTxt(name, content) {
      // TXT content in quotes, as the API asks for (unquoted content is accepted with a warning).
      const quoted = `"${content}"`;
      let records = await txtRecords(name);
      if (records.length === 0) {
        await call("POST", "/dns_records", { type: "TXT", name, content: quoted, ttl: ID_RECORD_TTL, comment: "MTA-STS id (hosted)" });
        // Another sync of the same row (its request and the sweep) may have created one at the same time:
        // two v=STSv1 records are no policy for senders (RFC 8461 §3.1), so one is kept, the rest go.
        records = await txtRecords(name);
      }
      const [keep, ...extra] = records;
      if (keep && keep.content !== quoted) await call("PATCH", `/dns_records/${encodeURIComponent(keep.id)}`, { content: quoted, ttl: ID_RECORD_TTL });
      for (const r of extra) await call("DELETE", `/dns_records/${encodeURIComponent(r.id)}`);
    },
    async deleteTxt(name) {
      for (const r of await txtRecords(name)) await call("DELETE", `/dns_records/${encodeURIComponent(r.id)}`);
    },
  };
}
