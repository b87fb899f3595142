// Realistic DMARC aggregate reports for the scale benchmarks (issue 19): many reporters, a pool of
// sending addresses reused across days, one UTC day per report over the last year, 1 in 6 records
// failing DKIM. Every record of a report has its own source address, so each record is exactly one
// stored row (rows are aggregated per report, day, source and outcome): rows = records sent.
import { createHmac } from "node:crypto";
import { gzipSync } from "fflate";

export const INGEST_SECRET = "bench-ingest-secret";
const DAY_S = 86_400;
const REPORTERS = ["google.com", "yahoo.com", "outlook.com", "comcast.net", "mail.ru", "yandex.ru", "gmx.net", "web.de", "orange.fr", "zoho.com"];
const enc = new TextEncoder();

/** The i-th reporter: the ten big ones, then smaller ones, each with its own address (org_name + email). */
export function reporter(i) {
  const org = i < REPORTERS.length ? REPORTERS[i] : `reporter-${i}.example`;
  return { org, email: `dmarc-reports@${org}` };
}

/** Source address k of a pool of `pool` addresses; the same k is the same sender on every day. */
function sourceIp(k) {
  return `10.${(k >> 16) & 255}.${(k >> 8) & 255}.${k & 255}`;
}

/**
 * Report n of a series for `domain`: reporter n % reporters, covering the day `daysAgo` (default
 * `1 + (n % 360)`) days before today, `records` records whose sources are a window of the pool that
 * moves with n (so sources repeat across reports and days, as a sender's mail servers do).
 */
export function seriesReport(domain, n, records, { reporters = 40, pool = 50_000, tag = "s", daysAgo = 1 + (n % 360) } = {}) {
  const today = Math.floor(Date.now() / 1000 / DAY_S) * DAY_S;
  const begin = today - daysAgo * DAY_S;
  const r = reporter(n % reporters);
  const start = (n * 7919) % pool;
  const parts = [
    `<?xml version="1.0" encoding="UTF-8"?>\n<feedback><report_metadata><org_name>${r.org}</org_name><email>${r.email}</email><report_id>${tag}-${n}</report_id><date_range><begin>${begin}</begin><end>${begin + DAY_S - 1}</end></date_range></report_metadata><policy_published><domain>${domain}</domain><adkim>r</adkim><aspf>r</aspf><p>none</p><sp>none</sp><pct>100</pct></policy_published>\n`,
  ];
  let messages = 0;
  for (let i = 0; i < records; i++) {
    const k = (start + i) % pool;
    const fail = k % 6 === 0;
    const count = 1 + ((k * 31 + n) % 40);
    messages += count;
    parts.push(
      `<record><row><source_ip>${sourceIp(k)}</source_ip><count>${count}</count><policy_evaluated><disposition>none</disposition><dkim>${fail ? "fail" : "pass"}</dkim><spf>pass</spf></policy_evaluated></row><identifiers><header_from>${domain}</header_from></identifiers><auth_results><dkim><domain>${domain}</domain><selector>s${k % 3}</selector><result>${fail ? "fail" : "pass"}</result></dkim><spf><domain>${domain}</domain><scope>mfrom</scope><result>pass</result></spf></auth_results></record>\n`,
    );
  }
  parts.push("</feedback>\n");
  return { xml: parts.join(""), messages, rows: records };
}

/** The signed JSON body of POST /api/webhooks/dmarc for one report to one report address. */
export function signedBody(recipient, xml) {
  const body = JSON.stringify({ recipient, filename: "r.xml.gz", content_base64: Buffer.from(gzipSync(enc.encode(xml), { level: 6 })).toString("base64") });
  return { body, signature: `sha256=${createHmac("sha256", INGEST_SECRET).update(body).digest("hex")}` };
}

/**
 * POST one prepared body; a new report is 202, anything else is thrown with its text. A socket the
 * server closed while idle (keep-alive) is retried once; that retry may find the report already in
 * (200 duplicate), which counts it once all the same.
 */
export async function postReport(url, { body, signature }) {
  const send = () => fetch(`${url}/api/webhooks/dmarc`, { method: "POST", headers: { "content-type": "application/json", "x-signature": signature }, body });
  let res;
  let retried = false;
  try {
    res = await send();
  } catch (e) {
    if (e?.cause?.code !== "UND_ERR_SOCKET") throw e;
    retried = true;
    res = await send();
  }
  const text = await res.text();
  if (res.status !== 202 && !(retried && res.status === 200)) throw new Error(`ingest: HTTP ${res.status} ${text.slice(0, 300)}`);
}

/** Runs `jobs` (functions returning promises) with at most `width` in flight. */
export async function pool(jobs, width) {
  let next = 0;
  const worker = async () => {
    while (next < jobs.length) await jobs[next++]();
  };
  await Promise.all(Array.from({ length: Math.min(width, jobs.length) }, worker));
}

export const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
