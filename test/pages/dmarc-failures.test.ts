// The DMARC failure samples page through the Worker's real fetch export: the empty state says how to ask
// for failure reports (ruf), a mailed report shows up without anything of the original message, pages
// of 25, the link from the DMARC page, viewers read it, another team's domain is a 404 page, signed out
// goes to sign-in.
import { env } from "cloudflare:workers";
import { describe, expect, it, vi } from "vitest";
import { receiveReportMail } from "../../src/email";
import { createServices } from "../../src/services";
import { insertFailure } from "../../src/services/failure-reports/store";
import { BODY_MARKER, dmarcFailureSample, ORIGINAL_SUBJECT } from "../fixtures/arf";
import { unique } from "../support/api";
import { Browser, signedInOwner } from "../support/browser";
import { insertDomain, type TestDomain } from "../support/factories";

const email = () => `${unique("df").toLowerCase()}@example.com`;

const signedIn = () => signedInOwner("df");

async function mail(d: TestDomain, ip: string) {
  const bytes = new TextEncoder().encode(dmarcFailureSample(d.address, d.name, { ip }));
  const setReject = vi.fn();
  const message = { from: "r@x.example", to: d.address, headers: new Headers(), raw: new Blob([bytes]).stream(), rawSize: bytes.length, setReject };
  await receiveReportMail(createServices(env), message as unknown as ForwardableEmailMessage);
  expect(setReject).not.toHaveBeenCalled();
}

describe("DMARC failure samples page", () => {
  it("sends a signed-out visitor to sign-in", async () => {
    const res = await new Browser().fetch("/domains/1/dmarc/failures");
    expect(res.status).toBe(303);
    expect(res.headers.get("location")).toBe(`/sign-in?next=${encodeURIComponent("/domains/1/dmarc/failures")}`);
  });

  it("without samples, says how to publish ruf to the report address; the DMARC page links to it", async () => {
    const { b, teamId } = await signedIn();
    const d = await insertDomain(teamId);
    const res = await b.fetch(`/domains/${d.id}/dmarc/failures`);
    expect(res.status).toBe(200);
    const html = await res.text();
    expect(html).toContain("Failure samples (0)");
    expect(html).toContain(`ruf=mailto:${d.address}; fo=1`);
    expect(await (await b.fetch(`/domains/${d.id}/dmarc`)).text()).toContain(`/domains/${d.id}/dmarc/failures`);
  });

  it("lists a mailed failure report without the original message, and pages past 25", async () => {
    const { b, teamId } = await signedIn();
    const d = await insertDomain(teamId);
    await mail(d, "203.0.113.77");
    const html = await (await b.fetch(`/domains/${d.id}/dmarc/failures`)).text();
    expect(html).toContain("203.0.113.77");
    expect(html).toContain("mail.big-receiver.example");
    expect(html).toContain("dkim, spf");
    expect(html).not.toContain(BODY_MARKER);
    expect(html).not.toContain(ORIGINAL_SUBJECT);
    expect(html).not.toContain("ruf=mailto:");
    const svc = createServices(env);
    const old = new Date(Date.now() - 60_000);
    for (let i = 0; i < 25; i++) {
      await insertFailure(
        svc,
        d.id,
        {
          reportingOrg: "r.example",
          arrivalDate: null,
          sourceIp: `198.51.100.${i + 1}`,
          authFailure: "spf",
          authResults: null,
          identityAlignment: null,
          dkimDomain: null,
          dkimSelector: null,
          deliveryResult: null,
        },
        old,
      );
    }
    const first = await (await b.fetch(`/domains/${d.id}/dmarc/failures`)).text();
    expect(first).toContain("Failure samples (26)");
    expect(first).toContain("Page 1 of 2");
    expect(first.indexOf("203.0.113.77")).toBeGreaterThan(-1);
    const second = await (await b.fetch(`/domains/${d.id}/dmarc/failures?page=2`)).text();
    expect(second).toContain("Page 2 of 2");
    expect(second).not.toContain("203.0.113.77");
    expect((await b.fetch(`/domains/${d.id}/dmarc/failures?page=0`)).status).toBe(422);
  });

  it("a viewer reads it; another team's domain is a 404 page", async () => {
    const { b: owner, teamId } = await signedIn();
    const d = await insertDomain(teamId);
    await mail(d, "203.0.113.88");
    const viewerEmail = email();
    expect((await owner.post("/team/invite", { email: viewerEmail, role: "viewer" }, "/team")).status).toBe(303);
    const viewer = new Browser();
    await viewer.openLatestLink(viewerEmail);
    expect(await (await viewer.fetch(`/domains/${d.id}/dmarc/failures`)).text()).toContain("203.0.113.88");
    const { b: other } = await signedIn();
    const res = await other.fetch(`/domains/${d.id}/dmarc/failures`);
    expect(res.status).toBe(404);
    expect(await res.text()).not.toContain("203.0.113.88");
  });
});
