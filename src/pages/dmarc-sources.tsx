/** @jsxImportSource hono/jsx */
// Every DMARC source address of one domain over a period, filtered by address or CIDR prefix and by
// DMARC result, paginated: the verb GET /domains/{id}/dmarc/sources calls (docs/decisions.md D72).
// The new-sender alert links here with its address.
import { Hono } from "hono";
import type { FC } from "hono/jsx";
import type { AppEnv } from "../context";
import { ApiError, validationFailed } from "../lib/errors";
import type { PaginationQuery } from "../lib/pagination";
import { listSources } from "../services/dmarc/sources";
import { DaysSelect, fieldMessages, pageQuery, plural } from "./domain-format";
import { frameOf } from "./frame";
import { signedInOrRedirect } from "./guard";
import { type Frame, Layout } from "./layout";
import { idParam, windowDays } from "./params";

const PER_PAGE = 50;
type Sources = Awaited<ReturnType<typeof listSources>>;
interface Filters {
  days: number;
  ip: string | undefined;
  result: "pass" | "fail" | undefined;
}

function filtersOf(q: Record<string, string | undefined>): Filters {
  const ip = q.ip?.trim() || undefined;
  if (ip !== undefined && ip.length > 64) throw validationFailed({ ip: ["at most 64 characters"] }, "That address is not valid.");
  const result = q.result || undefined;
  if (result !== undefined && result !== "pass" && result !== "fail") throw validationFailed({ result: ["pass or fail"] }, "That result filter is not valid.");
  return { days: windowDays(q.days), ip, result };
}

const hrefOf = (base: string, f: Filters, q: PaginationQuery, page: number) => {
  const p = new URLSearchParams({ days: String(f.days) });
  if (q.per_page !== PER_PAGE) p.set("per_page", String(q.per_page));
  if (f.ip) p.set("ip", f.ip);
  if (f.result) p.set("result", f.result);
  if (page > 1) p.set("page", String(page));
  return `${base}?${p}`;
};

/** The columns and cells of one sending source, the same on the DMARC summary and on this page. */
export interface SourceFigures {
  ip: string;
  ptr?: string | null;
  sender?: string | null;
  messages: number;
  dmarc: { pass: number; fail: number };
  spf: { aligned: number };
  dkim: { aligned: number };
}

export const SourceHeads: FC = () => (
  <>
    <th scope="col">IP</th>
    <th scope="col">Sender</th>
    <th scope="col">Messages</th>
    <th scope="col">DMARC pass</th>
    <th scope="col">DMARC fail</th>
    <th scope="col">SPF aligned</th>
    <th scope="col">DKIM aligned</th>
  </>
);

export const SourceCells: FC<{ x: SourceFigures }> = ({ x }) => (
  <>
    <td class="mono" data-label="IP">
      {x.ip}
      {x.ptr && <div class="small muted">{x.ptr}</div>}
    </td>
    <td data-label="Sender">{x.sender ?? <span class="muted">unknown</span>}</td>
    <td data-label="Messages">{x.messages}</td>
    <td data-label="DMARC pass">{x.dmarc.pass}</td>
    <td data-label="DMARC fail">{x.dmarc.fail}</td>
    <td data-label="SPF aligned">{x.spf.aligned}</td>
    <td data-label="DKIM aligned">{x.dkim.aligned}</td>
  </>
);

const SourcesPage: FC<{ frame: Frame; domainId: number; f: Filters; q: PaginationQuery; s: Sources }> = ({ frame, domainId, f, q, s }) => {
  const base = `/domains/${domainId}/dmarc/sources`;
  const last = Math.max(1, Math.ceil(s.total / q.per_page));
  return (
    <Layout title="DMARC sources" frame={frame} active="/domains">
      <p class="small">
        <a href={`/domains/${domainId}/dmarc`}>Back to DMARC</a>
      </p>
      <h1>{f.ip ? `DMARC sources matching ${f.ip}` : "DMARC sources"}</h1>
      <form method="get" action={base} class="filters">
        <DaysSelect id="sources-days" days={f.days} />
        <div>
          <label for="sources-ip">Address or prefix</label>
          <input id="sources-ip" name="ip" type="text" value={f.ip ?? ""} placeholder="192.0.2.0/24" />
        </div>
        <div>
          <label for="sources-result">DMARC result</label>
          <select id="sources-result" name="result">
            <option value="" selected={f.result === undefined}>
              Any
            </option>
            <option value="fail" selected={f.result === "fail"}>
              Failed
            </option>
            <option value="pass" selected={f.result === "pass"}>
              Passed
            </option>
          </select>
        </div>
        <div>
          <button type="submit" class="secondary">
            Show
          </button>
        </div>
      </form>
      <section class="panel" aria-labelledby="sources-h">
        <h2 id="sources-h">{`${plural(s.total, "source")}, ${s.window.from} to ${s.window.to}`}</h2>
        {s.items.length === 0 ? (
          <p class="muted">No complete report in this period has mail from {f.ip ? "this address" : "any source"}. Try a longer period.</p>
        ) : (
          <div class="table-wrap">
            <table class="stack">
              <thead>
                <tr>
                  <SourceHeads />
                  <th scope="col">Seen</th>
                </tr>
              </thead>
              <tbody>
                {s.items.map((x) => (
                  <tr>
                    <SourceCells x={x} />
                    <td class="small" data-label="Seen">
                      {x.first_day === x.last_day ? x.first_day : `${x.first_day} to ${x.last_day}`}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
        {last > 1 && (
          <nav class="pager" aria-label="Pages">
            {q.page > 1 ? <a href={hrefOf(base, f, q, q.page - 1)}>Previous</a> : <span class="muted">Previous</span>}
            <span>{`Page ${q.page} of ${last}`}</span>
            {q.page < last ? <a href={hrefOf(base, f, q, q.page + 1)}>Next</a> : <span class="muted">Next</span>}
          </nav>
        )}
      </section>
    </Layout>
  );
};

export function dmarcSourcePages() {
  const r = new Hono<AppEnv>();
  r.get("/domains/:id/dmarc/sources", async (c) => {
    const s = signedInOrRedirect(c);
    if (s instanceof Response) return s;
    const id = idParam(c.req.param("id"));
    const f = filtersOf(c.req.query());
    const q = pageQuery(c.req.query(), PER_PAGE);
    const sources = await listSources(c.get("services"), s.ctx, id, { ...q, days: f.days, ip: f.ip, result: f.result }).catch((e: unknown) => {
      // The verb names the field; the page says what was wrong with it.
      if (e instanceof ApiError && e.code === "validation_failed")
        throw validationFailed(e.errors ?? {}, `Those filters are not valid: ${fieldMessages(e).join("; ")}.`);
      throw e;
    });
    return c.html(<SourcesPage frame={await frameOf(c)} domainId={id} f={f} q={q} s={sources} />);
  });
  return r;
}
