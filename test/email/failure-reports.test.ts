// DMARC failure reports (RFC 9991, ARF of RFC 6591) mailed to a domain's report address, through the
// Worker's exported email handler: stored with only the fields docs/decisions.md D106 keeps, never the
// original message; refusals reach setReject with their reason and store nothing; 30-day retention.
import { createExecutionContext, runDurableObjectAlarm, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it, vi } from "vitest";
import { receiveReportMail } from "../../src/email";
import worker from "../../src/index";
import { DAY_MS } from "../../src/lib/time";
import { insertFailure } from "../../src/services/failure-reports/store";
import { arfMail, BODY_MARKER, dmarcFailureSample, ORIGINAL_RCPT, ORIGINAL_SUBJECT, rfc6591Sample } from "../fixtures/arf";
import { makeTeam } from "../support/api";
import { insertDomain, type TestDomain } from "../support/factories";
import { clockedServices } from "../support/monitoring";
import { objectRows, reportObject } from "../support/reports";

const enc = (s: string) => new TextEncoder().encode(s);

function runtimeMessage(to: string, raw: string) {
  const bytes = enc(raw);
  const message = {
    from: "arf-daemon@receiver.example",
    to,
    headers: new Headers(),
    raw: new ReadableStream<Uint8Array>({
      start(c) {
        c.enqueue(bytes);
        c.close();
      },
    }),
    rawSize: bytes.length,
    canBeForwarded: true,
    setReject: vi.fn<(reason: string) => void>(),
    forward: vi.fn(async () => ({ messageId: "<fwd@test>" })),
    reply: vi.fn(async () => ({ messageId: "<reply@test>" })),
  };
  return { message, asRuntime: message as unknown as ForwardableEmailMessage };
}

/** Delivers through worker.email as the runtime does; returns the reject reason, or null when accepted. */
async function deliver(to: string, raw: string): Promise<string | null> {
  const m = runtimeMessage(to, raw);
  const ctx = createExecutionContext();
  await worker.email(m.asRuntime, env, ctx);
  await waitOnExecutionContext(ctx);
  expect(m.message.forward).not.toHaveBeenCalled();
  return m.message.setReject.mock.calls[0]?.[0] ?? null;
}

/** The samples in the domain's report object, as stored (D127). */
const samples = (d: TestDomain) => objectRows(d.id, "SELECT * FROM failures ORDER BY id");

/** Every row of every table of the database and of the domain's report object, as text: what "stored anywhere" means. */
async function everything(d: TestDomain): Promise<string> {
  const tables = await env.DB.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name NOT LIKE '_cf_%'").all<{
    name: string;
  }>();
  const out: string[] = [];
  for (const t of tables.results) out.push(JSON.stringify((await env.DB.prepare(`SELECT * FROM "${t.name}"`).all()).results));
  const own = await objectRows<{ name: string }>(
    d.id,
    "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name NOT LIKE '_cf_%'",
  );
  for (const t of own) out.push(JSON.stringify(await objectRows(d.id, `SELECT * FROM "${t.name}"`)));
  return out.join("\n");
}

describe("DMARC failure reports by mail", () => {
  it("stores the RFC 6591 Appendix B sample with the fields it carries", async () => {
    const team = await makeTeam();
    const d = await insertDomain(team.id);
    expect(await deliver(d.address, rfc6591Sample(d.address, d.name))).toBeNull();
    const [row, ...rest] = await samples(d);
    expect(rest).toEqual([]);
    expect(row).toMatchObject({
      reporting_org: "example.com",
      arrival_date: Date.parse("2010-04-14T19:15:31Z"),
      source_ip: "192.0.2.1",
      auth_failure: "spf",
      auth_results: `mail.example.com; spf=fail smtp.mail=${d.name}`,
      identity_alignment: null,
      dkim_domain: null,
      dkim_selector: null,
      delivery_result: "spam",
    });
  });

  it("stores a report carrying the whole original message without any of it: no body, recipient, subject or sender anywhere", async () => {
    const team = await makeTeam();
    const d = await insertDomain(team.id);
    expect(await deliver(d.address, dmarcFailureSample(d.address, d.name))).toBeNull();
    const [row] = await samples(d);
    expect(row).toMatchObject({
      reporting_org: "mail.big-receiver.example",
      source_ip: "2001:db8::1",
      auth_failure: "dmarc",
      identity_alignment: "dkim, spf",
      dkim_domain: d.name,
      dkim_selector: "s2026",
      delivery_result: "delivered",
    });
    const all = await everything(d);
    for (const secret of [BODY_MARKER, ORIGINAL_RCPT, ORIGINAL_SUBJECT, `bounce@${d.name}`, `payroll@${d.name}`]) expect(all).not.toContain(secret);
  });

  it("accepts a report about a subdomain and refuses one about another domain, storing nothing", async () => {
    const team = await makeTeam();
    const d = await insertDomain(team.id);
    expect(await deliver(d.address, dmarcFailureSample(d.address, `mail.${d.name}`))).toBeNull();
    const reason = await deliver(d.address, dmarcFailureSample(d.address, "someone-else.example"));
    expect(reason).toMatch(/domain_mismatch/);
    expect(reason).toMatch(/someone-else\.example/);
    expect(reason).not.toMatch(/[\r\n]/);
    expect(await samples(d)).toHaveLength(1);
  });

  it("refuses what is not an auth-failure report, a report without a feedback part, a bad Source-IP; nothing stored", async () => {
    const team = await makeTeam();
    const d = await insertDomain(team.id);
    const abuse = arfMail(d.address, { fields: ["Feedback-Type: abuse", "Version: 1", `Reported-Domain: ${d.name}`] });
    expect(await deliver(d.address, abuse)).toMatch(/not_auth_failure/);
    expect(await deliver(d.address, arfMail(d.address, { fields: [], noFeedbackPart: true }))).toMatch(/no_feedback_part/);
    const badIp = dmarcFailureSample(d.address, d.name, { ip: "192.0.2.999" });
    expect(await deliver(d.address, badIp)).toMatch(/invalid_source_ip/);
    expect(await samples(d)).toEqual([]);
    expect(await everything(d)).not.toContain(BODY_MARKER);
  });

  it("refuses a report to an unverified domain and to an unknown address", async () => {
    const team = await makeTeam();
    const d = await insertDomain(team.id, { verified: false });
    expect(await deliver(d.address, dmarcFailureSample(d.address, d.name))).toMatch(/domain_not_verified/);
    expect(await deliver("nobody@reports.test", dmarcFailureSample("nobody@reports.test", d.name))).toMatch(/unknown recipient/i);
    expect(await samples(d)).toEqual([]);
  });

  it("counts failure reports against the address's daily report count, apart from aggregate reports", async () => {
    const team = await makeTeam("starter");
    const d = await insertDomain(team.id);
    const now = new Date();
    const svc = clockedServices(now);
    for (let i = 0; i < 200; i++) {
      await insertFailure(
        svc,
        d.id,
        {
          reportingOrg: "r.example",
          arrivalDate: null,
          sourceIp: null,
          authFailure: "dmarc",
          authResults: null,
          identityAlignment: null,
          dkimDomain: null,
          dkimSelector: null,
          deliveryResult: null,
        },
        now,
      );
    }
    expect(await deliver(d.address, dmarcFailureSample(d.address, d.name))).toMatch(/200 failure reports a day/);
    expect(await samples(d)).toHaveLength(200);
  });

  it("keeps samples 30 days: the object's maintenance (its daily alarm) deletes older ones only", async () => {
    const team = await makeTeam();
    const d = await insertDomain(team.id);
    const t = Date.now();
    const at = (ms: number) => {
      const m = runtimeMessage(d.address, dmarcFailureSample(d.address, d.name));
      return receiveReportMail(clockedServices(new Date(ms)), m.asRuntime).then(() => expect(m.message.setReject).not.toHaveBeenCalled());
    };
    await at(t - 31 * DAY_MS);
    await at(t - 29 * DAY_MS);
    expect((await reportObject(d.id).maintain(t)).failuresPurged).toBe(1);
    expect((await samples(d)).map((r) => r.received_at)).toEqual([t - 29 * DAY_MS]);
    // The first sample set the object's alarm, which runs the same maintenance.
    expect(await runDurableObjectAlarm(reportObject(d.id))).toBe(true);
    expect(await samples(d)).toHaveLength(1);
  });
});
