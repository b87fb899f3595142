// Every write records who did what (issue 33 §1, docs/audit.md "Verbs"), driven through the Worker's real
// fetch export: REST with a team token, the operator's admin API, and the service's own scheduled work.
// Each change leaves exactly one entry in its team's log, written in the change's batch; a refused write
// (403, 409, 422) and a guarded change that changed nothing leave none; summaries never carry a secret.
import { env } from "cloudflare:workers";
import { afterEach, describe, expect, it, vi } from "vitest";
import type { Env } from "../../src/env";
import { createServices } from "../../src/services";
import { resolveAlert } from "../../src/services/alerts/resolve-alert";
import { applyUnsubscribe, unsubscribeUrl } from "../../src/services/notify/unsubscribe";
import { recheckOwnership } from "../../src/services/domains/ownership";
import { writeStreak } from "../../src/services/webhooks/outcome";
import { ADMIN_TOKEN, call, json, makeTeam } from "../support/api";
import { Browser } from "../support/browser";
import { teamContext } from "../support/context";
import { type DohStub, installDohStub } from "../support/doh-stub";
import { addDomain, captureChecks, clockedServices, newDomainName, zoneFor } from "../support/monitoring";
import { createWebhook, installReceiver, PUBLIC_IP, testServices } from "../support/webhooks";
import { callSite, createChannel, outboxFor, SITE } from "../routes/notifications/support";
import { entriesOf } from "./audit-wiring-support";

let stub: DohStub | null = null;
let capture: ReturnType<typeof captureChecks> | null = null;
afterEach(() => {
  stub?.restore();
  stub = null;
  capture?.restore();
  capture = null;
});

describe("REST writes (a team token)", () => {
  it("records a domain's life once per change with the token as actor; refused and repeated writes record nothing", async () => {
    const team = await makeTeam();
    const name = newDomainName();
    const added = await addDomain(team, name);

    // Refused: a duplicate (409), a read-only token (403), a bad name (422).
    expect((await call("/api/v1/domains", { method: "POST", token: team.full, body: { name } })).status).toBe(409);
    expect((await call("/api/v1/domains", { method: "POST", token: team.readOnly, body: { name: newDomainName() } })).status).toBe(403);
    expect((await call("/api/v1/domains", { method: "POST", token: team.full, body: { name: "not a domain!" } })).status).toBe(422);

    const created = await entriesOf(team.id, "domain.create");
    expect(created).toHaveLength(1);
    expect(created[0]).toMatchObject({
      actor_kind: "token",
      actor_id: String(team.fullTokenId),
      face: "api",
      target_type: "domain",
      target_id: String(added.id),
      summary: `added ${name}`,
    });
    expect(created[0]?.actor_label).toMatch(/^token Default full-access token \(eam_[0-9A-Za-z]{8}\)$/);

    // Verify: recorded on the transition only; the second call finds it verified and changes nothing.
    stub = installDohStub(zoneFor(name, { verifyValue: added.verification.value }));
    capture = captureChecks();
    for (let i = 0; i < 2; i++) expect((await call(`/api/v1/domains/${added.id}/verify`, { method: "POST", token: team.full })).status).toBe(200);
    expect((await entriesOf(team.id, "domain.verify")).map((e) => e.summary)).toEqual([`ownership of ${name} verified (TXT at ${added.verification.host})`]);

    // A check request while the verify's first check is queued gets that check: a guarded no-op, no entry.
    const checkNow = async () =>
      (await json<{ data: { check_id: string } }>(await call(`/api/v1/domains/${added.id}/check`, { method: "POST", token: team.full }))).data.check_id;
    expect(await checkNow()).toBe(capture.sent[0]?.check_id);
    expect(await entriesOf(team.id, "domain.check")).toEqual([]);
    // Once that check ran, a request reserves a new one (recorded), and a repeat while it waits does not.
    await env.DB.prepare("UPDATE domains SET pending_check_id = NULL WHERE id = ?").bind(added.id).run();
    const fresh = await checkNow();
    expect(await checkNow()).toBe(fresh);
    expect((await entriesOf(team.id, "domain.check")).map((e) => e.summary)).toEqual([`check of ${name} requested (${fresh})`]);

    expect((await call(`/api/v1/domains/${added.id}`, { method: "DELETE", token: team.readOnly })).status).toBe(403);
    expect((await call(`/api/v1/domains/${added.id}`, { method: "DELETE", token: team.full })).status).toBe(204);
    expect((await call(`/api/v1/domains/${added.id}`, { method: "DELETE", token: team.full })).status).toBe(404);
    expect(await entriesOf(team.id, "domain.delete")).toHaveLength(1);
  });

  it("records a DKIM selector added by hand once, and its removal once; entries are sealed into the chain", async () => {
    const team = await makeTeam();
    const d = await addDomain(team);
    stub = installDohStub({});
    const add = () => call(`/api/v1/domains/${d.id}/dkim/selectors`, { method: "POST", token: team.full, body: { selector: "Mail2026" } });
    expect((await add()).status).toBe(201);
    expect((await add()).status).toBe(200); // already known: nothing added
    const del = () => call(`/api/v1/domains/${d.id}/dkim/selectors/mail2026`, { method: "DELETE", token: team.full });
    expect((await del()).status).toBe(204);
    expect((await del()).status).toBe(404);
    const rows = (await entriesOf(team.id)).filter((e) => e.verb.startsWith("dkim_selector."));
    expect(rows.map((e) => [e.verb, e.target_id, e.summary])).toEqual([
      ["dkim_selector.add", `mail2026._domainkey.${d.name}`, `selector mail2026 added to ${d.name}`],
      ["dkim_selector.delete", `mail2026._domainkey.${d.name}`, `selector mail2026 (manual, missing) removed from ${d.name}`],
    ]);
    // commit() seals what it wrote (docs/audit.md "The chain"): every entry has its hash once the call returned.
    expect((await entriesOf(team.id)).filter((e) => e.hash === null)).toEqual([]);
  });

  it("a plan's domain allowance refusing the insert (409) records nothing", async () => {
    const team = await makeTeam("starter");
    const limit = (await json<{ data: { limits: { domains: number } } }>(await call("/api/v1/me", { token: team.full }))).data.limits.domains;
    for (let i = 0; i < limit; i++) await addDomain(team);
    expect((await call("/api/v1/domains", { method: "POST", token: team.full, body: { name: newDomainName() } })).status).toBe(409);
    expect(await entriesOf(team.id, "domain.create")).toHaveLength(limit);
  });

  it("records webhook endpoint writes by the URL's origin only: no path, query or secret", async () => {
    stub = installReceiver().stub;
    const team = await makeTeam();
    const hook = await createWebhook(team.full, { url: "https://hooks.example.com/in/s3cr3t-path?token=abc123", events: ["alert.created"] });
    expect((await call(`/api/v1/webhooks/${hook.id}`, { method: "PATCH", token: team.full, body: { events: ["alert.*"] } })).status).toBe(422);
    expect((await call(`/api/v1/webhooks/${hook.id}`, { method: "PATCH", token: team.full, body: { enabled: false } })).status).toBe(200);
    const rotated = await json<{ data: { secret: string } }>(await call(`/api/v1/webhooks/${hook.id}/rotate-secret`, { method: "POST", token: team.full }));
    expect((await call(`/api/v1/webhooks/${hook.id}`, { method: "DELETE", token: team.readOnly })).status).toBe(403);
    expect((await call(`/api/v1/webhooks/${hook.id}`, { method: "DELETE", token: team.full })).status).toBe(204);

    const all = await entriesOf(team.id);
    const hooks = all.filter((e) => e.verb.startsWith("webhook_endpoint."));
    expect(hooks.map((e) => [e.verb, e.target_id, e.summary])).toEqual([
      ["webhook_endpoint.create", String(hook.id), "endpoint https://hooks.example.com/… events: alert.created"],
      ["webhook_endpoint.update", String(hook.id), "endpoint https://hooks.example.com/…: disabled"],
      ["webhook_endpoint.rotate_secret", String(hook.id), expect.stringMatching(/^secret of endpoint https:\/\/hooks\.example\.com\/… rotated; /)],
      ["webhook_endpoint.delete", String(hook.id), "endpoint https://hooks.example.com/… deleted with its delivery log"],
    ]);
    const text = JSON.stringify(all);
    for (const secret of ["s3cr3t-path", "abc123", hook.secret, rotated.data.secret, hook.secret.slice(6, 20)]) expect(text).not.toContain(secret);
  });

  it("records notification channels and rules without the webhook URL's secret path or a routing key", async () => {
    stub = installReceiver({ "hooks.slack.com": { A: [PUBLIC_IP] } }).stub;
    const team = await makeTeam();
    const url = "https://hooks.slack.com/services/T0001/B0002/XXXXsecretXXXX";
    const res = await call("/api/v1/notification-channels", { method: "POST", token: team.full, body: { kind: "slack", name: "Ops", url } });
    expect(res.status).toBe(201);
    const channel = (await json<{ data: { id: number } }>(res)).data;
    const key = "a".repeat(32);
    const pd = await call("/api/v1/notification-channels", { method: "POST", token: team.full, body: { kind: "pagerduty", name: "Pager", routing_key: key } });
    expect(pd.status).toBe(201);
    const rule = await call(`/api/v1/notification-channels/${channel.id}/rules`, {
      method: "POST",
      token: team.full,
      body: { kinds: ["dkim"], min_severity: "High" },
    });
    expect(rule.status).toBe(201);
    const ruleId = (await json<{ data: { id: number } }>(rule)).data.id;
    expect((await call(`/api/v1/notification-channels/${channel.id}/rules/${ruleId}`, { method: "DELETE", token: team.full })).status).toBe(204);
    expect((await call(`/api/v1/notification-channels/${channel.id}/rules/${ruleId}`, { method: "DELETE", token: team.full })).status).toBe(404);
    expect((await call(`/api/v1/notification-channels/${channel.id}`, { method: "PATCH", token: team.full, body: { name: "Ops alerts" } })).status).toBe(200);
    expect((await call(`/api/v1/notification-channels/${channel.id}`, { method: "DELETE", token: team.full })).status).toBe(204);

    const rows = (await entriesOf(team.id)).filter((e) => e.verb.startsWith("notification_"));
    expect(rows.map((e) => [e.verb, e.target_type, e.target_id, e.summary])).toEqual([
      ["notification_channel.create", "notification_channel", String(channel.id), 'slack channel "Ops" to https://hooks.slack.com/…; 1 rule'],
      ["notification_channel.create", "notification_channel", expect.stringMatching(/^\d+$/), 'pagerduty channel "Pager" to a PagerDuty integration; 1 rule'],
      ["notification_rule.create", "notification_rule", String(ruleId), `rule on channel ${channel.id}: dkim from High up on every domain, cooldown 30 min`],
      [
        "notification_rule.delete",
        "notification_rule",
        String(ruleId),
        `rule on channel ${channel.id} deleted: dkim from High up on every domain, cooldown 30 min`,
      ],
      ["notification_channel.update", "notification_channel", String(channel.id), '"Ops": name "Ops" -> "Ops alerts"'],
      ["notification_channel.delete", "notification_channel", String(channel.id), 'slack channel "Ops alerts" deleted with its rules'],
    ]);
    const text = JSON.stringify(rows);
    expect(text).not.toContain("XXXXsecretXXXX");
    expect(text).not.toContain(key);
  });

  it("records an alert resolved once, however often it is resolved", async () => {
    const team = await makeTeam();
    const d = await addDomain(team);
    const alert = await env.DB.prepare(
      "INSERT INTO alerts (team_id, domain_id, kind, subject, severity, title, body, occurrences, created_at, updated_at) VALUES (?, ?, 'dkim', 's1', 'High', 'Key gone', 'b', 1, ?, ?) RETURNING id",
    )
      .bind(team.id, d.id, Date.now(), Date.now())
      .first<{ id: number }>();
    expect((await call(`/api/v1/alerts/${alert?.id}/resolve`, { method: "POST", token: team.readOnly })).status).toBe(403);
    for (let i = 0; i < 2; i++) expect((await call(`/api/v1/alerts/${alert?.id}/resolve`, { method: "POST", token: team.full })).status).toBe(200);
    expect((await entriesOf(team.id, "alert.resolve")).map((e) => e.summary)).toEqual([`resolved High dkim alert "Key gone" on ${d.name}`]);

    // A resolve that loses a race (another writer resolved it between the verb's read and its batch):
    // its guarded update changes nothing, so it records nothing.
    const raced = await env.DB.prepare(
      "INSERT INTO alerts (team_id, domain_id, kind, subject, severity, title, body, occurrences, created_at, updated_at) VALUES (?, ?, 'spf', 's2', 'Low', 'Raced', 'b', 1, ?, ?) RETURNING id",
    )
      .bind(team.id, d.id, Date.now(), Date.now())
      .first<{ id: number }>();
    const svc = testServices();
    const batch = svc.db.batch.bind(svc.db);
    vi.spyOn(svc.db, "batch").mockImplementationOnce(async (statements) => {
      await env.DB.prepare("UPDATE alerts SET resolved_at = ?, updated_at = ? WHERE id = ?").bind(Date.now(), Date.now(), raced?.id).run();
      return batch(statements);
    });
    const view = await resolveAlert(svc, { ...teamContext(team.id), origin: { face: "api", label: "token racer" } }, raced?.id ?? 0);
    expect(view.resolved_at).not.toBeNull();
    expect((await entriesOf(team.id, "alert.resolve")).filter((e) => e.target_id === String(raced?.id))).toEqual([]);
  });

  it("of two secret rotations at once, the one that lost (409) records nothing", async () => {
    stub = installReceiver().stub;
    const team = await makeTeam();
    const hook = await createWebhook(team.full, {});
    const both = await Promise.all([0, 1].map(() => call(`/api/v1/webhooks/${hook.id}/rotate-secret`, { method: "POST", token: team.full })));
    const statuses = both.map((r) => r.status).sort();
    expect(statuses).toContain(200);
    expect(await entriesOf(team.id, "webhook_endpoint.rotate_secret")).toHaveLength(statuses.filter((x) => x === 200).length);
  });
});

describe("outside recipients and actions outside D1", () => {
  it("records a confirmation mailed again, the address confirming by its link and unsubscribing it, each once", async () => {
    const team = await makeTeam();
    const address = `oncall-${team.id}@example.net`;
    const channel = await createChannel(team.full, { kind: "email", name: "Outside", email_mode: "address", address });
    expect((await callSite(`/api/v1/notification-channels/${channel.id}/confirmation`, { method: "POST", token: team.full })).status).toBe(202);
    const link = /\/notifications\/confirm\/([A-Za-z0-9]{40})/.exec((await outboxFor(address)).at(-1)?.body ?? "")?.[1] ?? "";
    const page = new Browser();
    expect((await page.fetch(`/notifications/confirm/${link}`, { method: "POST", form: {} })).status).toBe(200);
    expect((await page.fetch(`/notifications/confirm/${link}`, { method: "POST", form: {} })).status).toBe(410);

    const svc = createServices({ ...env, SITE_URL: SITE } as Env);
    const url = await unsubscribeUrl(svc, { purpose: "channel", teamId: team.id, channelId: channel.id, userId: null, address });
    const token = url.slice(url.lastIndexOf("/") + 1);
    for (let i = 0; i < 2; i++) await applyUnsubscribe(svc, token);

    const rows = (await entriesOf(team.id)).filter((e) => e.verb.startsWith("notification_channel."));
    expect(rows.map((e) => [e.verb, e.actor_kind, e.actor_label, e.summary])).toEqual([
      ["notification_channel.create", "token", expect.stringMatching(/^token /), `email channel "Outside" to ${address}; 1 rule`],
      ["notification_channel.resend_confirmation", "token", expect.stringMatching(/^token /), `confirmation mailed again to ${address} for "Outside"`],
      ["notification_channel.confirm", "system", `the recipient ${address}`, `${address} confirmed alerts of "Outside"`],
      ["notification_channel.disable", "system", `the recipient ${address}`, `email channel "Outside" disabled: ${address} unsubscribed (RFC 8058 one-click)`],
    ]);
  });

  it("records a webhook test event and a redelivery after they were accepted", async () => {
    stub = installReceiver().stub;
    const team = await makeTeam();
    const hook = await createWebhook(team.full, {});
    const sent = await call(`/api/v1/webhooks/${hook.id}/test`, { method: "POST", token: team.full });
    expect(sent.status).toBe(202);
    const delivery = (await json<{ data: { id: number; event_id: string } }>(sent)).data;
    expect((await call(`/api/v1/webhooks/${hook.id}/deliveries/${delivery.id}/redeliver`, { method: "POST", token: team.full })).status).toBe(202);
    expect((await call(`/api/v1/webhooks/${hook.id}/test`, { method: "POST", token: team.readOnly })).status).toBe(403);
    const rows = (await entriesOf(team.id)).filter((e) => e.verb.startsWith("webhook_") && e.verb !== "webhook_endpoint.create");
    expect(rows.map((e) => [e.verb, e.target_type, e.target_id, e.summary])).toEqual([
      ["webhook_endpoint.test", "webhook_endpoint", String(hook.id), `test event ${delivery.event_id} sent to https://hooks.example.com/…`],
      [
        "webhook_delivery.redeliver",
        "webhook_delivery",
        String(delivery.id),
        `delivery ${delivery.id} (webhook.test) sent again to https://hooks.example.com/…`,
      ],
    ]);
  });
});

describe("the operator's admin API", () => {
  it("records team creation, token issue and revocation and plan changes with the operator as actor; no-op repeats record nothing", async () => {
    const headers = { "user-agent": "ops-console/1.0", "cf-connecting-ip": "203.0.113.9" };
    const res = await call("/admin/teams", {
      method: "POST",
      token: ADMIN_TOKEN,
      headers,
      body: { name: "Acme", plan: "starter", owner_email: "boss@acme.example" },
    });
    expect(res.status).toBe(201);
    const { data } = await json<{ data: { team: { id: number }; tokens: { full: { id: number; prefix: string } } } }>(res);
    const teamId = data.team.id;
    const issued = await json<{ data: { id: number; prefix: string } }>(
      await call(`/admin/teams/${teamId}/tokens`, { method: "POST", token: ADMIN_TOKEN, headers, body: { scope: "read_only", name: "CI" } }),
    );
    for (let i = 0; i < 2; i++) expect((await call(`/admin/tokens/${issued.data.id}`, { method: "DELETE", token: ADMIN_TOKEN, headers })).status).toBe(204);
    for (const plan of ["pro", "pro"])
      expect((await call(`/admin/teams/${teamId}`, { method: "PATCH", token: ADMIN_TOKEN, headers, body: { plan } })).status).toBe(200);

    const rows = await entriesOf(teamId);
    expect(rows.map((e) => [e.verb, e.target_type, e.target_id, e.summary])).toEqual([
      ["team.create", "team", String(teamId), 'team "Acme" on the starter plan for boss@acme.example'],
      ["token.create", "token", String(data.tokens.full.id), `token "Default full-access token" (${data.tokens.full.prefix}…), full`],
      ["token.create", "token", expect.stringMatching(/^\d+$/), expect.stringMatching(/^token "Default read-only token" \(eam_.{8}…\), read_only$/)],
      ["token.create", "token", String(issued.data.id), `token "CI" (${issued.data.prefix}…), read_only`],
      ["token.revoke", "token", String(issued.data.id), `token "CI" (${issued.data.prefix}…), read_only, revoked`],
      ["team.plan_change", "team", String(teamId), "plan starter -> pro"],
    ]);
    for (const e of rows)
      expect(e).toMatchObject({
        actor_kind: "operator",
        actor_id: "operator",
        actor_label: "the operator",
        face: "operator",
        ip: "203.0.113.9",
        user_agent: "ops-console/1.0",
      });
    expect(rows.map((e) => e.seq)).toEqual([1, 2, 3, 4, 5, 6]);
  });
});

describe("the service's own work", () => {
  it("records the failure that disables an endpoint once, with the service as actor; a replayed outcome records nothing", async () => {
    stub = installReceiver().stub;
    const team = await makeTeam();
    const hook = await createWebhook(team.full, { url: "https://hooks.example.com/in?key=zzz" });
    const svc = testServices();
    const endpoint = await svc.db.query.webhookEndpoints.findFirst({ where: (t, { eq }) => eq(t.id, hook.id) });
    if (!endpoint) throw new Error("endpoint missing");
    const streak = { endpointId: hook.id, failureCount: 20, lastSuccessAt: null, lastFailureAt: Date.now(), disable: "consecutive_failures" as const, seq: 20 };
    await writeStreak(svc, endpoint, streak);
    await writeStreak(svc, endpoint, streak); // the same outcome again: stats_seq is not older, nothing is written
    await writeStreak(svc, endpoint, { ...streak, failureCount: 21, seq: 21 }); // a later failure: already disabled
    const rows = await entriesOf(team.id, "webhook_endpoint.disable");
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({
      actor_kind: "system",
      actor_label: "the service",
      face: "system",
      summary: "endpoint https://hooks.example.com/… disabled by the service: 20 failed deliveries in a row",
    });
    expect((await svc.db.query.webhookEndpoints.findFirst({ where: (t, { eq }) => eq(t.id, hook.id) }))?.enabled).toBe(false);
  });

  it("records a channel the service disabled after its receiver answered 410 Gone, once", async () => {
    const receiver = installReceiver({ "hooks.slack.com": { A: [PUBLIC_IP] } });
    stub = receiver.stub;
    receiver.respond(() => new Response("gone", { status: 410 }));
    const team = await makeTeam();
    // SITE_URL set (callSite): a message's links need it, or the attempt waits for it (D148).
    const res = await callSite("/api/v1/notification-channels", {
      method: "POST",
      token: team.full,
      body: { kind: "slack", name: "Ops", url: "https://hooks.slack.com/services/T1/B2/secretpart" },
    });
    const channel = (await json<{ data: { id: number } }>(res)).data;
    for (let i = 0; i < 2; i++)
      expect((await callSite(`/api/v1/notification-channels/${channel.id}/test`, { method: "POST", token: team.full })).status).toBe(202);
    const rows = await entriesOf(team.id, "notification_channel.disable");
    expect(rows.map((e) => [e.actor_kind, e.face, e.target_id, e.summary])).toEqual([
      ["system", "system", String(channel.id), 'slack channel "Ops" disabled by the service: the receiver answered 410 Gone'],
    ]);
    expect(await entriesOf(team.id, "notification_channel.test")).toHaveLength(2);
  });

  it("records a domain whose ownership lapsed as unverified by the service, once", async () => {
    const team = await makeTeam();
    const d = await addDomain(team);
    const t0 = Date.now();
    await env.DB.prepare("UPDATE domains SET verified = 1, verified_at = ?, ownership_checked_at = ?, ownership_missing_since = ? WHERE id = ?")
      .bind(t0, t0 - 2 * 86_400_000, t0 - 4 * 86_400_000, d.id)
      .run();
    stub = installDohStub({});
    for (let i = 0; i < 2; i++) await recheckOwnership(clockedServices(new Date(t0 + i * 86_400_000)), 500);
    const rows = await entriesOf(team.id, "domain.unverify");
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ actor_kind: "system", face: "system", target_type: "domain", target_id: String(d.id) });
    expect(rows[0]?.summary).toMatch(new RegExp(`^ownership of ${d.name.replace(/\./g, "\\.")} no longer verified: TXT at _emailauth-verify\\.`));
  });
});
