// The DMARC page through the Worker's real fetch export: chart, alignment, sources, advice and the
// suggested record, days selector, stored reports with their records, and the report upload through
// the ingestion verb (201 stored, 200 duplicate, 422 malformed or about another domain, 413 over the
// cap); viewers see no form and are refused; another team's domain is a 404 page; signed out goes to sign-in.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { unique } from "../support/api";
import { Browser, signedInOwner } from "../support/browser";
import { type DohStub, installDohStub } from "../support/doh-stub";
import { insertDomain } from "../support/factories";
import { day0, reportXml, stored } from "../support/reports";

let dns: DohStub;
beforeEach(() => {
  dns = installDohStub({});
});
afterEach(() => dns.restore());

const email = () => `${unique("dm").toLowerCase()}@example.com`;

const signedIn = () => signedInOwner("dm");

async function upload(b: Browser, domainId: number, content: string | Uint8Array, o: { csrf?: string | null; name?: string } = {}) {
  const form = new FormData();
  const csrf = o.csrf === undefined ? await b.csrf(`/domains/${domainId}/dmarc`) : o.csrf;
  if (csrf !== null) form.set("_csrf", csrf);
  form.set("report", new File([content], o.name ?? "report.xml", { type: "text/xml" }));
  const req = new Request("https://x.test", { method: "POST", body: form });
  return b.fetch(`/domains/${domainId}/dmarc/upload`, {
    method: "POST",
    body: new Uint8Array(await req.arrayBuffer()),
    headers: { "content-type": req.headers.get("content-type") ?? "" },
  });
}

const xmlFor = (name: string, reportId = unique("rid")) =>
  reportXml({
    domain: name,
    reportId,
    begin: day0(2),
    end: day0(2) + 86_399,
    records: [
      { ip: "192.0.2.1", count: 40 },
      { ip: "192.0.2.2", count: 10, dkim: "fail", spf: "fail", sigs: [{ d: "other.example", r: "fail" }], spfRes: { d: "other.example", r: "fail" } },
    ],
  });

const storedReports = async (domainId: number) => (await stored(domainId)).reports.length;

describe("DMARC page", () => {
  it("sends a signed-out visitor to sign-in", async () => {
    const res = await new Browser().fetch("/domains/1/dmarc?days=7");
    expect(res.status).toBe(303);
    expect(res.headers.get("location")).toBe(`/sign-in?next=${encodeURIComponent("/domains/1/dmarc?days=7")}`);
    expect((await new Browser().fetch("/domains/1/dmarc/reports/1")).status).toBe(303);
  });

  it("uploads a report, then shows it in the chart, the sources, the stored reports and the report page", async () => {
    const { b, teamId } = await signedIn();
    const domain = await insertDomain(teamId);
    const empty = await (await b.fetch(`/domains/${domain.id}/dmarc`)).text();
    expect(empty).toContain("No reports in this period.");
    expect(empty).toContain('<label for="report-file">');
    expect(empty).toContain('enctype="multipart/form-data"');
    const res = await upload(b, domain.id, xmlFor(domain.name, "rid-page-1"));
    expect(res.status).toBe(201);
    const html = await res.text();
    expect(html).toContain("Report rid-page-1 was stored with 2 records.");
    expect(await storedReports(domain.id)).toBe(1);
    const page = await (await b.fetch(`/domains/${domain.id}/dmarc?days=7`)).text();
    expect(page).toContain("Last 7 days");
    expect(page).toContain("80.0%");
    expect(page).toContain("40 passed and 10 failed DMARC over 7 days.");
    expect(page).toContain("192.0.2.2");
    expect(page).toContain('class="bar pass"');
    expect(page).toContain('class="bar fail"');
    expect(page).toContain('data-copy="v=DMARC1;');
    const reportId = Number(new RegExp(`href="/domains/${domain.id}/dmarc/reports/(\\d+)"`).exec(page)?.[1]);
    expect(reportId).toBeGreaterThan(0);
    const report = await (await b.fetch(`/domains/${domain.id}/dmarc/reports/${reportId}`)).text();
    expect(report).toContain("rid-page-1");
    expect(report).toContain("Records (2)");
    expect(report).toContain("192.0.2.1");
    expect((await b.fetch(`/domains/${domain.id}/dmarc/reports/999999999`)).status).toBe(404);
  });

  it("answers a duplicate with 200, a malformed or foreign report with 422, no file with 422, and bad periods with 422", async () => {
    const { b, teamId } = await signedIn();
    const domain = await insertDomain(teamId);
    const xml = xmlFor(domain.name);
    expect((await upload(b, domain.id, xml)).status).toBe(201);
    const dup = await upload(b, domain.id, xml);
    expect(dup.status).toBe(200);
    expect(await dup.text()).toContain("was already stored");
    expect((await upload(b, domain.id, "<feedback>not a report")).status).toBe(422);
    expect((await upload(b, domain.id, xmlFor("elsewhere.example"))).status).toBe(422);
    expect((await upload(b, domain.id, "")).status).toBe(422);
    expect(await storedReports(domain.id)).toBe(1);
    expect((await b.fetch(`/domains/${domain.id}/dmarc?days=0`)).status).toBe(422);
    expect((await b.fetch(`/domains/${domain.id}/dmarc?days=abc`)).status).toBe(422);
    expect((await b.fetch(`/domains/${domain.id}/dmarc?page=0`)).status).toBe(422);
  });

  it("refuses a report over the 10 MB cap with 413 and a post without the CSRF token with 403", async () => {
    const { b, teamId } = await signedIn();
    const domain = await insertDomain(teamId);
    const big = new Uint8Array(10 * 1024 * 1024 + 1).fill(32);
    expect((await upload(b, domain.id, big)).status).toBe(413);
    expect((await upload(b, domain.id, xmlFor(domain.name), { csrf: null })).status).toBe(403);
    expect((await b.fetch(`/domains/${domain.id}/dmarc/upload`, { method: "POST", form: { report: "x" } })).status).toBe(400);
    expect(await storedReports(domain.id)).toBe(0);
  });

  it("shows a viewer the data without the upload form and refuses an upload with 403", async () => {
    const { b: owner, teamId } = await signedIn();
    const domain = await insertDomain(teamId);
    expect((await upload(owner, domain.id, xmlFor(domain.name))).status).toBe(201);
    const viewerEmail = email();
    expect((await owner.post("/team/invite", { email: viewerEmail, role: "viewer" }, "/team")).status).toBe(303);
    const viewer = new Browser();
    await viewer.openLatestLink(viewerEmail);
    const page = await (await viewer.fetch(`/domains/${domain.id}/dmarc`)).text();
    expect(page).toContain("192.0.2.2");
    expect(page).not.toContain("/dmarc/upload");
    expect((await upload(viewer, domain.id, xmlFor(domain.name))).status).toBe(403);
    expect(await storedReports(domain.id)).toBe(1);
  });

  it("answers another team's domain and report with a 404 page and stores nothing", async () => {
    const { b: owner, teamId } = await signedIn();
    const domain = await insertDomain(teamId);
    await upload(owner, domain.id, xmlFor(domain.name));
    const reportId = (await stored(domain.id)).reports[0]?.id;
    const { b: other } = await signedIn();
    expect((await other.fetch(`/domains/${domain.id}/dmarc`)).status).toBe(404);
    expect((await other.fetch(`/domains/${domain.id}/dmarc/reports/${reportId}`)).status).toBe(404);
    expect((await upload(other, domain.id, xmlFor(domain.name), { csrf: await other.csrf("/dashboard") })).status).toBe(404);
    expect(await storedReports(domain.id)).toBe(1);
  });
});
