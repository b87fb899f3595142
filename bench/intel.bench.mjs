// Issue 3: 100 addresses over 10 domains through POST /api/v1/intel/emails on a `wrangler dev`
// (port 8801) whose DOH_RESOLVERS points at the local DoH server; prints the DNS queries issued
// and whether each distinct name was queried once. Loopback only.
import { startDevServer } from "./lib/dev-server.mjs";
import { startDohServer } from "./lib/doh-server.mjs";

const PORT = 8801;
const DELAY_MS = 20;

function zone() {
  const z = { "mx.shared.example": { A: ["192.0.2.200"] }, "_spf.shared.example": { TXT: ["v=spf1 ip4:192.0.2.0/24 -all"] } };
  for (let i = 0; i < 10; i++) {
    z[`d${i}.example`] = {
      MX: [
        { preference: 10, exchange: `mx.d${i}.example` },
        { preference: 20, exchange: "mx.shared.example" },
      ],
      TXT: [i % 3 === 0 ? "v=spf1 redirect=_spf.shared.example" : "v=spf1 include:_spf.shared.example ~all"],
    };
    z[`mx.d${i}.example`] = { A: [`192.0.2.${i + 1}`] };
    // Half the domains have their own DMARC record; the rest walk up to _dmarc.example (RFC 9989 §4.10).
    if (i % 2 === 0) z[`_dmarc.d${i}.example`] = { TXT: ["v=DMARC1; p=reject"] };
  }
  return z;
}

export default async function run() {
  const doh = await startDohServer({ zone: zone(), delayMs: DELAY_MS });
  const server = await startDevServer({ port: PORT, vars: { DOH_RESOLVERS: doh.url } });
  try {
    const team = await server.createTeam("enterprise");
    const token = team.tokens.read_only.token;
    const roles = ["jane", "info", "john.smith", "no-reply", "sales"];
    const emails = Array.from({ length: 100 }, (_, n) => `${roles[n % roles.length]}+${n}@d${n % 10}.example`);
    const post = () =>
      fetch(`${server.url}/api/v1/intel/emails`, {
        method: "POST",
        headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
        body: JSON.stringify({ emails }),
      });
    await (await post()).arrayBuffer(); // warm-up: isolate start and the disposable list load
    doh.reset();
    const t0 = performance.now();
    const res = await post();
    const body = await res.json();
    const wall = performance.now() - t0;
    if (res.status !== 200) throw new Error(`POST /intel/emails: ${res.status} ${JSON.stringify(body)}`);
    const counts = new Map();
    for (const q of doh.log) counts.set(`${q.name} ${q.type}`, (counts.get(`${q.name} ${q.type}`) ?? 0) + 1);
    const repeated = [...counts].filter(([, n]) => n > 1);
    const byType = {};
    for (const q of doh.log) byType[q.type] = (byType[q.type] ?? 0) + 1;
    console.log(
      `100 addresses over ${body.data.domains} domains (read-only token): ${body.data.count} results, HTTP ${res.status}, wall ${wall.toFixed(0)} ms at ${DELAY_MS} ms per DNS answer`,
    );
    console.log(
      `DNS queries issued: ${doh.log.length} for ${counts.size} distinct name/type pairs (${Object.entries(byType)
        .map(([t, n]) => `${t} ${n}`)
        .join(", ")})`,
    );
    console.log(
      repeated.length === 0 ? "each distinct name queried once: yes" : `queried more than once: ${repeated.map(([k, n]) => `${k} x${n}`).join(", ")}`,
    );
    console.log(
      `per domain: ${(doh.log.length / body.data.domains).toFixed(1)} queries (MX, MX host A/AAAA, SPF TXT (+ redirect target), DMARC tree walk); sample: ${JSON.stringify(body.data.results[1].reasons.map((r) => r.code))} score ${body.data.results[1].score}`,
    );
  } finally {
    await server.stop();
    await doh.stop();
  }
}
