// Webhook receiver chaos: one endpoint per misbehaving receiver, each sent a test event (the first
// attempt runs inside the request). Checks the delivery state and the next retry time of the
// contract (docs/decisions.md D11), the stored response body cap (4 KB, D20), that redirects are never
// followed, and that no attempt reaches a receiver twice.
import { waitFor } from "./lib.mjs";

const MIN = 60;
/** Each case: receiver path, expected delivery status, retry wait in seconds (null: none), and extra checks. */
const CASES = [
  { name: "slow past 10 s", path: "slow", status: "pending", wait: [MIN * 0.9, MIN * 1.1], error: /^timeout/ },
  { name: "connection reset", path: "reset", status: "pending", wait: [MIN * 0.9, MIN * 1.1], error: /^network error/ },
  { name: "3xx redirect", path: "redirect", status: "pending", wait: [MIN * 0.9, MIN * 1.1], error: /redirect \(302\) not followed/, responseStatus: 302 },
  { name: "1 MB response body", path: "big", status: "delivered", wait: null, responseStatus: 200, bodyCap: 4096 },
  { name: "429 with Retry-After: 120", path: "429", status: "pending", wait: [120, 121], responseStatus: 429 },
  { name: "429 with Retry-After past a day (capped)", path: "429-huge", status: "pending", wait: [86_400, 86_401], responseStatus: 429 },
  { name: "500", path: "500", status: "pending", wait: [MIN * 0.9, MIN * 1.1], responseStatus: 500 },
  { name: "410 Gone", path: "410", status: "failed", wait: null, responseStatus: 410, disables: "gone" },
];

export async function runReceiverChaos({ world, section }) {
  const team = await world.team();
  const rec = world.receiver;
  await Promise.all(
    CASES.map(async (c) => {
      const created = await world.api(team.full, "POST", "/webhooks", { body: { url: `${rec.base}/${c.path}/${team.id}`, events: ["webhook.test"] } });
      if (!section.check(created.status === 201, `${c.name}: endpoint created`, `${created.status} ${created.text.slice(0, 200)}`)) return;
      const hook = created.json.data;
      const before = Date.now();
      const sent = await world.api(team.full, "POST", `/webhooks/${hook.id}/test`, { timeoutMs: 40_000 });
      const after = Date.now();
      if (!section.check(sent.status === 202, `${c.name}: test event accepted`, `${sent.status} ${sent.text.slice(0, 200)}`)) return;
      const delivery = sent.json.data;
      const detail = (await world.api(team.full, "GET", `/webhooks/${hook.id}/deliveries/${delivery.id}`)).json?.data;
      section.check(detail?.status === c.status, `${c.name}: delivery ${c.status}`, `${detail?.status} (${detail?.error})`);
      section.check(detail?.attempts === 1, `${c.name}: one attempt recorded`, `${detail?.attempts}`);
      if (c.responseStatus !== undefined)
        section.check(detail?.response_status === c.responseStatus, `${c.name}: response status ${c.responseStatus} recorded`, `${detail?.response_status}`);
      if (c.error) section.check(c.error.test(detail?.error ?? ""), `${c.name}: error says why`, `${detail?.error}`);
      if (c.wait === null) {
        section.check(detail?.next_retry_at === null, `${c.name}: no retry scheduled`, `${detail?.next_retry_at}`);
      } else {
        // Scheduled from the end of the attempt: between the request's start and its answer.
        const at = Date.parse(detail?.next_retry_at ?? "");
        const lo = before + c.wait[0] * 1000 - 1000;
        const hi = after + c.wait[1] * 1000 + 1000;
        section.check(
          at >= lo && at <= hi,
          `${c.name}: next retry ${c.wait[0]}-${c.wait[1]} s after the attempt`,
          `${((at - after) / 1000).toFixed(1)} s after the answer`,
        );
      }
      if (c.bodyCap) {
        const bytes = Buffer.byteLength(detail?.response?.body ?? "", "utf8");
        section.check(bytes > 0 && bytes <= c.bodyCap + 3, `${c.name}: stored response body capped at ${c.bodyCap} bytes`, `${bytes} bytes`);
      }
      if (c.disables) {
        const ep = (await world.api(team.full, "GET", `/webhooks/${hook.id}`)).json?.data;
        section.check(
          ep?.enabled === false && ep?.disabled_reason === c.disables,
          `${c.name}: endpoint disabled (${c.disables})`,
          JSON.stringify({ enabled: ep?.enabled, reason: ep?.disabled_reason }),
        );
      }
      // The receiver saw this event exactly once, and a redirect's target never.
      const seen = await waitFor(() => rec.requests.filter((r) => r.id === delivery.event_id).length >= 1, { timeoutMs: 2000 });
      const hits = rec.requests.filter((r) => r.id === delivery.event_id);
      section.check(seen && hits.length === 1, `${c.name}: the receiver got the event once`, `${hits.length} requests`);
      if (c.path === "redirect") section.check(!rec.requests.some((r) => r.path.startsWith("/followed/")), `${c.name}: redirect not followed`);
    }),
  );
}

/** No attempt reached any receiver twice over the whole run (same event id and attempt number). */
export function checkNoDuplicates(rec, section) {
  const seen = new Map();
  for (const r of rec.requests) if (r.id && r.delivery) seen.set(`${r.id} ${r.delivery}`, (seen.get(`${r.id} ${r.delivery}`) ?? 0) + 1);
  const dupes = [...seen].filter(([, n]) => n > 1);
  section.check(seen.size > 0, "the receivers were reached");
  section.check(
    dupes.length === 0,
    "no attempt reached a receiver twice",
    dupes
      .slice(0, 5)
      .map(([k, n]) => `${k} ×${n}`)
      .join(", "),
  );
  section.done();
}
