// GET /domains/{domain}/dmarc/sources: every source IP of a window with its counts, identified sender
// and reverse DNS, paginated and filtered (docs/decisions.md D72). Counted exactly as the analytics
// summary counts, so the pages add up to its totals. Does I/O (D1, DNS).
import { sql } from "drizzle-orm";
import { inCidr, type Ip, parseIp } from "../../core/spf/ip";
import { type FieldErrors, validationFailed } from "../../lib/errors";
import { type PaginationQuery, pageOffset } from "../../lib/pagination";
import type { Services } from "../../services";
import type { ServiceContext } from "../context";
import { getDomainInTeam } from "../domains/get-domain";
import { identifySources } from "./senders";
import { type DmarcWindow, resolveWindow, type WindowQuery } from "./window";

/** Distinct sources a sender or address filter may scan in one request (docs/limits.md). */
export const MAX_FILTERED_SOURCES = 20_000;

export interface SourcesQuery extends WindowQuery, PaginationQuery {
  sender?: string;
  result?: "pass" | "fail";
  ip?: string;
}

interface SourceRow {
  ip: string;
  messages: number;
  pass: number;
  spf_pass: number;
  dkim_pass: number;
  spf_aligned: number;
  dkim_aligned: number;
  first_day: string;
  last_day: string;
}

interface Network {
  net: Ip;
  prefix: number;
}

const n = (x: number | null | undefined) => Number(x ?? 0);

/** An address, or an address with a prefix length (CIDR); 422 otherwise. */
function parseNetwork(text: string, errors: FieldErrors): Network | null {
  const [addr = "", len, extra] = text.trim().split("/");
  const net = parseIp(addr);
  const max = net?.version === 6 ? 128 : 32;
  const prefix = len === undefined ? max : /^\d{1,3}$/.test(len) ? Number(len) : Number.NaN;
  if (net === null || extra !== undefined || !(prefix >= 0 && prefix <= max)) {
    errors.ip = [`"${text}" is not an IP address or CIDR prefix (192.0.2.0/24, 2001:db8::/32)`];
    return null;
  }
  return { net, prefix };
}

/** Grouped per source over complete reports in the window; `result` keeps only passing or failing messages. */
function sourceRows(svc: Services, domainId: number, w: DmarcWindow, result: SourcesQuery["result"], page: { limit: number; offset: number } | null) {
  const pass = sql`(r.dkim_aligned = 1 OR r.spf_aligned = 1)`;
  const outcome = result === "pass" ? sql` AND ${pass}` : result === "fail" ? sql` AND NOT ${pass}` : sql``;
  const paging = page ? sql` LIMIT ${page.limit} OFFSET ${page.offset}` : sql` LIMIT ${MAX_FILTERED_SOURCES + 1}`;
  return svc.db.all<SourceRow>(sql`
    SELECT r.source_ip AS ip, SUM(r.messages) AS messages, SUM(CASE WHEN ${pass} THEN r.messages ELSE 0 END) AS pass,
      SUM(CASE WHEN r.spf_result = 'pass' THEN r.messages ELSE 0 END) AS spf_pass,
      SUM(CASE WHEN r.dkim_result = 'pass' THEN r.messages ELSE 0 END) AS dkim_pass,
      SUM(r.spf_aligned * r.messages) AS spf_aligned, SUM(r.dkim_aligned * r.messages) AS dkim_aligned,
      MIN(r.day) AS first_day, MAX(r.day) AS last_day
    FROM dmarc_rows r JOIN dmarc_reports p ON p.id = r.report_id AND p.status = 'complete'
    WHERE r.domain_id = ${domainId} AND r.day >= ${w.from} AND r.day <= ${w.to}${outcome}
    GROUP BY r.source_ip ORDER BY messages DESC, ip${paging}`);
}

function countSources(svc: Services, domainId: number, w: DmarcWindow, result: SourcesQuery["result"]) {
  const pass = sql`(r.dkim_aligned = 1 OR r.spf_aligned = 1)`;
  const outcome = result === "pass" ? sql` AND ${pass}` : result === "fail" ? sql` AND NOT ${pass}` : sql``;
  return svc.db.get<{ n: number }>(sql`
    SELECT COUNT(DISTINCT r.source_ip) AS n FROM dmarc_rows r JOIN dmarc_reports p ON p.id = r.report_id AND p.status = 'complete'
    WHERE r.domain_id = ${domainId} AND r.day >= ${w.from} AND r.day <= ${w.to}${outcome}`);
}

export async function listSources(svc: Services, ctx: ServiceContext, domainId: number, q: SourcesQuery) {
  const domain = await getDomainInTeam(svc, ctx.teamId, domainId);
  const errors: FieldErrors = {};
  const network = q.ip === undefined ? null : parseNetwork(q.ip, errors);
  const sender = q.sender?.trim();
  if (sender === "") errors.sender = ["must not be empty"];
  if (Object.keys(errors).length > 0) throw validationFailed(errors);
  const w = await resolveWindow(svc, domain.id, q);

  let rows: SourceRow[];
  let total: number;
  let ids: Awaited<ReturnType<typeof identifySources>>;
  if (network === null && sender === undefined) {
    // No filter that SQL cannot do: page in SQL, identify only this page's sources.
    const [page, count] = await Promise.all([
      sourceRows(svc, domain.id, w, q.result, { limit: q.per_page, offset: pageOffset(q) }),
      countSources(svc, domain.id, w, q.result),
    ]);
    rows = page;
    total = n(count?.n);
    ids = await identifySources(
      svc,
      rows.map((r) => r.ip),
    );
  } else {
    const all = await sourceRows(svc, domain.id, w, q.result, null);
    if (all.length > MAX_FILTERED_SOURCES) {
      throw validationFailed(
        { [sender !== undefined ? "sender" : "ip"]: [`the window has more than ${MAX_FILTERED_SOURCES} sources to filter; narrow it with days or from/to`] },
        "Too many sources to filter in one request.",
      );
    }
    const inNetwork = network ? all.filter((r) => matchesNetwork(r.ip, network)) : all;
    ids =
      sender !== undefined
        ? await identifySources(
            svc,
            inNetwork.map((r) => r.ip),
          )
        : new Map();
    const matching = sender !== undefined ? inNetwork.filter((r) => ids.get(r.ip)?.sender?.toLowerCase() === sender.toLowerCase()) : inNetwork;
    total = matching.length;
    rows = matching.slice(pageOffset(q), pageOffset(q) + q.per_page);
    if (sender === undefined)
      ids = await identifySources(
        svc,
        rows.map((r) => r.ip),
      );
  }

  const items = rows.map((s) => {
    const id = ids.get(s.ip) ?? null;
    const m = n(s.messages);
    return {
      ip: s.ip,
      ptr: id?.ptr ?? null,
      sender: id?.sender ?? null,
      identified_by: id?.via ?? null,
      messages: m,
      dmarc: { pass: n(s.pass), fail: m - n(s.pass) },
      spf: { pass: n(s.spf_pass), fail: m - n(s.spf_pass), aligned: n(s.spf_aligned) },
      dkim: { pass: n(s.dkim_pass), fail: m - n(s.dkim_pass), aligned: n(s.dkim_aligned) },
      first_day: s.first_day,
      last_day: s.last_day,
    };
  });
  return { items, total, window: { days: w.days, from: w.from, to: w.to } };
}

function matchesNetwork(ip: string, network: Network): boolean {
  const a = parseIp(ip);
  return a !== null && a.version === network.net.version && inCidr(a, network.net, network.prefix);
}
