// Real objects for the fuzz and the tenancy sweep: a checked domain with a DKIM selector, an alert
// (raised by a real DNS change), a webhook endpoint with a delivery; for the operator API a spare
// team and token (so fuzzing PATCH and DELETE never touches the teams under test).
import { call, waitFor } from "./lib.mjs";

export async function teamFixtures(world, team, name, octet) {
  const d = await world.monitoredDomain(team, name, octet);
  if (!(await world.waitChecks(team, d.id, 1))) throw new Error(`first check of ${name} never ran`);
  // A DNS change the next check sees raises alerts (the DMARC record disappears), then it is restored.
  const dmarc = `_dmarc.${name}`;
  const saved = world.doh.get(dmarc);
  world.doh.remove(dmarc);
  const checked = await world.api(team.full, "POST", `/domains/${d.id}/check`);
  if (checked.status !== 202) throw new Error(`check ${name}: ${checked.status} ${checked.text}`);
  if (!(await world.waitChecks(team, d.id, 2))) throw new Error(`second check of ${name} never ran`);
  world.doh.set(dmarc, saved);
  const alerts = await waitFor(async () => (await world.api(team.full, "GET", "/alerts")).json?.data?.find((a) => a.domain_id === d.id));
  if (!alerts) throw new Error(`no alert for ${name}`);
  const hook = await world.api(team.full, "POST", "/webhooks", { body: { url: `${world.receiver.base}/ok/${team.id}`, events: ["*"] } });
  if (hook.status !== 201) throw new Error(`webhook: ${hook.status} ${hook.text}`);
  const test = await world.api(team.full, "POST", `/webhooks/${hook.json.data.id}/test`);
  if (test.status !== 202) throw new Error(`webhook test: ${test.status} ${test.text}`);
  return { domain: d.id, alert: alerts.id, selector: "selector1", webhook: hook.json.data.id, delivery: test.json.data.id };
}

export async function adminFixtures(world) {
  const spare = await world.team("starter");
  const token = await call(world.base, "POST", `/admin/teams/${spare.id}/tokens`, { token: world.admin, body: { scope: "read_only", name: "spare" } });
  if (token.status !== 201) throw new Error(`admin token: ${token.status} ${token.text}`);
  return { team: spare.id, token_id: token.json.data.id };
}
