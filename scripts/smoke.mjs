// `npm run smoke`: end to end through wrangler dev (local D1, Queues, cron) with DNS from a local DoH server; offline.
import { startDohServer } from "../bench/lib/doh-server.mjs";
import { startDevServer } from "../bench/lib/dev-server.mjs";

const zone = {
  "e2e.example": { MX: [{ preference: 10, exchange: "mx.e2e.example" }], TXT: ["v=spf1 ip4:192.0.2.0/24 -all"] },
  "mx.e2e.example": { A: ["192.0.2.10"] },
  "_dmarc.e2e.example": { TXT: ["v=DMARC1; p=none; rua=mailto:d@e2e.example"] },
  "google._domainkey.e2e.example": { TXT: ["v=DKIM1; k=ed25519; p=11qYAYKxCrfVS/7TyWQHOg7hcvPapiMlrwIaaPcHURo="] },
};
const doh = await startDohServer({ zone, delayMs: 0 });
console.log("doh", doh.url ?? doh.port);
const dohUrl = doh.url ?? `http://127.0.0.1:${doh.port}/dns-query`;
const s = await startDevServer({ port: 8805, vars: { DOH_RESOLVERS: dohUrl } });
try {
  const team = await s.createTeam("enterprise");
  const tok = team.tokens.full.token;
  const api = (p, init = {}) =>
    fetch(`${s.url}/api/v1${p}`, { ...init, headers: { authorization: `Bearer ${tok}`, "content-type": "application/json", ...(init.headers ?? {}) } }).then(
      async (r) => [r.status, await r.json().catch(() => null)],
    );
  const [st, created] = await api("/domains", { method: "POST", body: JSON.stringify({ name: "E2E.example." }) });
  console.log("add", st, created?.data?.name, created?.data?.verification);
  const id = created.data.id;
  console.log("verify before TXT", ...(await api(`/domains/${id}/verify`, { method: "POST" })).map((x) => JSON.stringify(x)?.slice(0, 200)));
  zone[created.data.verification.host] = { TXT: [created.data.verification.value] };
  doh.set(created.data.verification.host, { TXT: [created.data.verification.value] });
  console.log("verify after TXT", ...(await api(`/domains/${id}/verify`, { method: "POST" })).map((x) => JSON.stringify(x)?.slice(0, 200)));
  for (let i = 0; i < 20; i++) {
    await new Promise((r) => setTimeout(r, 1000));
    const [, d] = await api(`/domains/${id}`);
    if (d?.data?.last_checked_at) {
      console.log("checked:", d.data.score, d.data.grade, d.data.dmarc_policy, "fixes", d.data.fixes?.length);
      break;
    }
  }
  console.log("checks", JSON.stringify((await api(`/domains/${id}/checks`))[1]?.meta));
  console.log("dkim", JSON.stringify((await api(`/domains/${id}/dkim`))[1]?.data?.summary));
  console.log("alerts", JSON.stringify((await api(`/alerts`))[1]?.data?.length));
  console.log("cron", (await fetch(`${s.url}/__scheduled?cron=*+*+*+*+*`)).status);
  console.log("intel", JSON.stringify((await api(`/intel/domain?domain=e2e.example`))[1]?.data?.grade));
} finally {
  await s.stop();
  await doh.stop();
}
