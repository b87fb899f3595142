// The SMTP TLS page through the Worker's real fetch export, with reports ingested through the real
// HTTPS TLS-RPT intake: success rate, chart, failures by type with the advice and by MX host, the
// policies, the rua to publish (also in the empty state), the days selector and its 422s, the link from
// the domain page, a viewer reading it, another team's domain a 404 page, signed out sent to sign-in.
import { describe, expect, it } from "vitest";
import { unique } from "../support/api";
import { TLS_INTAKE_PATH } from "../../src/services/tls-reports/address";
import { Browser, ORIGIN, signedInOwner } from "../support/browser";
import { insertDomain } from "../support/factories";
import { enc, googleShape, intake, rfcExample } from "../routes/tls/fixtures";

const email = () => `${unique("tl").toLowerCase()}@example.com`;

const signedIn = () => signedInOwner("tl");

const send = async (token: string, report: unknown) => expect((await intake(token, enc(JSON.stringify(report)))).status).toBe(202);

describe("SMTP TLS page", () => {
  it("sends a signed-out visitor to sign-in", async () => {
    const res = await new Browser().fetch("/domains/1/tls?days=7");
    expect(res.status).toBe(303);
    expect(res.headers.get("location")).toBe(`/sign-in?next=${encodeURIComponent("/domains/1/tls?days=7")}`);
  });

  it("shows the empty state with the exact record and rua value to publish, linked from the domain page", async () => {
    const { b, teamId } = await signedIn();
    const d = await insertDomain(teamId);
    // The pages run with SITE_URL set (D148), so the fix proposes the HTTPS intake on it.
    const rua = `${ORIGIN}${TLS_INTAKE_PATH}/${d.reportToken}`;
    const res = await b.fetch(`/domains/${d.id}/tls`);
    expect(res.status).toBe(200);
    const html = await res.text();
    expect(html).toContain("No TLS reports arrived for this domain in this period.");
    expect(html).toContain(`_smtp._tls.${d.name}`);
    expect(html).toContain(`data-copy="v=TLSRPTv1; rua=${rua}"`);
    expect(html).toContain(`data-copy="${rua}"`);
    expect(html).toContain('<option value="30" selected="">Last 30 days</option>');
    expect(html).not.toContain("Failures by type");
    expect(await (await b.fetch(`/domains/${d.id}`)).text()).toContain(`href="/domains/${d.id}/tls"`);
  });

  it("shows reports ingested over HTTPS: rate, chart, failures with advice and MX hosts, policies, the rua; a viewer reads it too", async () => {
    const { b, teamId } = await signedIn();
    const d = await insertDomain(teamId);
    await send(d.reportToken, rfcExample(d.name));
    await send(d.reportToken, googleShape(d.name, 4371));
    const html = await (await b.fetch(`/domains/${d.id}/tls?days=7`)).text();
    // (5326 + 4371) of (5326 + 303 + 4371) sessions.
    expect(html).toContain("97.0%");
    expect(html).toContain("<strong>2</strong> reports from 2 organizations");
    expect(html).toContain("9,697 successful and 303 failed TLS sessions over 7 days.");
    expect(html).toContain('class="bar pass"');
    expect(html).toContain('class="bar fail"');
    expect(html).toContain("starttls-not-supported: 200 failed sessions");
    expect(html).toContain("certificate-expired: 100 failed sessions");
    expect(html).toContain("validation-failure: 3 failed sessions");
    expect(html).toContain(`mx1.mail.${d.name}`);
    expect(html).toContain("has expired");
    expect(html).toContain("Failures by MX host");
    expect(html).toContain(`mx-backup.mail.${d.name}`);
    expect(html).toContain("MTA-STS");
    expect(html).toContain("mode: enforce");
    expect(html).toContain("Where reports go");
    expect(html).toContain(`data-copy="v=TLSRPTv1; rua=${ORIGIN}${TLS_INTAKE_PATH}/${d.reportToken}"`);
    expect(html).toContain('<option value="7" selected="">Last 7 days</option>');

    const viewerEmail = email();
    expect((await b.post("/team/invite", { email: viewerEmail, role: "viewer" }, "/team")).status).toBe(303);
    const viewer = new Browser();
    await viewer.openLatestLink(viewerEmail);
    expect(await (await viewer.fetch(`/domains/${d.id}/tls`)).text()).toContain("certificate-expired: 100 failed sessions");
  });

  it("takes any period from 1 to 365 days and answers anything else with a 422 page that says why", async () => {
    const { b, teamId } = await signedIn();
    const d = await insertDomain(teamId);
    const custom = await (await b.fetch(`/domains/${d.id}/tls?days=45`)).text();
    expect(custom).toContain('<option value="45" selected="">Last 45 days</option>');
    expect((await b.fetch(`/domains/${d.id}/tls?days=1`)).status).toBe(200);
    expect((await b.fetch(`/domains/${d.id}/tls?days=365`)).status).toBe(200);
    for (const days of ["0", "366", "abc", "-1", "7.5", "1e2"]) {
      const res = await b.fetch(`/domains/${d.id}/tls?days=${days}`);
      expect(res.status, days).toBe(422);
      expect(await res.text()).toContain("That period is not valid: choose 1 to 365 days.");
    }
  });

  it("answers another team's domain, an unknown id and a malformed id with a 404 page", async () => {
    const { b: owner, teamId } = await signedIn();
    const d = await insertDomain(teamId);
    await send(d.reportToken, rfcExample(d.name));
    const { b: other } = await signedIn();
    const res = await other.fetch(`/domains/${d.id}/tls`);
    expect(res.status).toBe(404);
    const html = await res.text();
    expect(html).not.toContain(d.name);
    expect(html).not.toContain(d.reportToken);
    expect((await owner.fetch("/domains/999999999/tls")).status).toBe(404);
    expect((await owner.fetch("/domains/abc/tls")).status).toBe(404);
  });
});
