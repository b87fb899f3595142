// Issue 31: the message audit (core auditMessage: SPF, DKIM, DMARC, ARC via validateArc, one-click,
// reverse DNS, BIMI, and the Gmail/Yahoo/Microsoft bulk-sender tables) against its peer, mailauth's
// authenticate() (SPF of MAIL FROM, DKIM, DMARC, ARC, BIMI), in the same process on the same input, in alternating
// rounds, with the medians and the ratio. Two messages at about 5 KB and 100 KB (bench/lib/mail-corpus.mjs):
// a newsletter sent directly (DKIM-signed, with one-click List-Unsubscribe), and its mailing-list copy
// (subject tag and footer added, so the author's body hash breaks, then ARC-sealed once by the list
// with mailauth's sealMessage, as test/node/message-audit-mailauth.test.ts builds it). DNS is answered
// from one in-memory zone for both sides; both get the same IP, HELO and MAIL FROM.
import { createRequire } from "node:module";
import { realisticMessage } from "./lib/mail-corpus.mjs";
import { duel } from "./lib/duel.mjs";

const dkim = await import("../src/core/dkim/index.ts");
const { auditMessage } = await import("../src/core/message-audit/index.ts");
const require = createRequire(import.meta.url);
const { authenticate } = require("mailauth");
const { sealMessage } = require("mailauth/lib/arc");

const AUTHOR = "news.example";
const LIST = "lists.example";
const RECEIVER = "mx.inbox.example";

/** A zone: name -> { TXT: [...], A: [...], PTR: [...] }. */
function buildZone(authorKey, listKey) {
  const zone = new Map();
  const add = (name, type, value) => {
    const entry = zone.get(name) ?? {};
    entry[type] = [...(entry[type] ?? []), value];
    zone.set(name, entry);
  };
  add(AUTHOR, "TXT", "v=spf1 ip4:192.0.2.0/24 -all");
  add(`_dmarc.${AUTHOR}`, "TXT", `v=DMARC1; p=reject; rua=mailto:dmarc@${AUTHOR}`);
  add(authorKey.dns.host, "TXT", authorKey.dns.value);
  add(`mail.${AUTHOR}`, "A", "192.0.2.10");
  add("10.2.0.192.in-addr.arpa", "PTR", `mail.${AUTHOR}`);
  add(LIST, "TXT", "v=spf1 ip4:203.0.113.0/24 -all");
  add(`_dmarc.${LIST}`, "TXT", "v=DMARC1; p=none");
  add(listKey.dns.host, "TXT", listKey.dns.value);
  add(`mail.${LIST}`, "A", "203.0.113.5");
  add("5.113.0.203.in-addr.arpa", "PTR", `mail.${LIST}`);
  return zone;
}

/** The project's Resolver port answering from the zone, with no network and no cache (each query costs a lookup). */
function memoryResolver(zone) {
  return {
    queriesSent: 0,
    async query(name, type) {
      this.queriesSent++;
      const entry = zone.get(name.toLowerCase().replace(/\.$/, ""));
      if (!entry) return { kind: "nxdomain", chain: [] };
      const records = entry[type];
      return records ? { kind: "records", records: [...records], ttl: 300, chain: [] } : { kind: "nodata", chain: [] };
    },
  };
}

/** mailauth's resolver contract (dns.resolve): TXT as arrays of strings; ENOTFOUND / ENODATA errors. */
function mailauthResolver(zone) {
  return async (name, type) => {
    const entry = zone.get(name.toLowerCase().replace(/\.$/, ""));
    if (!entry) throw Object.assign(new Error(`${name} not found`), { code: "ENOTFOUND" });
    const records = entry[type];
    if (!records) throw Object.assign(new Error(`${name} ${type} no data`), { code: "ENODATA" });
    return type === "TXT" ? records.map((t) => dkim.txtStrings(t)) : [...records];
  };
}

/** The newsletter as its sender's MTA sends it: one-click List-Unsubscribe (RFC 8058), DKIM-signed by the author. */
async function newsletter(size, key) {
  const base = realisticMessage(size, { domain: AUTHOR }).replace(
    "MIME-Version: 1.0\r\n",
    `MIME-Version: 1.0\r\nList-Unsubscribe: <https://${AUTHOR}/u/4711?t=bench>,\r\n <mailto:unsubscribe@${AUTHOR}?subject=4711>\r\n` +
      "List-Unsubscribe-Post: List-Unsubscribe=One-Click\r\nPrecedence: bulk\r\n",
  );
  const r = await dkim.signMessage(base, {
    domain: AUTHOR,
    selector: key.selector,
    privateKey: key.private_key_pem,
    algorithm: "rsa-sha256",
    headers: ["from", "to", "subject", "date", "message-id", "mime-version", "content-type", "list-unsubscribe", "list-unsubscribe-post", "from"],
  });
  if (!r.ok) throw new Error(r.error);
  return r.value;
}

/** The receiver's own trace field on top, as the message reaches the mailbox. */
const received = (helo, ip, msg) =>
  `Received: from ${helo} (${helo} [${ip}])\r\n\tby ${RECEIVER} with ESMTPS id 4711B2;\r\n\tSun, 01 Mar 2026 11:59:02 +0000\r\n${msg}`;

/** The list receives the newsletter, records its results, tags the subject, adds a footer and seals (RFC 8617 §5.1). */
async function listCopy(signed, listKey, zone) {
  const atList = await authenticate(signed, {
    ip: "192.0.2.10",
    helo: `mail.${AUTHOR}`,
    sender: `bounce@${AUTHOR}`,
    mta: `mx.${LIST}`,
    resolver: mailauthResolver(zone),
  });
  const ar = /Authentication-Results: ([\s\S]*?)\r\n(?=\S|$)/.exec(atList.headers)?.[1];
  if (!ar) throw new Error(`no Authentication-Results in ${atList.headers}`);
  const modified = `${signed.replace(/^Subject: /m, "Subject: [members] ")}-- \r\nYou are on the members list of ${LIST}.\r\nLeave: https://${LIST}/leave\r\n`;
  const seal = await sealMessage(modified, {
    signingDomain: LIST,
    selector: listKey.selector,
    privateKey: listKey.private_key_pem,
    authResults: ar,
    cv: "none",
  });
  return seal.toString() + modified;
}

/** mailauth answers false for a check it did not run. */
const statusOf = (r) => (r === false || r === undefined ? "-" : r.status.result);

/** The four verdicts both compute, side by side (DKIM: the author's signature; the ARC seal is not DKIM). */
function verdicts(ours, theirs) {
  const v = {
    spf: [ours.spf.result, statusOf(theirs.spf)],
    dkim: [ours.dkim.signatures[0]?.result ?? "none", theirs.dkim.results[0]?.status.result ?? "none"],
    dmarc: [ours.dmarc.result, statusOf(theirs.dmarc)],
    arc: [ours.arc.result, statusOf(theirs.arc)],
  };
  return Object.entries(v).map(([k, [a, b]]) => ({ check: k, ours: a, theirs: b, same: a === b }));
}

const pad = (s, n) => String(s).padEnd(n);
const num = (x, d = 3) => x.toFixed(d).padStart(10);

export default async function run() {
  const make = async (domain, selector) => {
    const r = await dkim.generateKeyPair({ domain, selector, algorithm: "rsa-2048" });
    if (!r.ok) throw new Error(r.error);
    return r.value;
  };
  const authorKey = await make(AUTHOR, "nl2026");
  const listKey = await make(LIST, "arc1");
  const zone = buildZone(authorKey, listKey);
  const peerResolver = mailauthResolver(zone);

  console.log("Message audit: this service (core auditMessage, the text the route passes) vs mailauth 7.1.0 authenticate (a Buffer)");
  console.log("same process, same messages, same IP/HELO/MAIL FROM, alternating rounds, median ms per message; DNS from memory for both");
  console.log("ours = the service's configuration (DKIM keys cached per isolate, docs/decisions.md D53); no-cache = a fresh key cache per message,");
  console.log("as mailauth works. Ours also does work mailauth's authenticate does not: SPF of the HELO identity as well, reverse DNS (PTR + A),");
  console.log("TLS and format checks, the one-click check, and the Gmail/Yahoo/Microsoft bulk-sender tables. Both do the DMARC tree walk,");
  console.log("validate the ARC chain and look up BIMI.");
  console.log(
    `${pad("message", 30)}${pad("size", 8)}${"ours ms".padStart(10)}${"no-cache".padStart(10)}${"mailauth".padStart(10)}${"  ratio".padStart(9)}${"no-cache".padStart(10)}  runs  verdicts ours/mailauth (spf, dkim, dmarc, arc)`,
  );
  const differences = [];
  const cases = [];
  for (const [sizeLabel, size] of [
    ["5 KB", 5 * 1024],
    ["100 KB", 100 * 1024],
  ]) {
    const signed = await newsletter(size, authorKey);
    cases.push({
      label: "newsletter, direct",
      sizeLabel,
      text: received(`mail.${AUTHOR}`, "192.0.2.10", signed),
      env: { ip: "192.0.2.10", helo: `mail.${AUTHOR}`, sender: `bounce@${AUTHOR}` },
    });
    cases.push({
      label: "list copy, footer + ARC seal",
      sizeLabel,
      text: received(`mail.${LIST}`, "203.0.113.5", await listCopy(signed, listKey, zone)),
      env: { ip: "203.0.113.5", helo: `mail.${LIST}`, sender: `bounce+members=news.example@${LIST}` },
    });
  }
  for (const c of cases) {
    const buf = Buffer.from(c.text);
    const input = { ip: c.env.ip, helo: c.env.helo, mail_from: c.env.sender };
    const peerOpts = { ...c.env, mta: RECEIVER, resolver: peerResolver };
    // One cache per message, as one isolate would hold; it holds keys only, never a result.
    const keyCache = new dkim.DkimKeyCache(256);
    const oursRun = (cache) => () =>
      auditMessage(dkim.toWire(c.text), input, { resolver: memoryResolver(zone), now: new Date(), ...(cache ? { keyCache: cache } : {}) });
    const peerRun = () => authenticate(buf, peerOpts);
    const ours = await oursRun(keyCache)();
    const theirs = await peerRun();
    if (ours.providers.length === 0) throw new Error("ours computed no bulk-sender tables");
    const v = verdicts(ours, theirs);
    for (const d of v.filter((x) => !x.same)) differences.push(`${c.label} ${c.sizeLabel}: ${d.check} ours=${d.ours} mailauth=${d.theirs}`);
    const m = await duel([oursRun(keyCache), oursRun(undefined), peerRun]);
    const [oursMs, fresh, theirsMs] = m.medians;
    console.log(
      `${pad(c.label, 30)}${pad(c.sizeLabel, 8)}${num(oursMs)}${num(fresh)}${num(theirsMs)}${`${(theirsMs / oursMs).toFixed(2)}x`.padStart(9)}${`${(theirsMs / fresh).toFixed(2)}x`.padStart(10)}${String(m.runs).padStart(6)}  ${v
        .map((x) => `${x.ours}/${x.theirs}${x.same ? "" : " (DIFFERS)"}`)
        .join(", ")}`,
    );
    if (c === cases[0]) {
      const rows = ours.providers.map((p) => `${p.provider} ${p.rows.length} rows, ${p.failing} not met`).join("; ");
      console.log(
        `  (ours also: one-click ${ours.one_click.status}, reverse DNS ${ours.reverse_dns?.result}, BIMI record ${ours.bimi.status}; tables: ${rows})`,
      );
    }
  }
  console.log("ratio = mailauth median / ours median (above 1: this service is faster)");
  if (differences.length === 0) console.log("verdicts: both agree on spf, dkim, dmarc and arc for every message");
  else {
    console.log("verdicts that differ:");
    for (const d of differences) console.log(`  ${d}`);
    console.log(
      "  (the list's footer breaks the author's body hash: RFC 6376 §6.1.3 makes that a failed verification, which RFC 8601 §2.7.1\n" +
        "   reports as dkim=fail, as ours does; mailauth's lenient default reports neutral, its strict mode fail)",
    );
  }
}
