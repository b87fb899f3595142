// MTA-STS check: _mta-sts TXT, the HTTPS policy file and MX coverage (RFC 8461). I/O via Resolver and HttpFetch.
import type { Resolver } from "../dns/types";
import type { Finding, HttpFetch } from "../types";
import { fetchTextCapped } from "../net/http";
import { resolveAndCheckTarget } from "../net/target";
import { isStsCandidate, mxMatches, parseStsPolicy, parseStsRecord, type StsPolicy } from "./policy";

/** A policy is a few hundred bytes; 64 KB bounds what a sender (and we) will read. */
const POLICY_MAX_BYTES = 64 * 1024;

export interface MtaStsOptions {
  fetch: HttpFetch;
  /** Live MX host names (from the MX check); null = MX unknown (skip coverage); omitted = look them up.
   *  A promise lets the MX check run concurrently; it is awaited only for the coverage step. */
  mxHosts?: string[] | null | Promise<string[] | null>;
  timeoutMs?: number;
  /** Local development only: fetch policies from private addresses too (WEBHOOK_ALLOW_PRIVATE). */
  allowPrivate?: boolean;
}

export interface MtaStsPolicyState {
  status: "valid" | "invalid" | "temperror" | "not-fetched";
  /**
   * Why there is no valid policy, when there is none: the policy host does not exist (NXDOMAIN or no
   * address), resolves to a private address (never fetched), cannot be reached, answers an HTTP error,
   * or serves an invalid policy. Null when valid or not fetched.
   */
  failure: "no_policy_host" | "private_address" | "unreachable" | "http_error" | "invalid_policy" | null;
  url: string;
  text: string | null;
  parsed: StsPolicy | null;
}

export interface MtaStsResult {
  status: "present" | "missing" | "invalid" | "temperror";
  host: string;
  record: string | null;
  id: string | null;
  policy: MtaStsPolicyState;
  coverage: { host: string; covered: boolean }[];
  findings: Finding[];
}

const f = (rule: string, severity: Finding["severity"], description: string, fix: string | null = null): Finding => ({
  rule,
  severity,
  description,
  fix,
});

export async function checkMtaSts(domain: string, resolver: Resolver, opts: MtaStsOptions): Promise<MtaStsResult> {
  const host = `_mta-sts.${domain}`;
  const url = `https://mta-sts.${domain}/.well-known/mta-sts.txt`;
  const out: MtaStsResult = {
    status: "missing",
    host,
    record: null,
    id: null,
    policy: { status: "not-fetched", failure: null, url, text: null, parsed: null },
    coverage: [],
    findings: [],
  };
  // MX hosts are needed only for coverage: start (or wait for) them alongside the TXT lookup and policy fetch.
  const mxPromise = liveMx(domain, resolver, opts.mxHosts).catch(() => null);
  const txt = await resolver.query(host, "TXT");
  if (txt.kind === "temperror") return { ...out, status: "temperror" };
  const candidates = txt.kind === "records" ? txt.records.filter(isStsCandidate) : [];
  if (candidates.length === 0) {
    out.findings.push(f("mta_sts.missing", "Low", "No MTA-STS record: sending servers may deliver over unauthenticated or plaintext SMTP."));
    return out;
  }
  // RFC 8461 §3.1: if the number of v=STSv1 records is not one, there is no policy.
  if (candidates.length > 1) {
    out.findings.push(
      f(
        "mta_sts.multiple-records",
        "High",
        `${candidates.length} v=STSv1 records at ${host}: senders treat the domain as having no policy.`,
        "Delete all but one v=STSv1 record.",
      ),
    );
    return { ...out, status: "invalid" };
  }
  const record = candidates[0] ?? "";
  out.record = record;
  const rec = parseStsRecord(record);
  if (!rec.ok) {
    out.findings.push(f("mta_sts.invalid-record", "High", `MTA-STS record is invalid: ${rec.error}.`));
    return { ...out, status: "invalid" };
  }
  out.id = rec.value.id;
  // The policy host is resolved through the service's own DNS first (RFC 8461 §3.3), so a missing host,
  // a DNS failure and a private address are told apart, and nothing is fetched from an internal address.
  if (await policyHostUsable(`mta-sts.${domain}`, url, resolver, opts, out)) await fetchPolicy(url, opts, out);
  if (out.policy.status === "temperror") return { ...out, status: "temperror" };
  if (out.policy.status !== "valid" || out.policy.parsed === null) return { ...out, status: "invalid" };
  out.status = "present";
  policyFindings(out.policy.parsed, out.findings);
  const mxHosts = await mxPromise;
  if (mxHosts !== null) coverage(out.policy.parsed, mxHosts, out);
  return out;
}

async function liveMx(domain: string, resolver: Resolver, given: MtaStsOptions["mxHosts"]): Promise<string[] | null> {
  if (given !== undefined) return await given;
  const r = await resolver.query(domain, "MX");
  if (r.kind === "temperror") return null;
  return r.kind === "records" ? r.records.map((m) => m.exchange).filter((h) => h !== "") : [];
}

async function policyHostUsable(host: string, url: string, resolver: Resolver, opts: MtaStsOptions, out: MtaStsResult): Promise<boolean> {
  const checked = await resolveAndCheckTarget(url, resolver, { allowInsecure: false, allowPrivate: opts.allowPrivate === true });
  if (checked.ok) return true;
  const e = checked.error;
  if (e.code === "dns_temperror") {
    out.policy.status = "temperror";
    out.findings.push(f("mta_sts.policy-unreachable", "Info", `The policy host ${host} could not be resolved (${e.message}); status unknown.`));
  } else if (e.code === "unresolvable") {
    out.policy.status = "invalid";
    out.policy.failure = "no_policy_host";
    out.findings.push(
      f(
        "mta_sts.no-policy-host",
        "High",
        `${host} does not exist (no A or AAAA record): senders cannot fetch the policy, so there is none (RFC 8461 §3.3).`,
        `Publish ${host} (A/AAAA or CNAME) serving ${url} over HTTPS.`,
      ),
    );
  } else {
    out.policy.status = "invalid";
    out.policy.failure = "private_address";
    out.findings.push(
      f(
        "mta_sts.policy-host-private",
        "High",
        `${host} resolves to a non-public address (${e.message}); senders on the Internet cannot fetch the policy.`,
        `Point ${host} at a public HTTPS server.`,
      ),
    );
  }
  return false;
}

async function fetchPolicy(url: string, opts: MtaStsOptions, out: MtaStsResult): Promise<void> {
  const res = await fetchTextCapped(opts.fetch, url, { timeoutMs: opts.timeoutMs ?? 10_000, maxBytes: POLICY_MAX_BYTES });
  const fail = (
    status: MtaStsPolicyState["status"],
    finding: Finding,
    failure: MtaStsPolicyState["failure"] = status === "temperror" ? null : "http_error",
  ) => {
    out.policy.status = status;
    out.policy.failure = failure;
    out.findings.push(finding);
  };
  // Network, TLS (including an invalid certificate) and timeouts are indistinguishable here: unknown, not missing.
  if (!res.ok)
    return fail("temperror", f("mta_sts.policy-unreachable", "Info", `Policy could not be fetched from ${url} (${res.error}); status unknown.`), "unreachable");
  const r = res.value;
  if (r.status >= 300 && r.status < 400) {
    return fail(
      "invalid",
      f(
        "mta_sts.policy-redirect",
        "High",
        `Policy URL redirects (HTTP ${r.status}); senders MUST NOT follow redirects (RFC 8461 §3.3).`,
        `Serve the policy directly at ${url}.`,
      ),
    );
  }
  if (r.status >= 500)
    return fail("temperror", f("mta_sts.policy-unreachable", "Info", `Policy server returned HTTP ${r.status}; status unknown.`), "http_error");
  if (r.status !== 200) {
    return fail(
      "invalid",
      f("mta_sts.policy-http-status", "High", `Policy URL returned HTTP ${r.status}; senders find no policy.`, `Publish the policy at ${url}.`),
    );
  }
  if (r.tooLarge) return fail("invalid", f("mta_sts.policy-too-large", "High", "Policy file is over 64 KB."), "invalid_policy");
  out.policy.text = r.body;
  const ct = (r.contentType ?? "").split(";")[0]?.trim().toLowerCase();
  if (ct !== "text/plain") {
    out.findings.push(
      f(
        "mta_sts.policy-content-type",
        "Medium",
        `Policy is served as "${ct || "no content type"}"; RFC 8461 §3.2 requires text/plain.`,
        "Serve mta-sts.txt with Content-Type: text/plain.",
      ),
    );
  }
  const parsed = parseStsPolicy(r.body);
  if (!parsed.ok) {
    return fail("invalid", f("mta_sts.policy-invalid", "High", `Policy file is invalid (RFC 8461 §3.2): ${parsed.error.join("; ")}.`), "invalid_policy");
  }
  out.policy.status = "valid";
  out.policy.parsed = parsed.value;
}

function policyFindings(p: StsPolicy, findings: Finding[]): void {
  if (p.mode === "testing") {
    findings.push(
      f(
        "mta_sts.testing-mode",
        "Low",
        "MTA-STS is in testing mode: failures are reported (TLS-RPT) but mail is still delivered without TLS.",
        "After clean TLS-RPT reports, switch the policy to mode: enforce and change the TXT id.",
      ),
    );
  } else if (p.mode === "none") {
    findings.push(f("mta_sts.mode-none", "Info", "MTA-STS mode is none: the policy is being withdrawn and gives no protection."));
  }
  // A short max_age makes senders re-fetch often and lets a downgrade attacker outwait the cache.
  if (p.mode !== "none" && p.maxAge < 86_400) {
    findings.push(
      f("mta_sts.short-max-age", "Medium", `max_age is ${p.maxAge}s (under a day); recommended is weeks (604800 or more).`, "Set max_age: 604800 or longer."),
    );
  } else if (p.mode !== "none" && p.maxAge < 604_800) {
    findings.push(
      f("mta_sts.short-max-age", "Low", `max_age is ${p.maxAge}s (under a week); recommended is 604800 or more.`, "Set max_age: 604800 or longer."),
    );
  }
}

function coverage(p: StsPolicy, mxHosts: string[], out: MtaStsResult): void {
  for (const host of [...new Set(mxHosts.map((h) => h.toLowerCase()))]) {
    const covered = p.mx.some((pat) => mxMatches(pat, host));
    out.coverage.push({ host, covered });
    if (covered || p.mode === "none") continue;
    // RFC 8461 §4.1/§5: under enforce, compliant senders will not deliver to an MX no pattern matches.
    out.findings.push(
      p.mode === "enforce"
        ? f(
            "mta_sts.mx-not-covered",
            "High",
            `MX ${host} matches no policy mx pattern: senders enforcing MTA-STS will not deliver to it.`,
            `Add "mx: ${host}" to the policy and change the TXT id.`,
          )
        : f(
            "mta_sts.mx-not-covered",
            "Low",
            `MX ${host} matches no policy mx pattern; it would fail once the mode is enforce.`,
            `Add "mx: ${host}" to the policy and change the TXT id.`,
          ),
    );
  }
}
