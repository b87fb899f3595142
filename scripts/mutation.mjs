// `npm run test:mutation`: cuts the wires the suite is meant to guard and requires a failure for each.
// Every mutation below is one exact text replacement in one source file, with the test files that
// must catch it. The repository is copied once to a temporary folder (node_modules symlinked, never
// copied); each mutation is applied there, ONLY its listed test files run, and the file is restored.
// A mutation whose tests still pass "survived": the run prints a table and exits 1. How to add one:
// docs/testing.md. Run it under the shared test lock: `flock /tmp/test.lock npm run test:mutation`.
//
// Options: --only <name,name>  run some mutations;  --list  print them;  --no-baseline  skip the
// unmutated run of every listed test file (which must pass, or every mutation would look killed).
import { spawnSync } from "node:child_process";
import { cpSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative, resolve } from "node:path";

const ROOT = resolve(import.meta.dirname, "..");

/** @type {Array<{ name: string; file: string; from: string; to: string; tests: string[] }>} */
export const MUTATIONS = [
  {
    name: "checks consumer unplugged from the exported queue handler",
    file: "src/queues/index.ts",
    from: `case "emailauth-checks":\n      return consumeChecks(batch, createServices(env));`,
    to: `case "emailauth-checks":\n      return;`,
    tests: ["test/entry/queue.test.ts"],
  },
  {
    name: "deliveries consumer unplugged from the exported queue handler",
    file: "src/queues/index.ts",
    from: `case "emailauth-deliveries":\n      return handleDeliveriesQueue(batch, env);`,
    to: `case "emailauth-deliveries":\n      return;`,
    tests: ["test/entry/queue.test.ts"],
  },
  {
    name: "a failed check is acked instead of retried",
    file: "src/queues/checks.ts",
    from: "message.retry({ delaySeconds: Math.min(300, 30 * message.attempts) });",
    to: "message.ack();",
    tests: ["test/entry/queue.test.ts"],
  },
  {
    name: "a failed check is retried without its backoff",
    file: "src/queues/checks.ts",
    from: "Math.min(300, 30 * message.attempts)",
    to: "30",
    tests: ["test/entry/queue.test.ts"],
  },
  {
    name: "a failed deliveries message is acked instead of retried",
    file: "src/queues/deliveries.ts",
    from: `message.retry({ delaySeconds: 30 });`,
    to: `message.ack();`,
    tests: ["test/entry/queue.test.ts"],
  },
  {
    name: "the checks dead-letter consumer retries instead of acking",
    file: "src/queues/checks.ts",
    from: `log("error", "check message dead-lettered", { id: message.id, attempts: message.attempts, body: message.body });\n    message.ack();`,
    to: `log("error", "check message dead-lettered", { id: message.id, attempts: message.attempts, body: message.body });\n    message.retry();`,
    tests: ["test/entry/queue.test.ts"],
  },
  {
    name: "the deliveries dead-letter consumer retries instead of acking",
    file: "src/queues/deliveries.ts",
    from: "body: message.body }));\n    message.ack();",
    to: "body: message.body }));\n    message.retry();",
    tests: ["test/entry/queue.test.ts"],
  },
  {
    name: "a batch from an unknown queue is dropped silently",
    file: "src/queues/index.ts",
    from: "throw new Error(`no consumer for queue $" + "{batch.queue}`);",
    to: "return;",
    tests: ["test/entry/queue.test.ts"],
  },
  {
    name: "a malformed check message is retried forever instead of dropped",
    file: "src/queues/checks.ts",
    from: `log("error", "malformed check message dropped", { id: message.id, issues: parsed.error.issues.length });\n      message.ack();`,
    to: `log("error", "malformed check message dropped", { id: message.id, issues: parsed.error.issues.length });\n      message.retry();`,
    tests: ["test/entry/queue.test.ts"],
  },
  {
    name: "a cron job removed from the schedule table",
    file: "src/cron/index.ts",
    from: `    { name: "outbox-sweep", run: sweepOutbox },\n`,
    to: "",
    tests: ["test/entry/scheduled.test.ts"],
  },
  {
    name: "the scheduled handler runs the wrong schedule's jobs",
    file: "src/cron/index.ts",
    from: "const jobs = SCHEDULES[controller.cron];",
    to: "const jobs = SCHEDULES[EVERY_MINUTE];",
    tests: ["test/entry/scheduled.test.ts"],
  },
  {
    name: "one failing cron job stops the others",
    file: "src/cron/index.ts",
    from: "const results = await Promise.allSettled(jobs.map((job) => job.run(svc)));",
    to: "for (const job of jobs) await job.run(svc);\n  const results: PromiseSettledResult<unknown>[] = [];",
    tests: ["test/entry/scheduled.test.ts"],
  },
  {
    name: "the constant-time comparison ignores the last character",
    file: "src/lib/crypto.ts",
    from: "for (let i = 0; i < Math.max(ab.length, bb.length); i++)",
    to: "for (let i = 0; i < Math.max(ab.length, bb.length) - 1; i++)",
    tests: ["test/security/near-miss.test.ts"],
  },
  {
    name: "the 500 handler returns the exception text",
    file: "src/app.ts",
    from: "return errorResponse(c, internalError());",
    to: `return errorResponse(c, new ApiError(500, "internal_error", String(error)));`,
    // The generic 500 is probed through the real fetch export next to the near-miss tests.
    tests: ["test/security/near-miss.test.ts"],
  },
  {
    name: "the write-scope check removed",
    file: "src/services/context.ts",
    from: `if (ctx.scope !== "full") throw forbidden(`,
    to: `if (ctx.scope === ("never" as string)) throw forbidden(`,
    tests: ["test/services/service-context.test.ts", "test/security/scopes.test.ts"],
  },
  {
    name: "the team filter removed from the domain lookup",
    file: "src/services/domains/get-domain.ts",
    from: "where: and(eq(domains.id, domainId), eq(domains.teamId, teamId))",
    to: "where: and(eq(domains.id, domainId))",
    tests: ["test/routes/domains/domains.test.ts"],
  },
  {
    name: "the email handler skips setReject",
    file: "src/email/index.ts",
    from: "const reject = (reason: string) => message.setReject(smtpReason(reason));",
    to: "const reject = (_reason: string) => undefined;",
    tests: ["test/entry/email.test.ts"],
  },
  {
    name: "the email handler swallows a transient failure instead of throwing",
    file: "src/email/index.ts",
    from: "    // A transient failure (D1, or a copy being ingested concurrently): throwing makes the sending MTA see a temporary error and retry.\n    throw error;",
    to: "    return;",
    tests: ["test/entry/email.test.ts"],
  },
  {
    name: "the rate limit admits one request too many",
    file: "src/durable-objects/rate-limiter.ts",
    from: "if (minute.count >= limits.perMinute) {",
    to: "if (minute.count > limits.perMinute) {",
    tests: ["test/middleware/rate-limit.test.ts"],
  },
  {
    name: "a completed check is not copied into its domain's object",
    file: "src/services/checks/run-check.ts",
    from: "  await archiveAfterCheck(svc, domain, changes.length === 0 ? recorded : undefined);",
    to: "",
    tests: ["test/cron/check-archive.test.ts"],
  },
  {
    name: "a copied check's guard row is deleted at once",
    file: "src/services/checks/archive.ts",
    from: "svc.db.update(checks).set({ posture: null, archivedAt: svc.clock.now() }).where(eq(checks.id, recorded.id))",
    to: "svc.db.delete(checks).where(eq(checks.id, recorded.id))",
    tests: ["test/cron/check-archive.test.ts"],
  },
  {
    name: "a check with diffs is copied without them (the quiet path taken for every check)",
    file: "src/services/checks/run-check.ts",
    from: "changes.length === 0 ? recorded : undefined",
    to: "recorded",
    tests: ["test/cron/check-archive.test.ts"],
  },
  {
    name: "a redelivered check is not looked up in the domain's object",
    file: "src/services/checks/run-check.ts",
    from: `  if (held.length > 0) return { recorded: false, reason: "duplicate" };\n`,
    to: "",
    tests: ["test/cron/check-archive.test.ts"],
  },
  {
    name: "the checks-archive job dropped from the every-minute cron",
    file: "src/cron/index.ts",
    from: `    { name: "checks-archive", run: (svc) => sweepCheckArchive(svc) },\n`,
    to: "",
    tests: ["test/cron/check-archive.test.ts"],
  },
  {
    name: "the webhook streak's D1 write ignores the seq (a late, older write wins)",
    file: "src/services/webhooks/outcome.ts",
    from: "const where = and(eq(webhookEndpoints.id, e.id), lt(webhookEndpoints.statsSeq, s.seq));",
    to: "const where = and(eq(webhookEndpoints.id, e.id), lt(webhookEndpoints.statsSeq, s.seq + 1_000_000));",
    tests: ["test/services/team-webhooks.test.ts"],
  },
  {
    name: "fan-out leaves the outbox row behind",
    file: "src/services/webhooks/fanout.ts",
    from: "await svc.db.delete(events).where(eq(events.id, event.id));",
    to: "",
    tests: ["test/services/team-webhooks.test.ts", "test/queues/deliveries.test.ts"],
  },
  {
    name: "the team log's alarm re-sends nothing",
    file: "src/durable-objects/team-webhooks/object.ts",
    from: "if (swept.length > 0) await this.resend(swept);",
    to: "",
    tests: ["test/cron/webhooks-sweeps.test.ts"],
  },
  {
    name: "deleting an endpoint keeps its deliveries in the team log",
    file: "src/services/webhooks/endpoints.ts",
    from: "await teamLog(svc, { id: teamId }).deleteEndpoint(id);",
    to: "",
    tests: ["test/services/team-webhooks.test.ts"],
  },
  {
    name: "re-enabling an endpoint keeps the team log's failure streak",
    file: "src/durable-objects/team-webhooks/streaks.ts",
    from: `else if (change === "reset") next = { ...current, failureCount: 0, disable: null };`,
    to: `else if (change === "reset") next = { ...current };`,
    tests: ["test/services/team-webhooks.test.ts"],
  },
  {
    name: "a DMARC report without any <record> is accepted",
    file: "src/core/reports/builder.ts",
    from: "if (this.records === 0) return err(",
    to: "if (this.records < 0) return err(",
    tests: ["test/routes/ingest/validation.test.ts", "test/email/email.test.ts"],
  },
  {
    name: "removing a member keeps the tokens they made",
    file: "src/services/accounts/members.ts",
    from: "    revokeMemberTokens(svc, teamId, userId),\n",
    to: "",
    tests: ["test/pages/member-credentials.test.ts"],
  },
  {
    name: "making an admin a viewer keeps the tokens they made",
    file: "src/services/accounts/members.ts",
    from: ", revokeMemberTokens(svc, signedIn.teamId, userId)]",
    to: "]",
    tests: ["test/pages/member-credentials.test.ts"],
  },
  {
    name: "a departed member's tokens stay cached in the isolate that removed them",
    file: "src/services/credentials/member-credentials.ts",
    from: "  forgetVerifiedTokens({ teamId });\n",
    to: "",
    tests: ["test/pages/member-credentials.test.ts"],
  },
  {
    name: "a departed member's agent grants are kept",
    file: "src/services/credentials/member-credentials.ts",
    from: "await revokeGrantsOnTeam(oauth, userId, teamId);",
    to: "void revokeGrantsOnTeam;",
    tests: ["test/pages/member-credentials.test.ts"],
  },
  {
    name: "a member's agent grants on another team are revoked with this one",
    file: "src/services/credentials/grant-store.ts",
    from: "if (meta.teamId !== teamId) continue;",
    to: "",
    tests: ["test/pages/member-credentials.test.ts"],
  },
  {
    name: "a viewer revokes another member's agent grant",
    file: "src/services/agents/grants.ts",
    from: `const seesEveryGrant = (signedIn: SignedIn) => signedIn.role !== "viewer";`,
    to: "const seesEveryGrant = (_signedIn: SignedIn) => true;",
    tests: ["test/pages/member-credentials.test.ts"],
  },
  {
    name: "the owner sees only their own agent grants",
    file: "src/services/agents/grants.ts",
    from: "return seesEveryGrant(signedIn) ? all : all.filter(",
    to: "return all.filter(",
    tests: ["test/pages/member-credentials.test.ts"],
  },
  {
    name: "a token made in the dashboard does not record its member",
    file: "src/services/teams/tokens.ts",
    from: `createdByUserId: maker === "operator" ? null : maker.memberId,`,
    to: "createdByUserId: null,",
    tests: ["test/pages/member-credentials.test.ts"],
  },
  {
    name: "a deleted team's tokens stay cached in the isolate that deleted it",
    file: "src/services/accounts/members.ts",
    from: "await afterCredentialsRevoked(svc, signedIn.teamId, memberIds);",
    to: "",
    tests: ["test/pages/member-credentials.test.ts"],
  },
  {
    name: "a replayed rotated refresh token is refused without revoking its grant",
    file: "src/mcp/refresh-reuse.ts",
    from: "await deps.helpers().revokeGrant(grantId, userId);",
    to: "",
    tests: ["test/mcp/oauth-hardening.test.ts"],
  },
  {
    name: "a refresh token is not remembered before it is rotated out",
    file: "src/mcp/refresh-reuse.ts",
    from: "await remember(hash, now);\n    return deps.pass(request);",
    to: "return deps.pass(request);",
    tests: ["test/mcp/oauth-hardening.test.ts"],
  },
  {
    name: "the previous refresh token is a retry however late it comes",
    file: "src/mcp/refresh-reuse.ts",
    from: "now - retired.at <= REFRESH_RETRY_GRACE_SECONDS",
    to: "true",
    tests: ["test/mcp/oauth-hardening.test.ts"],
  },
  {
    name: "the token minted by a retried refresh is forgotten",
    file: "src/mcp/refresh-reuse.ts",
    from: "if (response.ok && grant.refreshTokenId) await remember(grant.refreshTokenId, 0);",
    to: "",
    tests: ["test/mcp/oauth-hardening.test.ts"],
  },
  {
    name: "the refresh reuse guard unplugged from the token endpoint",
    file: "src/mcp/gateway.ts",
    from: `if (pathname === TOKEN_PATH && request.method === "POST") {`,
    to: "if (false) {",
    tests: ["test/mcp/oauth-hardening.test.ts"],
  },
  {
    name: "client registration is not throttled per client address",
    file: "src/mcp/registration-limits.ts",
    from: "if (decision.blocked) {",
    to: "if (false) {",
    tests: ["test/mcp/oauth-hardening.test.ts"],
  },
  {
    name: "a registration body is read uncapped",
    file: "src/mcp/registration-limits.ts",
    from: "body = await readBodyCapped(request, REGISTRATION_MAX_BYTES);",
    to: "body = new Uint8Array(await request.arrayBuffer());",
    tests: ["test/mcp/oauth-hardening.test.ts"],
  },
  {
    name: "client metadata past its caps is registered",
    file: "src/mcp/gateway.ts",
    from: "clientRegistrationCallback: checkClientMetadata,",
    to: "",
    tests: ["test/mcp/oauth-hardening.test.ts"],
  },
  {
    name: "registered clients keep the provider's 90-day lifetime",
    file: "src/mcp/gateway.ts",
    from: "clientRegistrationTTL: CLIENT_REGISTRATION_TTL_SECONDS,",
    to: "",
    tests: ["test/mcp/oauth-hardening.test.ts"],
  },
  {
    name: "third-party text of a tool result is written into its prose",
    file: "src/mcp/kit.ts",
    from: "if (!def.untrusted) return {",
    to: "if (def) return {",
    tests: ["test/mcp/untrusted-text.test.ts"],
  },
  {
    name: "an agent tool's unexpected failure answers with the exception's text",
    file: "src/mcp/kit.ts",
    from: `message: "Internal error.", request_id: call.requestId`,
    to: "message: String(error), request_id: call.requestId",
    tests: ["test/mcp/internal-errors.test.ts"],
  },
  {
    name: "the agent endpoint's 500 answers without its request id",
    file: "src/mcp/handler.ts",
    from: `return jsonRpcError(500, -32603, "Internal error.", { "x-request-id": requestId });`,
    to: `return jsonRpcError(500, -32603, "Internal error.");`,
    tests: ["test/mcp/internal-errors.test.ts"],
  },
  {
    name: "copies of a report all replay its D1 step (the object's summarising lease is never held)",
    file: "src/durable-objects/domain-store/object.ts",
    from: "if (held !== undefined && now - held < SUMMARY_LEASE_MS) return false;",
    to: "if (held !== undefined && now - held < 0) return false;",
    tests: ["test/routes/ingest/concurrent-copies.test.ts"],
  },
  {
    name: "a failed D1 step keeps the report's summarising lease",
    file: "src/services/dmarc/store.ts",
    from: `await object.releaseSummary("dmarc", stored.ref).catch(() => undefined);`,
    to: "",
    tests: ["test/routes/ingest/concurrent-copies.test.ts"],
  },
  {
    name: "the report-summaries cron job sweeps nothing",
    file: "src/cron/index.ts",
    from: `run: (svc) => sweepUnsummarised(svc)`,
    to: "run: async () => undefined",
    tests: ["test/cron/report-summaries.test.ts"],
  },
  {
    name: "a DMARC report's due row is not written before the object write",
    file: "src/services/dmarc/store.ts",
    from: "await markDue(svc, due, now);",
    to: "",
    tests: ["test/cron/report-summaries.test.ts"],
  },
  {
    name: "a TLS report's due row is not written before the object write",
    file: "src/services/tls-reports/store.ts",
    from: "await markDue(svc, due, now);",
    to: "",
    tests: ["test/cron/report-summaries.test.ts"],
  },
  {
    name: "the summarising batch leaves the report's due row",
    file: "src/services/dmarc/store.ts",
    from: `dueDone(db, { domainId: target.id, kind: "dmarc", orgName: m.orgName, reportId: m.reportId }),`,
    to: "",
    tests: ["test/cron/report-summaries.test.ts"],
  },
  {
    name: "a body past its cap is left half read (cancelled, not drained)",
    file: "src/lib/body.ts",
    from: "await discardRest(reader, DRAIN_MAX_BYTES - total);",
    to: "await reader.cancel().catch(() => undefined);",
    tests: ["test/security/body-cap.test.ts"],
  },
  {
    name: "a page's metering admits what the limiter refused",
    file: "src/pages/meter.ts",
    from: "if (decision.allowed) return;",
    to: "return;",
    tests: ["test/pages/metering.test.ts"],
  },
  {
    name: "a session meters its team under another plan's limits",
    file: "src/services/accounts/sessions.ts",
    from: "teamPlan: current.plan,",
    to: 'teamPlan: "enterprise",',
    tests: ["test/pages/metering.test.ts"],
  },
  {
    name: "the DKIM lookup page is not metered",
    file: "src/pages/dkim-tools.tsx",
    from: "const values = { domain, selectors };\n    await meterPage(c, s);",
    to: "const values = { domain, selectors };",
    tests: ["test/pages/metering.test.ts"],
  },
  {
    name: "the DKIM verify page is not metered",
    file: "src/pages/dkim-tools.tsx",
    from: '    await meterPage(c, s);\n    const message = form.get("message") ?? "";',
    to: '    const message = form.get("message") ?? "";',
    tests: ["test/pages/metering.test.ts"],
  },
  {
    name: "the DKIM key generation page is not metered",
    file: "src/pages/dkim-tools.tsx",
    from: "    await meterPage(c, s);\n    const values = { gen_domain:",
    to: "    const values = { gen_domain:",
    tests: ["test/pages/metering.test.ts"],
  },
  {
    name: "the intel page is not metered",
    file: "src/pages/intel.tsx",
    from: "if (domain === undefined) return page(c, {});\n    await meterPage(c, s);",
    to: "if (domain === undefined) return page(c, {});",
    tests: ["test/pages/metering.test.ts"],
  },
  {
    name: "the address check page is not metered",
    file: "src/pages/intel.tsx",
    from: '    await meterPage(c, s);\n    const raw = form.get("emails") ?? "";',
    to: '    const raw = form.get("emails") ?? "";',
    tests: ["test/pages/metering.test.ts"],
  },
  {
    name: "check now on the domain page is not metered",
    file: "src/pages/domain-page.tsx",
    from: "    await meterPage(c, s);\n    await requestCheck(",
    to: "    await requestCheck(",
    tests: ["test/pages/metering.test.ts"],
  },
  {
    name: "verifying a domain on its page is not metered",
    file: "src/pages/domains-new.tsx",
    from: "await meterPage(c, s);",
    to: "",
    tests: ["test/pages/metering.test.ts"],
  },
  {
    name: "a report upload on the DMARC page is not metered",
    file: "src/pages/dmarc.tsx",
    from: "await meterPage(c, s);",
    to: "",
    tests: ["test/pages/metering.test.ts"],
  },
  {
    name: "adding a webhook endpoint on its page is not metered",
    file: "src/pages/webhooks.tsx",
    from: "await meterPage(c, s);",
    to: "",
    tests: ["test/pages/metering.test.ts"],
  },
  {
    name: "a test event from the endpoint page is not metered",
    file: "src/pages/webhooks-endpoint.tsx",
    from: "    await meterPage(c, s);\n    await sendTest(",
    to: "    await sendTest(",
    tests: ["test/pages/metering.test.ts"],
  },
  {
    name: "a redelivery from the delivery page is not metered",
    file: "src/pages/webhooks-endpoint.tsx",
    from: "    await meterPage(c, s);\n    await redeliver(",
    to: "    await redeliver(",
    tests: ["test/pages/metering.test.ts"],
  },
  {
    name: "links take the request's Host when SITE_URL is empty outside development",
    file: "src/config.ts",
    from: "if (!config.devOutbox) return null;",
    to: "if (!config.devOutbox) return new URL(requestUrl).origin;",
    tests: ["test/pages/site-url.test.ts"],
  },
  {
    name: "local development takes any Host, not only a loopback one",
    file: "src/config.ts",
    from: "return LOOPBACK_HOSTS.has(url.hostname) ? url.origin : null;",
    to: "return url.origin;",
    tests: ["test/pages/site-url.test.ts"],
  },
  {
    name: "the refusal for a missing SITE_URL leaves no log line",
    file: "src/pages/frame.ts",
    from: "  console.error(\n",
    to: "  (() => undefined)(\n",
    tests: ["test/pages/site-url.test.ts"],
  },
  {
    name: "a token is issued before the page knows it can show its curl line",
    file: "src/pages/tokens.tsx",
    from: '    const origin = siteOrigin(c);\n    const issued = await createTeamToken(svc, s.ctx, { name: form.get("name") ?? "", scope });',
    to: '    const issued = await createTeamToken(svc, s.ctx, { name: form.get("name") ?? "", scope });\n    const origin = siteOrigin(c);',
    tests: ["test/pages/site-url.test.ts"],
  },
  {
    name: "responses leave the entry point without the security headers",
    file: "src/index.ts",
    from: "withSecurityHeaders(\n      request,",
    to: "((_: Request, res: Response) => res)(\n      request,",
    tests: ["test/security/security-headers.test.ts"],
  },
  {
    name: "HSTS is sent over plain http",
    file: "src/middleware/security-headers.ts",
    from: 'if (https) headers.set("Strict-Transport-Security", HSTS);',
    to: 'headers.set("Strict-Transport-Security", HSTS);',
    tests: ["test/security/security-headers.test.ts"],
  },
  {
    name: "HSTS is never sent",
    file: "src/middleware/security-headers.ts",
    from: 'if (https) headers.set("Strict-Transport-Security", HSTS);',
    to: "",
    tests: ["test/security/security-headers.test.ts"],
  },
  {
    name: "the sign-in throttle counts each +tag spelling as its own inbox",
    file: "src/services/accounts/links.ts",
    from: "sha256Hex(inboxOf(email))",
    to: "sha256Hex(email)",
    tests: ["test/pages/sign-in-throttle.test.ts"],
  },
  {
    name: "a refused report upload is an error page again, not said on the form",
    file: "src/pages/dmarc.tsx",
    from: "if (e instanceof ApiError && (e.status === 413 || e.status === 422)) return e;",
    to: "if (e instanceof ApiError && e.status === 413) return e;",
    tests: ["test/pages/customer-view.test.ts"],
  },
  {
    name: "the webhook form starts with no event ticked",
    file: "src/pages/webhooks.tsx",
    from: "new Set(kept?.events ?? DEFAULT_EVENTS)",
    to: "new Set(kept?.events ?? [])",
    tests: ["test/pages/customer-view.test.ts"],
  },
  {
    name: "the domain page's self-refresh keeps the one-time verified flag",
    file: "src/pages/domain-page.tsx",
    from: 'q.verified === "1" || q.checked === "1" ? "?checked=1" : ""',
    to: 'q.verified === "1" ? "?verified=1" : q.checked === "1" ? "?checked=1" : ""',
    tests: ["test/pages/customer-view.test.ts"],
  },
  {
    name: "the queued check's notice shows its internal id",
    file: "src/pages/domain-page.tsx",
    // biome-ignore lint/suspicious/noTemplateCurlyInString: the source text a mutation replaces, not a template
    from: "is queued (since ${when(pending.queued_at)})",
    // biome-ignore lint/suspicious/noTemplateCurlyInString: the source text a mutation replaces, not a template
    to: "is queued (${pending.check_id}, since ${when(pending.queued_at)})",
    tests: ["test/pages/customer-view.test.ts"],
  },
  {
    name: "a check's record diff is listed beside its tag diffs",
    file: "src/pages/domain-changes.tsx",
    from: "const named = specific.length > 0 ? specific : g;",
    to: "const named = g;",
    tests: ["test/pages/chart-and-change-parts.test.ts", "test/pages/customer-view.test.ts"],
  },
  {
    name: "drift alert titles name the field instead of saying the change",
    file: "src/services/checks/changes.ts",
    // biome-ignore lint/suspicious/noTemplateCurlyInString: the source text a mutation replaces, not a template
    from: "title: `${changeSentence(c.category, c.field, fieldText(c.before), fieldText(c.after))} on ${ctx.domain.name}`,",
    // biome-ignore lint/suspicious/noTemplateCurlyInString: the source text a mutation replaces, not a template
    to: "title: `${c.category} ${c.field} changed on ${ctx.domain.name}`,",
    tests: ["test/pages/customer-view.test.ts"],
  },
  {
    name: "/favicon.ico is a 404 again",
    file: "src/pages/assets/serve.ts",
    from: 'r.get("/favicon.ico", ',
    to: 'r.get("/favicon.ico.unused", ',
    tests: ["test/pages/customer-view.test.ts"],
  },
  {
    name: "'Check your email' no longer names the address",
    file: "src/pages/sign-in.tsx",
    from: '<strong class="break">{email}</strong>',
    to: '<strong class="break">that address</strong>',
    tests: ["test/pages/customer-view.test.ts"],
  },
  {
    name: "plan: a domain not monitored gets DMARC records without rua again",
    file: "src/core/posture/plan/build.ts",
    from: "reportRua: options.dmarcRua ?? ownRua,",
    to: "reportRua: options.dmarcRua ?? null,",
    tests: ["test/plan/plan-proof.test.ts"],
  },
  {
    name: "plan: an SPF include loop below the top is not found",
    file: "src/core/posture/plan/spf-steps.ts",
    from: 'n.terms.some((t) => t.note === "loop" || broken(t.child, depth + 1))',
    to: "n.terms.some((t) => broken(t.child, depth + 1))",
    tests: ["test/plan/plan-proof.test.ts"],
  },
  {
    name: "plan: a domain without SPF gets no step",
    file: "src/core/posture/plan/spf-steps.ts",
    from: 'targets: ["spf.none"],',
    to: "targets: [],",
    tests: ["test/plan/plan-proof.test.ts"],
  },
  {
    name: "plan: an SPF syntax error gets no step",
    file: "src/core/posture/plan/spf-steps.ts",
    from: 'cur.rules.has("spf.syntax") && spf.record',
    to: 'cur.rules.has("spf.syntax-unused") && spf.record',
    tests: ["test/plan/plan-proof.test.ts"],
  },
  {
    name: "plan: a/mx terms without addresses stay in SPF",
    file: "src/core/posture/plan/spf-steps.ts",
    from: 'targets: ["spf.void-lookup"],',
    to: "targets: [],",
    tests: ["test/plan/plan-proof.test.ts"],
  },
  {
    name: "plan: flattening stops at 10 lookups, one include from permerror",
    file: "src/core/posture/plan/spf-steps.ts",
    from: "maxLookups: 7 }",
    to: "maxLookups: 10 }",
    tests: ["test/plan/plan-proof.test.ts"],
  },
  {
    name: "plan: a parked domain's p=reject without rua is dropped, leaving no DMARC",
    file: "src/core/posture/plan/other-steps.ts",
    from: ', ...(noRua ? ["dmarc.rua-missing"] : [])],',
    to: "],",
    tests: ["test/plan/plan-proof.test.ts"],
  },
  {
    name: "spf flattening: an include's networks keep what an earlier -ip4 of its record excluded",
    file: "src/core/spf/flatten-pass-set.ts",
    from: "const rest = subtract(set, denied);",
    to: "const rest = set;",
    tests: ["src/core/spf/flatten.test.ts", "src/core/spf/flatten.property.test.ts"],
  },
  {
    name: "spf flattening: a ~include becomes pass networks",
    file: "src/core/spf/flatten.ts",
    from: 'if (item.kind === "net") out.push({ kind: "net", qualifier: t.qualifier, set: item.set });',
    to: 'if (item.kind === "net") out.push({ kind: "net", qualifier: "+", set: item.set });',
    tests: ["src/core/spf/flatten.test.ts", "src/core/spf/flatten.property.test.ts"],
  },
  {
    name: "spf flattening: networks under different qualifiers merged",
    file: "src/core/spf/flatten-build.ts",
    from: 'else if (last?.kind === "run" && last.qualifier === p.qualifier)',
    to: 'else if (last?.kind === "run")',
    tests: ["src/core/spf/flatten.property.test.ts"],
  },
  {
    name: "spf flattening: an include dropped across a non-pass term",
    file: "src/core/spf/flatten.ts",
    from: 'm.state === "drop" || (isMech(m.term) && m.term.qualifier === "+" && m.term.name !== "all")',
    to: 'm.state === "drop" || (isMech(m.term) && m.term.name !== "all")',
    tests: ["src/core/spf/flatten.test.ts"],
  },
  {
    name: "spf flattening: the include chain's lookups not counted",
    file: "src/core/spf/flatten.ts",
    from: "const withChain = { ...counts, lookups: counts.lookups + built.chains.length };",
    to: "const withChain = { ...counts, lookups: counts.lookups };",
    tests: ["src/core/spf/flatten.test.ts", "src/core/spf/flatten.property.test.ts"],
  },
  {
    name: "spf flattening: an include loop is flattened instead of refused",
    file: "src/core/spf/flatten-blockers.ts",
    from: 'if (t.note === "loop")',
    to: "if (false)",
    tests: ["src/core/spf/flatten.test.ts"],
  },
  {
    name: "plan: a check stores no remediation plan",
    file: "src/services/checks/run-check.ts",
    from: "    : await buildRemediationPlan({ analysis, options, evidence });",
    to: "    : null;",
    tests: ["test/pages/domains.test.ts", "test/routes/dmarc/plan-record.test.ts"],
  },
  {
    name: "plan: the projection ignores the step's records",
    file: "src/core/posture/plan/build.ts",
    from: "resolver: overlayResolver(options.resolver, nextEdits),",
    to: "resolver: options.resolver,",
    tests: ["src/core/posture/plan/plan.test.ts"],
  },
  {
    name: "plan: the DMARC view gives a record of its own instead of the plan's",
    file: "src/services/dmarc/analytics.ts",
    from: 'const planned = (await latestPosture(svc, domain))?.plan?.steps.find((s) => s.category === "dmarc")?.records[0]?.value;',
    to: "const planned = undefined as string | undefined;",
    tests: ["test/routes/dmarc/plan-record.test.ts"],
  },
  {
    name: "plan: a provider's change to a flattened include raises no alert",
    file: "src/services/checks/run-check.ts",
    from: "...inventory.alerts, ...flattening.changes.map((c) => flattenedAlert(ctx, c))]",
    to: "...inventory.alerts]",
    tests: ["test/queues/flattened-watch.test.ts"],
  },
  {
    name: "plan: a published flattening is never watched",
    file: "src/services/checks/run-check.ts",
    from: "inventory.stale ? null : dkimStatus, remediation, flattening.watch);",
    to: "inventory.stale ? null : dkimStatus, remediation, []);",
    tests: ["test/queues/flattened-watch.test.ts"],
  },
  {
    name: "plan: a parked domain is told to set up DKIM",
    file: "src/core/posture/plan/build.ts",
    from: "if (!cur.parts.mx.nullMx) await tryStep(dkimSetupStep(dkim, domain), true);",
    to: "await tryStep(dkimSetupStep(dkim, domain), true);",
    tests: ["src/core/posture/plan/plan.test.ts"],
  },
  {
    name: "dkim: the common generic selectors are tried after every provider's",
    file: "src/core/dkim/selectors.ts",
    from: "...first, ...COMMON_SELECTORS, ...PROVIDERS.flatMap((e) => e.selectors), ...GENERIC_SELECTORS",
    to: "...first, ...PROVIDERS.flatMap((e) => e.selectors), ...GENERIC_SELECTORS",
    tests: ["test/queues/dkim-common-selectors.test.ts"],
  },
  {
    name: "notify: openings of one burst hold each other back by the cooldown",
    file: "src/services/notify/route.ts",
    from: "nowMs - rule.cooldownMinutes * 60_000 && cd.messageId !== messageId) {",
    to: "nowMs - rule.cooldownMinutes * 60_000) {",
    tests: ["test/notify/pipeline.test.ts"],
  },
  {
    name: "notify: a resolve is sent where its opening was held back",
    file: "src/services/notify/route.ts",
    // Both guards (a held-back item has no message either), so the mutation is not an equivalent one.
    from: `          eq(notificationItems.suppressed, false),
          isNotNull(notificationItems.messageId),`,
    to: "",
    tests: ["test/notify/pipeline.test.ts"],
  },
  {
    name: "notify: an email retry mails again those already sent",
    file: "src/services/notify/send.ts",
    from: "if (done.has(r.address)) continue;",
    to: "",
    tests: ["test/notify/email-channel.test.ts"],
  },
  {
    name: "notify: a burst over many domains pages once per domain",
    file: "src/services/notify/send.ts",
    from: "const merged = byDomain.size > PD_MAX_INCIDENTS_PER_MESSAGE;",
    to: "const merged = false;",
    tests: ["test/notify/pipeline.test.ts"],
  },
  {
    name: "notify: an early send message is dropped",
    file: "src/services/notify/send.ts",
    from: "if (due === null || due <= now + EARLY_TOLERANCE_MS) return;",
    to: "return;",
    tests: ["test/notify/pipeline.test.ts"],
  },
  {
    name: "audit: a domain's creation leaves no entry",
    file: "src/services/domains/create-domain.ts",
    from: "await commit(svc, [insert, entry, event.statement], ([rows])",
    to: "await commit(svc, [insert, event.statement], ([rows])",
    tests: ["test/services/audit-wiring.test.ts"],
  },
  {
    name: "audit: a domain's entry written in a batch of its own, before the insert",
    file: "src/services/domains/create-domain.ts",
    from: "const [inserted] = await commit(svc, [insert, entry, event.statement], ([rows])",
    to: "await commit(svc, [entry]);\n    const [inserted] = await commit(svc, [insert, event.statement], ([rows])",
    tests: ["test/services/audit-wiring.test.ts"],
  },
  {
    name: "audit: an alert resolve records without the update's guard",
    file: "src/services/alerts/resolve-alert.ts",
    // biome-ignore lint/suspicious/noTemplateCurlyInString: the source text a mutation replaces, not a template
    from: "{ when: sql`EXISTS (SELECT 1 FROM alerts WHERE id = ${a.id} AND resolved_at IS NULL)` },",
    to: "{},",
    tests: ["test/services/audit-wiring.test.ts"],
  },
  {
    name: "audit: a plan change to the same plan is recorded",
    file: "src/services/teams/teams.ts",
    // biome-ignore lint/suspicious/noTemplateCurlyInString: the source text a mutation replaces, not a template
    from: "{ when: sql`EXISTS (SELECT 1 FROM teams WHERE id = ${teamId} AND plan <> ${plan})` },",
    to: "{},",
    tests: ["test/services/audit-wiring.test.ts"],
  },
  {
    name: "audit: a webhook endpoint's full URL (path and query) in its entry",
    file: "src/services/webhooks/create-endpoint.ts",
    // biome-ignore lint/suspicious/noTemplateCurlyInString: the source text a mutation replaces, not a template
    from: "summary: `endpoint ${urlForAudit(url)} events:",
    // biome-ignore lint/suspicious/noTemplateCurlyInString: the source text a mutation replaces, not a template
    to: "summary: `endpoint ${url} events:",
    tests: ["test/services/audit-wiring.test.ts"],
  },
  {
    name: "marks: RSASSA-PSS signatures answered cannot tell",
    file: "src/core/bimi/mark/signature.ts",
    from: "if (sigOid === RSASSA_PSS) return verifyPss(child, issuer);",
    to: 'if (sigOid === RSASSA_PSS) return { ok: null, reason: "not supported" };',
    tests: ["src/core/bimi/mark/pss.test.ts"],
  },
  {
    name: "marks: the PSS salt length the certificate states is ignored",
    file: "src/core/bimi/mark/signature.ts",
    from: 'crypto.subtle.verify({ name: "RSA-PSS", saltLength: params.saltLength }',
    to: 'crypto.subtle.verify({ name: "RSA-PSS", saltLength: 32 }',
    tests: ["src/core/bimi/mark/pss.test.ts"],
  },
  {
    name: "marks: an intermediate's pathLenConstraint is not enforced",
    file: "src/core/bimi/mark/chain.ts",
    from: "const tooLong = pathLengthProblem(issuer, path);",
    to: "const tooLong = null as string | null;",
    tests: ["src/core/bimi/mark/path-length.test.ts"],
  },
  {
    name: "marks: an unrecognised critical extension is accepted",
    file: "src/core/bimi/mark/profile.ts",
    from: "if (unknown.length > 0) problems.push(",
    to: "if (unknown.length > 99) problems.push(",
    tests: ["src/core/bimi/mark/critical-extension.test.ts"],
  },
  {
    name: "sso: a domain verification that lost the race is still recorded",
    file: "src/services/sso/domains.ts",
    from: "{ when: sql`changes() > 0` },",
    to: "{},",
    tests: ["test/routes/sso/sign-in.test.ts"],
  },
  {
    name: "bimi hosting: an informational certificate check fails the Gmail row",
    file: "src/services/bimi-hosting/gmail.ts",
    from: "const failing = c.checks.filter((x) => x.ok === false && x.blocking);",
    to: "const failing = c.checks.filter((x) => x.ok === false);",
    tests: ["test/routes/bimi-hosting/gmail.test.ts", "test/pages/bimi-hosting.test.ts"],
  },
  {
    name: "sso: the callback ignores the authorization response's iss (mix-up)",
    file: "src/services/sso/sign-in.ts",
    from: "if (iss === null ? endpoints.iss_parameter === true : iss !== issuer) {",
    to: "if (iss === 'never') {",
    tests: ["test/routes/sso/mix-up.test.ts"],
  },
  {
    name: "sso: turning enforcement on keeps the covered members' sessions",
    file: "src/services/sso/settings.ts",
    from: "...(turningOn ? [endCoveredSessions(svc, teamId, now)] : []),",
    to: "...(turningOn && false ? [endCoveredSessions(svc, teamId, now)] : []),",
    tests: ["test/routes/sso/enforce-sessions.test.ts"],
  },
  {
    name: "mta-sts hosting: successes without an STS policy count for enforce",
    file: "src/services/mta-sts-hosting/evidence.ts",
    from: '.filter((p) => p.policy_type === "sts")',
    to: ".filter(() => true)",
    tests: ["test/routes/mta-sts-hosting/hosting.test.ts"],
  },
  {
    name: "mta-sts hosting: an unusable _mta-sts record reads as no record",
    file: "src/services/mta-sts-hosting/drift.ts",
    from: "(sts.id ?? UNUSABLE_ID)",
    to: "(sts.id ?? null)",
    tests: ["test/routes/mta-sts-hosting/posture.test.ts", "test/routes/mta-sts-hosting/retire.test.ts"],
  },
];

const args = process.argv.slice(2);
const flag = (name) => args.includes(name);
const onlyIdx = args.indexOf("--only");
const only = onlyIdx >= 0 ? (args[onlyIdx + 1] ?? "").split(",").map((s) => s.trim().toLowerCase()) : null;
const chosen = only ? MUTATIONS.filter((m) => only.some((o) => m.name.toLowerCase().includes(o))) : MUTATIONS;

if (flag("--list")) {
  for (const m of MUTATIONS) console.log(`${m.name}\n    ${m.file} -> ${m.tests.join(" ")}`);
  process.exit(0);
}
if (chosen.length === 0) {
  console.error("no mutation matches --only");
  process.exit(2);
}

/** The working copy: everything but node_modules, VCS data, local state and build output. */
function makeCopy() {
  const dir = mkdtempSync(join(tmpdir(), "mutation-"));
  const skip = new Set(["node_modules", ".git", ".wrangler", "dist", ".dev.vars"]);
  cpSync(ROOT, dir, {
    recursive: true,
    filter: (src) => {
      const rel = relative(ROOT, src);
      return rel === "" || !skip.has(rel.split("/")[0] ?? "");
    },
  });
  symlinkSync(join(ROOT, "node_modules"), join(dir, "node_modules"), "dir");
  return dir;
}

function runTests(dir, files) {
  const started = Date.now();
  const res = spawnSync(join(dir, "node_modules/.bin/vitest"), ["run", "--project", "workers", ...files], {
    cwd: dir,
    encoding: "utf8",
    env: { ...process.env, CI: "1", FORCE_COLOR: "0" },
    maxBuffer: 64 * 1024 * 1024,
  });
  return { ok: res.status === 0, seconds: (Date.now() - started) / 1000, output: `${res.stdout ?? ""}${res.stderr ?? ""}` };
}

const count = (text, part) => text.split(part).length - 1;

const dir = makeCopy();
let exitCode = 0;
try {
  // Every mutation must apply exactly once: a stale one (the source moved on) is an error, not a pass.
  for (const m of chosen) {
    const n = count(readFileSync(join(dir, m.file), "utf8"), m.from);
    if (n !== 1) throw new Error(`mutation "${m.name}": expected its text once in ${m.file}, found ${n} times`);
  }
  if (!flag("--no-baseline")) {
    const files = [...new Set(chosen.flatMap((m) => m.tests))];
    const base = runTests(dir, files);
    console.log(`baseline (no mutation): ${files.length} test files, ${base.ok ? "pass" : "FAIL"}, ${base.seconds.toFixed(0)} s`);
    if (!base.ok) {
      console.log(base.output.split("\n").slice(-60).join("\n"));
      throw new Error("the unmutated tests fail: fix them first (every mutation would look killed)");
    }
  }
  const rows = [];
  for (const m of chosen) {
    const path = join(dir, m.file);
    const original = readFileSync(path, "utf8");
    writeFileSync(path, original.replace(m.from, m.to));
    try {
      const r = runTests(dir, m.tests);
      rows.push({ name: m.name, files: m.tests.join(", "), killed: !r.ok, seconds: r.seconds });
      console.log(`${r.ok ? "SURVIVED" : "killed  "} ${m.name} (${r.seconds.toFixed(0)} s)`);
    } finally {
      writeFileSync(path, original);
    }
  }
  const w = Math.max(...rows.map((r) => r.name.length), 8);
  console.log(`\n${"mutation".padEnd(w)} | result   | seconds | files run`);
  console.log(`${"-".repeat(w)}-|----------|---------|----------`);
  for (const r of rows) console.log(`${r.name.padEnd(w)} | ${r.killed ? "killed  " : "SURVIVED"} | ${r.seconds.toFixed(0).padStart(7)} | ${r.files}`);
  const survived = rows.filter((r) => !r.killed);
  console.log(`\n${rows.length - survived.length} of ${rows.length} mutations killed.`);
  if (survived.length > 0) exitCode = 1;
} catch (error) {
  console.error(String(error instanceof Error ? error.message : error));
  exitCode = 2;
} finally {
  rmSync(dir, { recursive: true, force: true });
}
process.exit(exitCode);
