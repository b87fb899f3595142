// GET /domains/{domain}/mta-sts-hosting: the hosted policy, the two records the customer publishes with
// what DNS shows for them now (read over DoH), the custom hostname and its certificate, whether TLS reports
// allow enforce, and while retiring when the records may go (RFC 8461 §8.3). Does I/O (D1, DNS, DO).
import { renderPolicy, stsRecord, uncoveredMx } from "../../core/mta-sts/hosting";
import { isStsCandidate, parseStsRecord } from "../../core/mta-sts/policy";
import type { Lookup } from "../../core/dns/types";
import { domainNotVerified } from "./errors";
import { iso } from "../../lib/time";
import type { Services } from "../../services";
import type { ServiceContext } from "../context";
import { getDomainInTeam } from "../domains/get-domain";
import { DEFAULT_TLS_WINDOW_DAYS, enforceEvidence } from "./evidence";
import { detailsOf, type HostedRow, hostedRowOf, idHost, idRecordName, mxOf, policyHost, servedPolicy } from "./rows";
import { apiConfigured, hostingSettings } from "./settings";
import { syncExternal } from "./sync";

const REVALIDATE_EVERY_MS = 5_000;
const recentlyChecked = (row: HostedRow, now: Date) => row.hostnameCheckedAt !== null && now.getTime() - row.hostnameCheckedAt.getTime() < REVALIDATE_EVERY_MS;

export type LiveState = "ok" | "missing" | "different" | "stale" | "unknown";

export interface RecordToPublish {
  name: string;
  type: "CNAME" | "TXT";
  value: string;
  purpose: string;
  live: { state: LiveState; found: string[] };
}

const firstId = (records: string[]): string | null => {
  const sts = records.filter(isStsCandidate);
  if (sts.length !== 1) return null;
  const parsed = parseStsRecord(sts[0] ?? "");
  return parsed.ok ? parsed.value.id : null;
};

function cnameState(answer: Lookup<string>, want: string): RecordToPublish["live"] {
  if (answer.kind === "temperror") return { state: "unknown", found: [] };
  if (answer.kind !== "records") return { state: "missing", found: [] };
  return { state: answer.records.includes(want) ? "ok" : "different", found: answer.records };
}

/** The `_mta-sts` record as senders resolve it (RFC 8461 §3.1), through a CNAME or not. */
function idState(row: HostedRow, answer: Lookup<string>, viaName: string | null): RecordToPublish["live"] {
  if (answer.kind === "temperror") return { state: "unknown", found: [] };
  const found = answer.kind === "records" ? answer.records : [];
  if (row.idDelivery === "cname") {
    if (viaName === null || !answer.chain.includes(viaName))
      return { state: found.length > 0 || answer.chain.length > 0 ? "different" : "missing", found: [...answer.chain, ...found] };
    return { state: firstId(found) === row.policyId ? "ok" : "stale", found: [...answer.chain, ...found] };
  }
  if (found.filter(isStsCandidate).length === 0) return { state: "missing", found };
  return { state: firstId(found) === row.policyId ? "ok" : "stale", found };
}

export async function getHostingStatus(svc: Services, ctx: ServiceContext, domainId: number, days = DEFAULT_TLS_WINDOW_DAYS) {
  const domain = await getDomainInTeam(svc, ctx.teamId, domainId);
  let row = await hostedRowOf(svc, ctx.teamId, domainId);
  const settings = hostingSettings(svc);
  const resolver = svc.createResolver();
  const name = domain.name;
  const [mx, policyCname, idTxt, evidence] = await Promise.all([
    resolver.query(name, "MX"),
    resolver.query(policyHost(name), "CNAME"),
    resolver.query(idHost(name), "TXT"),
    enforceEvidence(svc, ctx, domainId, days),
  ]);
  const mxHosts = mx.kind === "records" ? [...new Set(mx.records.map((r) => r.exchange).filter((h) => h !== ""))] : [];
  const patterns = row ? mxOf(row) : [];
  const uncovered = new Set(uncoveredMx(patterns, mxHosts));
  const base = {
    domain: { id: domain.id, name, verified: domain.verified },
    managed: apiConfigured(settings),
    mx_hosts: mx.kind === "temperror" ? null : mxHosts.map((host) => ({ host, covered: row ? !uncovered.has(host) : false })),
    enforce: {
      window_days: evidence.days,
      reports: evidence.reports,
      successful: evidence.successful,
      failed: evidence.failed,
      allowed: evidence.verdict.allowed,
      reason: evidence.verdict.reason,
    },
  };
  if (!row) {
    const blocked = domain.verified ? null : domainNotVerified().message;
    return { ...base, enabled: false as const, blocked, hosting: null, records: [] as RecordToPublish[] };
  }

  // The customer's CNAME is live but the certificate still waits: ask Cloudflare to validate again (its
  // HTTP validation needs that once the name points here), at most every few seconds per domain.
  const policyLive = settings.cnameTarget !== null && cnameState(policyCname, settings.cnameTarget).state === "ok";
  if (policyLive && apiConfigured(settings) && row.certificateStatus !== "active" && !recentlyChecked(row, svc.clock.now())) {
    row = await syncExternal(svc, row, "revalidate");
  }
  const served = servedPolicy(row);
  const records: RecordToPublish[] = [];
  if (settings.cnameTarget) {
    records.push({
      name: policyHost(name),
      type: "CNAME",
      value: settings.cnameTarget,
      purpose: "Points the policy host at this service, which answers HTTPS for it with its own certificate (publish once).",
      live: cnameState(policyCname, settings.cnameTarget),
    });
  }
  const via = settings.idZone ? idRecordName(name, settings.idZone) : null;
  records.push(
    row.idDelivery === "cname" && via
      ? {
          name: idHost(name),
          type: "CNAME",
          value: via,
          purpose: "Lets this service change the policy id for you on every policy change (publish once, never edit).",
          live: idState(row, idTxt, via),
        }
      : {
          name: idHost(name),
          type: "TXT",
          value: stsRecord(row.policyId),
          purpose: "The policy id: change this record to the new value after every policy change.",
          live: idState(row, idTxt, null),
        },
  );
  const details = detailsOf(row);
  const now = svc.clock.now();
  return {
    ...base,
    enabled: true as const,
    blocked: null,
    records,
    hosting: {
      state: row.state,
      mode: served.mode,
      mx: [...served.mx],
      max_age: served.maxAge,
      policy_id: row.policyId,
      policy_changed_at: iso(row.policyChangedAt),
      policy_url: `https://${policyHost(name)}/.well-known/mta-sts.txt`,
      policy_text: renderPolicy(served),
      id_delivery: row.idDelivery,
      published_id: row.publishedId,
      published_checked_at: iso(row.publishedCheckedAt),
      hostname: {
        name: policyHost(name),
        id: row.customHostnameId,
        status: row.hostnameStatus,
        certificate_status: row.certificateStatus,
        validation: details.validation,
        errors: details.errors,
        api_error: details.apiError,
        checked_at: iso(row.hostnameCheckedAt),
      },
      retiring:
        row.state === "retiring"
          ? {
              since: iso(row.retiringSince),
              safe_to_remove_at: iso(row.safeToRemoveAt),
              safe_now: row.safeToRemoveAt !== null && row.safeToRemoveAt.getTime() <= now.getTime(),
            }
          : null,
    },
  };
}

export type HostingStatus = Awaited<ReturnType<typeof getHostingStatus>>;
