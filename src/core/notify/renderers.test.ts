// The renderers of a grouped notification against the channels' published rules: Slack's Block Kit limits
// and escaping (checked by test/support/block-kit.ts, written from Slack's reference pages), PagerDuty
// Events API v2's required fields, lengths and severity values, and the alert mail's subject and escaping.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { alertItem, batchOf, burst, SITE_URL } from "../../../test/support/notify-batches";
import { BLOCK_KIT_LIMITS, blockKitProblems } from "../../../test/support/block-kit";
import { alertMail, listUnsubscribeHeaders } from "./alert-mail";
import { boundedDedupKey, PAGERDUTY_EVENTS_URL, pagerDutyEvent, pagerDutySeverity, type PagerDutyTrigger } from "./pagerduty";
import { slackMessage } from "./slack";
import type { Severity } from "../types";

const ctx = { siteUrl: SITE_URL, team: { id: 1, name: "Acme" } };
const links = { unsubscribeUrl: `${SITE_URL}/unsubscribe/tok123`, preferencesUrl: `${SITE_URL}/settings/notifications` };
const sectionTexts = (blocks: ReturnType<typeof slackMessage>["blocks"]) => blocks.flatMap((b) => (b.type === "section" ? [b.text.text] : []));

describe("Slack message", () => {
  it("one alert: within the limits, header with team and count, the title linked to the alert's page", () => {
    const msg = slackMessage(batchOf([alertItem({ id: 5, domain: { id: 3, name: "example.com" } })]));
    expect(blockKitProblems(msg)).toEqual([]);
    const [header] = msg.blocks;
    expect(header).toEqual({ type: "header", text: { type: "plain_text", text: "Acme · 1 alert opened", emoji: true } });
    const [section] = sectionTexts(msg.blocks);
    expect(section).toContain(`<${SITE_URL}/domains/3|DMARC policy changed>`);
    expect(section).toContain("example.com · High · drift");
    expect(section).toContain("p=reject to p=none");
    expect(JSON.stringify(msg.blocks.at(-1))).toContain(`<${SITE_URL}/alerts|All alerts>`);
    expect(msg.text).toBe("Acme: 1 alert opened — [High] example.com: DMARC policy changed");
  });

  it("1,000 alerts: at most 50 blocks, the most severe listed first, the rest counted with a link to the list", () => {
    const msg = slackMessage(batchOf(burst(1000)));
    expect(blockKitProblems(msg)).toEqual([]);
    expect(msg.blocks.length).toBeLessThanOrEqual(BLOCK_KIT_LIMITS.blocksPerMessage);
    const sections = sectionTexts(msg.blocks);
    const alerts = sections.slice(0, -1);
    expect(alerts.length).toBe(20);
    for (const s of alerts) expect(s).toContain(" · Critical · ");
    expect(sections.at(-1)).toBe(`<${SITE_URL}/alerts|…and 980 more>`);
    expect((msg.blocks[0] as { text: { text: string } }).text.text).toBe("Acme · 1000 alerts opened");
  });

  it("very long titles, bodies, team names and domains stay within every limit", () => {
    const long = "x".repeat(20_000);
    const amps = "&".repeat(5_000); // 25,000 characters once escaped
    const msg = slackMessage(
      batchOf(
        [
          alertItem({ title: long, body: amps, domain: { id: 1, name: `${"a".repeat(63)}.example` } }),
          alertItem({ title: amps, body: long, kind: "k".repeat(500) }),
        ],
        { team: { id: 1, name: "T".repeat(1000) } },
      ),
    );
    expect(blockKitProblems(msg)).toEqual([]);
    const header = (msg.blocks[0] as { text: { text: string } }).text.text;
    expect(header.length).toBeLessThanOrEqual(150);
    expect(header.endsWith(" · 2 alerts opened")).toBe(true);
    expect(msg.text.length).toBeLessThan(4000);
  });

  it("escapes &, < and > of user text, so a title cannot make a link or mention", () => {
    const title = "<https://evil.example|click> & <!channel> a>b";
    const msg = slackMessage(batchOf([alertItem({ title, body: "<@U123> & co" })], { team: { id: 1, name: "R&D <ops>" } }));
    expect(blockKitProblems(msg)).toEqual([]);
    const [section] = sectionTexts(msg.blocks);
    expect(section).toContain("&lt;https://evil.example|click&gt; &amp; &lt;!channel&gt; a&gt;b");
    expect(section).toContain("&lt;@U123&gt; &amp; co");
    expect(section).not.toContain("<!channel>");
    expect(msg.text).toContain("R&amp;D &lt;ops&gt;");
  });

  it("a cut never splits an entity: the text stays valid mrkdwn", () => {
    for (let n = 290; n < 310; n++) {
      const msg = slackMessage(batchOf([alertItem({ title: `${"y".repeat(n)}${"&".repeat(50)}` })]));
      expect(blockKitProblems(msg)).toEqual([]);
    }
  });

  it("says resolved for a resolution, and lists openings before resolutions", () => {
    const msg = slackMessage(
      batchOf([alertItem({ action: "resolve", severity: "Critical", title: "Key back" }), alertItem({ severity: "Low", title: "New sender" })]),
    );
    expect(blockKitProblems(msg)).toEqual([]);
    const [first, second] = sectionTexts(msg.blocks);
    expect(first).toContain("New sender");
    expect(second).toMatch(/^:white_check_mark: Resolved: \*<.*\|Key back>\*/);
    expect((msg.blocks[0] as { text: { text: string } }).text.text).toBe("Acme · 1 alert opened / 1 resolved");
  });

  it("an empty or blank title or team name still gives a link label and a header (found by the property below)", () => {
    const msg = slackMessage(batchOf([alertItem({ title: " \u0000 ", domain: { id: 3, name: "example.com" } })], { team: { id: 1, name: "" } }));
    expect(blockKitProblems(msg)).toEqual([]);
    expect(sectionTexts(msg.blocks)[0]).toContain(`<${SITE_URL}/domains/3|(untitled alert)>`);
    expect((msg.blocks[0] as { text: { text: string } }).text.text).toBe("Your team · 1 alert opened");
    expect(alertMail(batchOf([alertItem({ title: "" })]), links).subject).toBe("[example.com] (untitled alert)");
  });

  it("a test message says so and lists no alert", () => {
    const msg = slackMessage(batchOf([], { test: true }));
    expect(blockKitProblems(msg)).toEqual([]);
    expect((msg.blocks[0] as { text: { text: string } }).text.text).toBe("Acme · Test message");
    expect(sectionTexts(msg.blocks)).toEqual(["This is a test message. The channel works: alerts of this team will be delivered here."]);
  });

  it("any user text, in any amount, gives a message within the limits (property)", () => {
    const text = fc.string({ unit: "binary", maxLength: 4000 });
    const item = fc.record({
      title: text,
      body: fc.option(text),
      kind: fc.string({ maxLength: 80 }),
      resolve: fc.boolean(),
      sev: fc.constantFrom<Severity>("Critical", "High", "Medium", "Low", "Info"),
    });
    fc.assert(
      fc.property(fc.array(item, { minLength: 1, maxLength: 60 }), text, (items, team) => {
        const batch = batchOf(
          items.map((i) => alertItem({ title: i.title, body: i.body, kind: i.kind, severity: i.sev, action: i.resolve ? "resolve" : "trigger" })),
          { team: { id: 1, name: team } },
        );
        expect(blockKitProblems(slackMessage(batch))).toEqual([]);
      }),
      { numRuns: 150 },
    );
  });

  it("the checker itself catches what Slack refuses (so its silence means something)", () => {
    const tooMany = { text: "t", blocks: Array.from({ length: 51 }, () => ({ type: "divider" })) };
    expect(blockKitProblems(tooMany).join()).toContain("51 blocks, over 50");
    const longHeader = { text: "t", blocks: [{ type: "header", text: { type: "plain_text", text: "h".repeat(151) } }] };
    expect(blockKitProblems(longHeader).join()).toContain("over 150");
    const unescaped = { text: "a & b", blocks: [{ type: "section", text: { type: "mrkdwn", text: "<script>" } }] };
    expect(blockKitProblems(unescaped).join()).toMatch(/unescaped "&".*not a link or mention/);
    const button = {
      text: "t",
      blocks: [{ type: "actions", elements: [{ type: "button", text: { type: "plain_text", text: "b".repeat(76) }, url: "u".repeat(3001) }] }],
    };
    expect(blockKitProblems(button).join()).toMatch(/over 75.*url over 3000/);
  });
});

describe("PagerDuty event", () => {
  it("trigger: every required field (routing_key, event_action, payload.summary/source/severity) and the optional ones", () => {
    const ev = pagerDutyEvent(
      { action: "trigger", dedupKey: "emailauth:1:alert:5", items: [alertItem({ id: 5, kind: "drift", domain: { id: 3, name: "example.com" } })] },
      "R0UTINGKEY0123456789abcdefABCDEF",
      ctx,
    ) as PagerDutyTrigger;
    expect(ev.routing_key).toBe("R0UTINGKEY0123456789abcdefABCDEF");
    expect(ev.event_action).toBe("trigger");
    expect(ev.dedup_key).toBe("emailauth:1:alert:5");
    expect(ev.payload.summary).toBe("[example.com] DMARC policy changed");
    expect(ev.payload.source).toBe("example.com");
    expect(ev.payload.severity).toBe("error");
    expect(ev.payload.timestamp).toBe("2026-11-28T10:00:00.000Z");
    expect(ev.payload.component).toBe("drift");
    expect(ev.payload.group).toBe("example.com");
    expect(ev.payload.class).toBe("drift");
    expect(ev.payload.custom_details.alerts).toEqual([
      { id: 5, kind: "drift", severity: "High", title: "DMARC policy changed", domain: "example.com", action: "trigger" },
    ]);
    expect(ev.links).toEqual([
      { href: `${SITE_URL}/domains/3`, text: "example.com in Email-auth monitor" },
      { href: `${SITE_URL}/alerts`, text: "All alerts" },
    ]);
    expect(ev.client).toBe("Email-auth monitor");
    expect(ev.client_url).toBe(`${SITE_URL}/alerts`);
    expect(PAGERDUTY_EVENTS_URL).toBe("https://events.pagerduty.com/v2/enqueue");
  });

  it("maps the five severities onto PagerDuty's four and takes the most severe item", () => {
    const table: [Severity, string][] = [
      ["Critical", "critical"],
      ["High", "error"],
      ["Medium", "warning"],
      ["Low", "info"],
      ["Info", "info"],
    ];
    for (const [ours, theirs] of table) expect(pagerDutySeverity(ours)).toBe(theirs);
    const ev = pagerDutyEvent(
      {
        action: "trigger",
        dedupKey: "k",
        items: [alertItem({ severity: "Low" }), alertItem({ severity: "Critical", title: "Listed on a blocklist" }), alertItem({ severity: "Medium" })],
      },
      "r",
      ctx,
    ) as PagerDutyTrigger;
    expect(["critical", "error", "warning", "info"]).toContain(ev.payload.severity);
    expect(ev.payload.severity).toBe("critical");
    expect(ev.payload.summary).toBe("3 alerts on example.com: Listed on a blocklist and 2 more");
  });

  it("keeps summary within 1024 characters, dedup_key within 255, and a burst's event far below 512 KB", () => {
    const items = burst(1000).map((i) => ({ ...i, alert: { ...i.alert, title: "t".repeat(5000) } }));
    const ev = pagerDutyEvent({ action: "trigger", dedupKey: "d".repeat(1000), items }, "r", ctx) as PagerDutyTrigger;
    expect(ev.payload.summary.length).toBeLessThanOrEqual(1024);
    expect(ev.payload.summary.endsWith("…")).toBe(true);
    expect(ev.dedup_key.length).toBeLessThanOrEqual(255);
    expect(ev.payload.custom_details.alerts.length).toBe(50);
    expect(ev.payload.custom_details.more).toBe(950);
    expect(ev.payload.source).toBe("Email-auth monitor"); // three domains: no single affected system
    expect(ev.payload.group).toBeUndefined();
    expect(new TextEncoder().encode(JSON.stringify(ev)).length).toBeLessThan(64 * 1024); // an eighth of the 512 KB limit
  });

  it("a long dedup key is shortened the same way every time, and two keys stay apart", () => {
    const a = `${"p".repeat(300)}:alert:1`;
    const b = `${"p".repeat(300)}:alert:2`;
    expect(boundedDedupKey(a)).toBe(boundedDedupKey(a));
    expect(boundedDedupKey(a)).not.toBe(boundedDedupKey(b));
    expect(boundedDedupKey(a).length).toBe(255);
    expect(boundedDedupKey("short")).toBe("short");
  });

  it("resolve: routing_key, event_action and dedup_key only", () => {
    const ev = pagerDutyEvent({ action: "resolve", dedupKey: "emailauth:1:alert:5", items: [alertItem({ action: "resolve" })] }, "r", ctx);
    expect(ev).toEqual({ routing_key: "r", event_action: "resolve", dedup_key: "emailauth:1:alert:5" });
  });
});

describe("alert mail", () => {
  const subject = (items: ReturnType<typeof alertItem>[], over = {}) => alertMail(batchOf(items, over), links).subject;

  it("subjects: one alert, one resolution, a burst, a single-domain burst, everything resolved, a test", () => {
    expect(subject([alertItem()])).toBe("[example.com] DMARC policy changed");
    expect(subject([alertItem({ action: "resolve" })])).toBe("Resolved: [example.com] DMARC policy changed");
    expect(subject(burst(10, 3))).toBe("[Acme] 10 alerts on 3 domains");
    const onD0 = { id: 100, name: "d0.example" };
    expect(subject([...burst(10, 3), alertItem({ action: "resolve", domain: onD0 }), alertItem({ action: "resolve", domain: onD0 })])).toBe(
      "[Acme] 10 alerts on 3 domains, 2 resolved",
    );
    expect(subject(burst(4, 1))).toBe("[d0.example] 4 alerts");
    expect(subject([alertItem({ action: "resolve" }), alertItem({ action: "resolve", domain: { id: 2, name: "example.org" } })])).toBe(
      "Resolved: [Acme] 2 alerts on 2 domains",
    );
    expect(subject([alertItem(), alertItem({ action: "resolve", title: "Key back" })])).toBe("[example.com] DMARC policy changed (and 1 resolved)");
    expect(subject([alertItem({ domain: null, title: "Reports missing" })])).toBe("[Acme] Reports missing");
    expect(subject([], { test: true })).toBe("[Acme] Test message");
  });

  it("a subject is one line even when a title has line breaks, and stays short", () => {
    const s = subject([alertItem({ title: `first line\r\nsecond\tline ${"z".repeat(500)}` })]);
    expect(s).not.toMatch(/[\r\n\t]/);
    expect(s.startsWith("[example.com] first line second line zzz")).toBe(true);
    expect(s.length).toBeLessThanOrEqual(200);
  });

  it("HTML-escapes every user string (title, body, team, domain)", () => {
    const mail = alertMail(
      batchOf([alertItem({ title: "<script>alert(1)</script>", body: `"quoted" & <b>bold</b>\nline`, kind: "<k>" })], {
        team: { id: 1, name: `O'Brien & "Sons"` },
      }),
      links,
    );
    expect(mail.html).not.toContain("<script>");
    expect(mail.html).not.toContain("<b>bold");
    expect(mail.html).toContain("&lt;script&gt;alert(1)&lt;/script&gt;");
    expect(mail.html).toContain("&quot;quoted&quot; &amp; &lt;b&gt;bold&lt;/b&gt;<br>line");
    expect(mail.html).toContain("O&#39;Brien &amp; &quot;Sons&quot;");
    expect(mail.html).toContain("&lt;k&gt;");
    // The text part is plain text: written as is.
    expect(mail.text).toContain("<script>alert(1)</script>");
  });

  it("HTML for mail clients: colour-scheme metas, a dark-mode block, 600px, inline colours, nothing external", () => {
    const { html } = alertMail(batchOf(burst(3)), links);
    expect(html).toContain('<meta name="color-scheme" content="light dark">');
    expect(html).toContain('<meta name="supported-color-schemes" content="light dark">');
    expect(html).toMatch(/<style>[\s\S]*@media \(prefers-color-scheme: dark\)[\s\S]*<\/style>/);
    expect(html).toContain("max-width:600px");
    expect(html).toMatch(/<body[^>]*bgcolor="#[0-9a-f]{6}"[^>]*style="[^"]*background-color:#[0-9a-f]{6};color:#[0-9a-f]{6}/);
    expect(html).not.toMatch(/<script|<link|<img|@import|url\(/i);
    // Every absolute URL is one of this service's links.
    for (const m of html.matchAll(/https?:\/\/[^"<\s]+/g)) expect(m[0].startsWith(SITE_URL)).toBe(true);
  });

  it("text and HTML carry the alert links, the list link, unsubscribe and preferences", () => {
    const mail = alertMail(batchOf([alertItem({ domain: { id: 3, name: "example.com" } })]), links);
    for (const part of [mail.text, mail.html]) {
      expect(part).toContain(`${SITE_URL}/domains/3`);
      expect(part).toContain(`${SITE_URL}/alerts`);
      expect(part).toContain(links.unsubscribeUrl);
      expect(part).toContain(links.preferencesUrl);
    }
    expect(mail.text).toMatch(
      /Unsubscribe: https:\/\/monitor\.example\/unsubscribe\/tok123\nPreferences: https:\/\/monitor\.example\/settings\/notifications\n$/,
    );
  });

  it("a burst of 1,000 lists 50, most severe first, and counts the rest", () => {
    const mail = alertMail(batchOf(burst(1000)), links);
    expect(mail.text).toContain(`...and 950 more: ${SITE_URL}/alerts`);
    expect(mail.html).toContain("…and 950 more in");
    expect(mail.text.split("\n").filter((l) => /^\[(Critical|High|Medium|Low|Info)\]/.test(l)).length).toBe(50);
    expect(mail.text.split("\n").find((l) => l.startsWith("["))).toMatch(/^\[Critical\]/);
  });

  it("the mail headers: one-click unsubscribe (RFC 8058 §3.1)", () => {
    expect(listUnsubscribeHeaders(links.unsubscribeUrl)).toEqual({
      "List-Unsubscribe": `<${links.unsubscribeUrl}>`,
      "List-Unsubscribe-Post": "List-Unsubscribe=One-Click",
    });
  });
});
