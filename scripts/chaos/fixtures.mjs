// Real objects for the fuzz and the tenancy sweep: a checked domain with a DKIM selector, an alert
// (raised by a real DNS change), a webhook endpoint with a delivery; for the operator API a spare
// team and token (so fuzzing PATCH and DELETE never touches the teams under test).
import { createHmac } from "node:crypto";
import { call, waitFor } from "./lib.mjs";

/** A one-record DMARC aggregate report about `domain` for yesterday. */
function reportXml(domain) {
  const day = Math.floor(Date.now() / 86_400_000) * 86_400;
  return (
    `<?xml version="1.0"?><feedback><report_metadata><org_name>chaos.example</org_name><email>noreply@chaos.example</email>` +
    `<report_id>chaos-${domain}</report_id><date_range><begin>${day - 86_400}</begin><end>${day - 1}</end></date_range></report_metadata>` +
    `<policy_published><domain>${domain}</domain><p>reject</p></policy_published><record><row><source_ip>192.0.2.77</source_ip><count>3</count>` +
    `<policy_evaluated><disposition>none</disposition><dkim>pass</dkim><spf>pass</spf></policy_evaluated></row><identifiers><header_from>${domain}</header_from></identifiers>` +
    `<auth_results><spf><domain>${domain}</domain><result>pass</result></spf></auth_results></record></feedback>`
  );
}

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
  // A notification channel (email to members: nothing leaves the machine) with its default rule and a test message.
  const channel = await world.api(team.full, "POST", "/notification-channels", { body: { kind: "email", name: "chaos" } });
  if (channel.status !== 201) throw new Error(`notification channel: ${channel.status} ${channel.text}`);
  const notified = await world.api(team.full, "POST", `/notification-channels/${channel.json.data.id}/test`);
  if (notified.status !== 202) throw new Error(`notification test: ${notified.status} ${notified.text}`);
  // A DMARC report, ingested as a reporter sends it (signed HTTP).
  const body = JSON.stringify({ recipient: d.dmarc_report_address, content_base64: Buffer.from(reportXml(name)).toString("base64") });
  const sig = createHmac("sha256", world.ingestSecret).update(body).digest("hex");
  const ingested = await call(world.base, "POST", "/api/webhooks/dmarc", {
    raw: body,
    contentType: "application/json",
    headers: { "x-signature": `sha256=${sig}` },
  });
  if (ingested.status !== 202) throw new Error(`report: ${ingested.status} ${ingested.text}`);
  const reports = (await world.api(team.full, "GET", `/domains/${d.id}/dmarc/reports`)).json?.data ?? [];
  if (!reports[0]) throw new Error(`no report listed for ${name}`);
  return {
    report: reports[0].id,
    domain: d.id,
    alert: alerts.id,
    selector: "selector1",
    webhook: hook.json.data.id,
    delivery: test.json.data.id,
    channel: channel.json.data.id,
    rule: channel.json.data.rules[0].id,
    message: notified.json.data.id,
  };
}

export async function adminFixtures(world) {
  const spare = await world.team("starter");
  const token = await call(world.base, "POST", `/admin/teams/${spare.id}/tokens`, { token: world.admin, body: { scope: "read_only", name: "spare" } });
  if (token.status !== 201) throw new Error(`admin token: ${token.status} ${token.text}`);
  return { team: spare.id, token_id: token.json.data.id };
}
