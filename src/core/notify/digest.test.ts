// The digest mail's rendering: the totals lead, worst domains first, every user value escaped in HTML, the
// mail-client rules (600 px, layout tables, inline styles, dark-mode meta and media query) and the links.
import { describe, expect, it } from "vitest";
import { type DigestDomain, type DigestModel, digestHtml, digestText, gradeChange, renderDigest } from "./digest";

const domain = (o: Partial<DigestDomain>): DigestDomain => ({
  id: 1,
  name: "example.com",
  grade: "B",
  gradeBefore: "B",
  score: 80,
  nextStep: null,
  dmarcMessages: 0,
  dmarcPassRate: null,
  newSenders: 0,
  silentReporters: 0,
  tlsSessions: 0,
  tlsFailureRate: null,
  openAlerts: 0,
  ...o,
});

const model = (domains: DigestDomain[]): DigestModel => ({
  team: "Acme <ops>",
  frequency: "weekly",
  period: "2026-W49",
  days: 7,
  siteUrl: "https://monitor.example/",
  totals: {
    domains: domains.length,
    averageScore: 70,
    grades: { A: 1, F: 1 },
    openAlerts: 3,
    dmarcMessages: 1200,
    dmarcPassRate: 0.9,
    tlsSessions: 10,
    tlsFailureRate: 0.1,
  },
  domains,
  moreDomains: 0,
});

const links = {
  unsubscribe: "https://monitor.example/unsubscribe/d.1.2.off.sig",
  switchTo: { frequency: "daily" as const, url: "https://monitor.example/unsubscribe/d.1.2.daily.sig" },
  settings: "https://monitor.example/settings/notifications/digest",
};

describe("digest mail", () => {
  const m = model([
    domain({ id: 7, name: "good.example", grade: "A", gradeBefore: "C", nextStep: "Publish <MTA-STS> & TLS-RPT" }),
    domain({
      id: 9,
      name: "bad.example",
      grade: "F",
      gradeBefore: "D",
      dmarcMessages: 500,
      dmarcPassRate: 0.5,
      newSenders: 2,
      silentReporters: 1,
      openAlerts: 2,
    }),
  ]);

  it("puts the team totals first, then each domain with its grade change, plan step, DMARC, TLS and alerts", () => {
    const text = digestText(m, links);
    expect(text.indexOf("Team totals")).toBeLessThan(text.indexOf("good.example"));
    expect(text).toContain("DMARC messages: 1,200 (pass rate 90.0%)");
    expect(text).toContain("TLS failure rate: 10.0% of 10 sessions");
    expect(text).toContain("Grade: A (80), up from C");
    expect(text).toContain("Next step: Publish <MTA-STS> & TLS-RPT");
    expect(text).toContain("DMARC: 500 messages, 50.0% pass; 2 new senders, 1 silent reporter");
    expect(text).toContain("https://monitor.example/domains/9");
    expect(text).toContain(`Stop these digests: ${links.unsubscribe}`);
    expect(text).toContain(`Get it daily instead: ${links.switchTo.url}`);
  });

  it("lists the worst grade first", () => {
    const text = digestText(m, links);
    expect(text.indexOf("bad.example")).toBeLessThan(text.indexOf("good.example"));
  });

  it("escapes every user value in the HTML part and keeps to the mail-client rules", () => {
    const html = digestHtml(m, links);
    expect(html).not.toContain("<MTA-STS>");
    expect(html).toContain("Publish &lt;MTA-STS&gt; &amp; TLS-RPT");
    expect(html).toContain("Acme &lt;ops&gt;");
    expect(html).toContain('<meta name="color-scheme" content="light dark">');
    expect(html).toContain("@media (prefers-color-scheme: dark)");
    expect(html).toContain("max-width:600px");
    expect(html).toContain('role="presentation"');
    expect(html).not.toMatch(/<script|<link|<img/i);
    expect(html).toContain(`href="${links.unsubscribe}"`);
  });

  it("has a one-line subject naming the team, the domains, the open alerts and the period", () => {
    expect(renderDigest(m, links).subject).toBe("Weekly digest for Acme <ops>: 2 domains, 3 open alerts (week 2026-W49)");
  });

  it("says how a grade moved", () => {
    expect(gradeChange({ grade: "B", gradeBefore: "A" })).toBe("down from A");
    expect(gradeChange({ grade: "B", gradeBefore: "B" })).toBe("unchanged");
    expect(gradeChange({ grade: "B", gradeBefore: null })).toBe("new this period");
    expect(gradeChange({ grade: null, gradeBefore: null })).toBe("not checked yet");
  });

  it("says so when the team has no domain yet", () => {
    expect(digestText(model([]), links)).toContain("No domains yet. Add one at https://monitor.example/domains/new");
  });
});
