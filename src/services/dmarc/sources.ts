// GET /domains/{domain}/dmarc/sources: every source IP of a window with its counts, identified sender
// and reverse DNS, paginated and filtered (docs/decisions.md D72). Counted exactly as the analytics
// summary counts, so the pages add up to its totals. Does I/O (the domain's report object, D1, DNS).
import type { SourceRow } from "../../durable-objects/domain-store/dmarc-read";
import { inCidr, type Ip, parseIp } from "../../core/spf/ip";
import { type FieldErrors, validationFailed } from "../../lib/errors";
import { type PaginationQuery, pageOffset } from "../../lib/pagination";
import type { Services } from "../../services";
import type { ServiceContext } from "../context";
import { getDomainInTeam } from "../domains/get-domain";
import { domainStore } from "../domains/domain-store";
import { identifySources } from "./senders";
import { type DmarcWindow, resolveWindow, type WindowQuery } from "./window";

/** Distinct sources a sender or address filter may scan in one request (docs/limits.md). */
export const MAX_FILTERED_SOURCES = 20_000;

export interface SourcesQuery extends WindowQuery, PaginationQuery {
  sender?: string;
  result?: "pass" | "fail";
  ip?: string;
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

/** Grouped per source in the window; `result` keeps only passing or failing messages. */
function sourceRows(svc: Services, domain: { id: number }, w: DmarcWindow, result: SourcesQuery["result"], page: { limit: number; offset: number } | null) {
  return domainStore(svc, domain).dmarcSources(w.from, w.to, result, page?.limit ?? MAX_FILTERED_SOURCES + 1, page?.offset ?? 0);
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
      sourceRows(svc, domain, w, q.result, { limit: q.per_page, offset: pageOffset(q) }),
      domainStore(svc, domain).dmarcSourceCount(w.from, w.to, q.result),
    ]);
    rows = page;
    total = count;
    ids = await identifySources(
      svc,
      rows.map((r) => r.ip),
    );
  } else {
    const all = await sourceRows(svc, domain, w, q.result, null);
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
