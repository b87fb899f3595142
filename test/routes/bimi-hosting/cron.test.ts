// The daily re-validation through the Worker's scheduled export (the "17 3 * * *" schedule): PayPal's VMC
// (valid to 2025-09-08T23:59:59Z) raises the expiry alert inside 30 days and, once past its end, the
// hosting alert too; a logo that stops matching its certificate raises the hosting alert, and fixing it
// resolves it. Each alert carries its subject per selector (docs/events.md).
import { createExecutionContext, createScheduledController, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { afterEach, describe, expect, it } from "vitest";
import worker from "../../../src/index";
import { DAILY } from "../../../src/cron";
import { call, makeTeam } from "../../support/api";
import { insertDomain } from "../../support/webhooks";
import { clearHosted, PLAIN_SVG, paypalPem, paypalSvg, pinClock } from "./support";

afterEach(clearHosted);

async function daily(at: string): Promise<void> {
  pinClock(Date.parse(at));
  const ctx = createExecutionContext();
  await worker.scheduled(createScheduledController({ cron: DAILY, scheduledTime: Date.parse(at) }), env, ctx);
  await waitOnExecutionContext(ctx);
}

type AlertRow = { kind: string; subject: string; severity: string; title: string; resolved_at: number | null };
const alertsOf = async (domainId: number) =>
  (await env.DB.prepare("SELECT kind, subject, severity, title, resolved_at FROM alerts WHERE domain_id = ? ORDER BY id").bind(domainId).all<AlertRow>())
    .results;

async function host(logo: string) {
  pinClock();
  const team = await makeTeam();
  const d = await insertDomain(team.id, { name: "paypal.com" });
  const put = (path: string, rawBody: string, type: string) =>
    call(`/api/v1/domains/${d.id}/bimi-hosting/${path}`, { method: "PUT", token: team.full, rawBody, headers: { "content-type": type } });
  expect((await put("logo", logo, "image/svg+xml")).status).toBe(200);
  expect((await put("certificate", paypalPem, "application/pem-certificate-chain")).status).toBe(200);
  return d;
}

describe("daily BIMI certificate re-validation", () => {
  it("warns 30 days before the VMC ends, then reports it expired and not valid", async () => {
    const d = await host(paypalSvg);
    await daily("2025-07-01T03:17:00Z");
    expect(await alertsOf(d.id)).toEqual([]);

    await daily("2025-08-20T03:17:00Z");
    const warned = await alertsOf(d.id);
    expect(warned).toEqual([expect.objectContaining({ kind: "expiry", subject: "bimi.certificate:default", severity: "Medium", resolved_at: null })]);
    expect(warned[0]?.title).toBe("The BIMI mark certificate of paypal.com expires in 20 days");

    await daily("2025-09-10T03:17:00Z");
    const expired = await alertsOf(d.id);
    expect(expired).toEqual([
      expect.objectContaining({ kind: "expiry", subject: "bimi.certificate:default", severity: "High", resolved_at: null }),
      expect.objectContaining({ kind: "hosting", subject: "bimi.mark:default", severity: "High", resolved_at: null }),
    ]);
    expect(expired[0]?.title).toMatch(/expired on 2025-09-08/);
    const row = await env.DB.prepare("SELECT mark_kind, certificate_not_after, validated_at FROM hosted_bimi WHERE domain_id = ?")
      .bind(d.id)
      .first<{ mark_kind: string; certificate_not_after: number; validated_at: number }>();
    expect(row).toEqual({ mark_kind: "VMC", certificate_not_after: Date.parse("2025-09-08T23:59:59Z"), validated_at: Date.parse("2025-09-10T03:17:00Z") });
  });

  it("raises the hosting alert for a logo that differs from the certificate's, and resolves it once the logo matches", async () => {
    const d = await host(PLAIN_SVG);
    // Raised by the upload itself; the cron keeps it open while nothing changes.
    await daily("2025-04-01T03:17:00Z");
    expect(await alertsOf(d.id)).toEqual([expect.objectContaining({ kind: "hosting", subject: "bimi.mark:default", resolved_at: null })]);
    // The stored logo is replaced behind the API's back (as a restore would): only the cron can notice.
    await env.DB.prepare("UPDATE hosted_bimi SET logo_svg = ? WHERE domain_id = ?").bind(paypalSvg, d.id).run();
    await daily("2025-04-02T03:17:00Z");
    const after = await alertsOf(d.id);
    expect(after).toHaveLength(1);
    expect(after[0]?.resolved_at).toBe(Date.parse("2025-04-02T03:17:00Z"));
  });
});
