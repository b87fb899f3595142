// What the alerts page and the overview say about an alert kind, for alerts raised by their real
// producers: tls_failure (a TLS report through the HTTPS intake, D102), new_sender (a DMARC report
// through the signed HTTP ingestion, D103) and reports_missing (the daily silent-reporter job, D104):
// a label, one line with the alert's facts, and the link to the page to look at. Another team sees none.
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { DAY_MS } from "../../src/lib/time";
import { createServices } from "../../src/services";
import { checkSilentReporters } from "../../src/services/dmarc/silent-reporters";
import { Browser, signedInOwner } from "../support/browser";
import { insertDomain } from "../support/factories";
import { day0, enc, post, reporterSeen, reportXml } from "../support/reports";
import { intake, rfcExample } from "../routes/tls/fixtures";

const signedIn = () => signedInOwner("lb");

const kinds = async (domainId: number) =>
  (
    await env.DB.prepare("SELECT kind FROM alerts WHERE domain_id = ? AND resolved_at IS NULL ORDER BY kind").bind(domainId).all<{ kind: string }>()
  ).results.map((r) => r.kind);

describe("alert kinds on the alerts page and the overview", () => {
  it("labels tls_failure, new_sender and reports_missing with their facts and links", async () => {
    const { b, teamId } = await signedIn();
    const d = await insertDomain(teamId);
    // tls_failure: RFC 8460 §4.4's example has 303 of 5629 sessions failing, over the 5 % rule.
    expect((await intake(d.reportToken, enc(JSON.stringify(rfcExample(d.name))))).status).toBe(202);
    // new_sender: 25 messages from an address never seen, 25 failing DMARC.
    const xml = reportXml({
      domain: d.name,
      begin: day0(2),
      end: day0(1) - 1,
      records: [
        { ip: "203.0.113.9", count: 25, dkim: "fail", spf: "fail", sigs: [{ d: "spoofer.example", r: "fail" }], spfRes: { d: "spoofer.example", r: "fail" } },
      ],
    });
    expect((await post(enc(xml))).status).toBe(202);
    // reports_missing: a reporter other than the one above reported daily from 10 to 4 days ago, then nothing.
    for (let i = 4; i <= 10; i++) await reporterSeen(d.id, "isp.example", new Date(Date.now() - i * DAY_MS));
    await checkSilentReporters(createServices(env));
    expect(await kinds(d.id)).toEqual(["new_sender", "reports_missing", "tls_failure"]);

    const page = await (await b.fetch("/alerts")).text();
    expect(page).toContain("SMTP TLS failures");
    expect(page).toContain(`href="/domains/${d.id}/tls"`);
    expect(page).toContain("New sender failing DMARC");
    expect(page).toContain(`203.0.113.9 sent 25 messages, 25 failing DMARC as ${d.name} and was never seen before`);
    expect(page).toContain(`href="/domains/${d.id}/dmarc/sources?ip=203.0.113.9"`);
    expect(page).toContain("DMARC reports stopped");
    expect(page).toContain(`isp.example sent aggregate reports for ${d.name} nearly every day and then none for 3 days`);
    expect(page).toContain(`href="/domains/${d.id}/dmarc#dmarc-reports"`);

    const overview = await (await b.fetch("/dashboard")).text();
    expect(overview).toContain("Latest open alerts");
    expect(overview).toContain("SMTP TLS failures");
    expect(overview).toContain(`href="/domains/${d.id}/dmarc/sources?ip=203.0.113.9"`);

    // The new-sender link opens the sources filtered to that address.
    const sources = await b.fetch(`/domains/${d.id}/dmarc/sources?ip=203.0.113.9`);
    expect(sources.status).toBe(200);
    const html = await sources.text();
    expect(html).toContain("DMARC sources matching 203.0.113.9");
    expect(html).toContain("1 source,");
    expect(html).toContain("203.0.113.9");

    const { b: other } = await signedIn();
    const theirs = await (await other.fetch("/alerts")).text();
    expect(theirs).not.toContain(d.name);
    expect(await (await other.fetch("/dashboard")).text()).not.toContain("Latest open alerts");
  });
});

describe("DMARC sources page", () => {
  it("filters by address or prefix and result, pages, and refuses bad filters with a 422 page", async () => {
    const { b, teamId } = await signedIn();
    const d = await insertDomain(teamId);
    const xml = reportXml({
      domain: d.name,
      begin: day0(2),
      end: day0(1) - 1,
      records: [
        { ip: "192.0.2.1", count: 40 },
        { ip: "192.0.2.2", count: 10, dkim: "fail", spf: "fail", sigs: [{ d: "other.example", r: "fail" }], spfRes: { d: "other.example", r: "fail" } },
        { ip: "198.51.100.5", count: 3 },
      ],
    });
    expect((await post(enc(xml))).status).toBe(202);
    const all = await (await b.fetch(`/domains/${d.id}/dmarc/sources`)).text();
    expect(all).toContain("3 sources,");
    const net = await (await b.fetch(`/domains/${d.id}/dmarc/sources?ip=192.0.2.0/24&days=7`)).text();
    expect(net).toContain("2 sources,");
    expect(net).not.toContain("198.51.100.5");
    const failed = await (await b.fetch(`/domains/${d.id}/dmarc/sources?ip=192.0.2.0/24&result=fail`)).text();
    expect(failed).toContain("1 source,");
    expect(failed).toContain("192.0.2.2");
    const paged = await (await b.fetch(`/domains/${d.id}/dmarc/sources?per_page=1&page=2`)).text();
    expect(paged).toContain("Page 2 of 3");
    expect(paged).toContain(`href="/domains/${d.id}/dmarc/sources?days=30&amp;per_page=1&amp;page=3"`);
    const none = await (await b.fetch(`/domains/${d.id}/dmarc/sources?ip=203.0.113.1`)).text();
    expect(none).toContain("No complete report in this period has mail from this address.");
    for (const q of ["ip=not-an-ip", "ip=192.0.2.0/33", "result=maybe", "days=0", "days=400", "page=0"]) {
      expect((await b.fetch(`/domains/${d.id}/dmarc/sources?${q}`)).status, q).toBe(422);
    }
    expect(await (await b.fetch(`/domains/${d.id}/dmarc/sources?ip=nope`)).text()).toContain("is not an IP address or CIDR prefix");
  });

  it("answers another team's domain with a 404 page and a signed-out visitor with sign-in", async () => {
    const { teamId } = await signedIn();
    const d = await insertDomain(teamId);
    const { b: other } = await signedIn();
    expect((await other.fetch(`/domains/${d.id}/dmarc/sources?ip=192.0.2.1`)).status).toBe(404);
    const res = await new Browser().fetch(`/domains/${d.id}/dmarc/sources`);
    expect(res.status).toBe(303);
    expect(res.headers.get("location")).toBe(`/sign-in?next=${encodeURIComponent(`/domains/${d.id}/dmarc/sources`)}`);
  });
});
