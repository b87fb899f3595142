// The Teams message's Adaptive Card validated against the official Adaptive Card 1.4 JSON schema
// (test/fixtures/schemas/adaptive-card-1.4.json, from microsoft/AdaptiveCards; see the README there). Runs
// in Node: Ajv compiles schemas with code generation, which workerd forbids.
import { createRequire } from "node:module";
import Ajv from "ajv";
import addFormats from "ajv-formats";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { TEAMS_MAX_BYTES, TEAMS_MAX_LISTED, teamsMessage, utf8Length } from "../../src/core/notify/teams";
import type { NotificationBatch } from "../../src/core/notify/types";
import schema from "../fixtures/schemas/adaptive-card-1.4.json";
import { alertItem, batchOf, burst, SITE_URL } from "../support/notify-batches";

const require = createRequire(import.meta.url);
// The schema is draft-06 and uses the card vocabulary's own annotations (version, features): strict off.
const ajv = new Ajv({ strict: false, allErrors: true });
ajv.addMetaSchema(require("ajv/dist/refs/json-schema-draft-06.json"));
addFormats(ajv);
// The published file names itself with draft-04's "id" although it declares draft-06, whose keyword is
// "$id"; Ajv 8 refuses "id". Renaming that one top-level identifier changes no validation rule.
const { id: schemaId, ...rules } = schema;
const validate = ajv.compile({ ...rules, $id: schemaId });

/** Teams' documented host extension (full width) is not in the host-neutral schema: it alone is set aside. */
function cardErrors(batch: NotificationBatch) {
  const message = teamsMessage(batch);
  const { msteams, ...card } = message.attachments[0].content;
  expect(msteams).toEqual({ width: "Full" });
  validate(card);
  return validate.errors ?? [];
}

const texts = (batch: NotificationBatch): string[] => {
  const out: string[] = [];
  const walk = (x: unknown) => {
    if (Array.isArray(x)) x.forEach(walk);
    else if (x && typeof x === "object") {
      const o = x as Record<string, unknown>;
      if (typeof o.text === "string") out.push(o.text);
      Object.values(o).forEach(walk);
    }
  };
  walk(teamsMessage(batch).attachments[0].content.body);
  return out;
};

describe("Teams message (Adaptive Card 1.4)", () => {
  it("the envelope a Workflows webhook takes", () => {
    const m = teamsMessage(batchOf([alertItem()]));
    expect(m.type).toBe("message");
    expect(m.attachments).toHaveLength(1);
    expect(m.attachments[0].contentType).toBe("application/vnd.microsoft.card.adaptive");
    expect(m.attachments[0].contentUrl).toBeNull();
    expect(m.attachments[0].content.$schema).toBe("http://adaptivecards.io/schemas/adaptive-card.json");
    expect(m.attachments[0].content.version).toBe("1.4");
  });

  it("one alert: valid, with its title, domain, severity, body and links", () => {
    const batch = batchOf([alertItem({ domain: { id: 3, name: "example.com" } })]);
    expect(cardErrors(batch)).toEqual([]);
    const t = texts(batch);
    expect(t).toContain("DMARC policy changed");
    expect(t).toContain("example.com · High · drift");
    expect(t).toContain("The DMARC record changed from p=reject to p=none.");
    const json = JSON.stringify(teamsMessage(batch));
    expect(json).toContain(`"url":"${SITE_URL}/domains/3"`);
    expect(json).toContain(`"url":"${SITE_URL}/alerts"`);
  });

  it("a burst of 200: valid, at most the cap listed, most severe first, the rest counted, under the size budget", () => {
    const batch = batchOf(burst(200));
    expect(cardErrors(batch)).toEqual([]);
    const t = texts(batch);
    const listed = t.filter((x) => / · (Critical|High|Medium|Low|Info) · /.test(x));
    expect(listed.length).toBe(TEAMS_MAX_LISTED);
    expect(listed.every((x) => x.includes(" · Critical · "))).toBe(true);
    expect(t).toContain(`…and ${200 - TEAMS_MAX_LISTED} more in the alerts list.`);
    expect(utf8Length(JSON.stringify(teamsMessage(batch)))).toBeLessThanOrEqual(TEAMS_MAX_BYTES);
  });

  it("hostile sizes (long titles and bodies of multi-byte and escaped characters) still fit under 28 KB", () => {
    const heavy = burst(200).map((i) => ({ ...i, alert: { ...i.alert, title: '"😀\\'.repeat(2000), body: '\u0001"\\é'.repeat(5000) } }));
    const batch = batchOf(heavy, { team: { id: 1, name: "☃".repeat(5000) } });
    expect(cardErrors(batch)).toEqual([]);
    const size = utf8Length(JSON.stringify(teamsMessage(batch)));
    expect(size).toBeLessThanOrEqual(TEAMS_MAX_BYTES);
    expect(size).toBeLessThan(28 * 1024);
    expect(texts(batch).some((x) => /^…and \d+ more in the alerts list\.$/.test(x))).toBe(true);
  });

  it("resolve-only: valid, says resolved", () => {
    const batch = batchOf([
      alertItem({ action: "resolve", title: "DKIM key back" }),
      alertItem({ action: "resolve", severity: "Critical", title: "Delisted" }),
    ]);
    expect(cardErrors(batch)).toEqual([]);
    const t = texts(batch);
    expect(t).toContain("2 alerts resolved");
    expect(t.filter((x) => x === "Resolved: ")).toHaveLength(2);
  });

  it("test message: valid, says so, lists nothing", () => {
    const batch = batchOf([], { test: true });
    expect(cardErrors(batch)).toEqual([]);
    expect(texts(batch)).toEqual(["Acme", "Test message", "This is a test message. The channel works: alerts of this team will be delivered here."]);
  });

  it("quotes, newlines and Markdown in user text: valid JSON and card, shown as written (TextRun has no Markdown)", () => {
    const title = 'Say "hi" **bold** [click](https://evil.example) _x_';
    const body = "line 1\nline 2\r\n- not a list\n\n\n\n# not a heading";
    const batch = batchOf([alertItem({ title, body })], { team: { id: 1, name: 'Team *star* "q"' } });
    expect(cardErrors(batch)).toEqual([]);
    const t = texts(batch);
    expect(t).toContain(title);
    expect(t).toContain("line 1\nline 2\n- not a list\n\n# not a heading");
    expect(t).toContain('Team *star* "q"');
    expect(JSON.parse(JSON.stringify(teamsMessage(batch)))).toEqual(teamsMessage(batch));
  });

  it("any user text, in any amount, gives a valid card under the size budget (property)", () => {
    const text = fc.string({ unit: "binary", maxLength: 3000 });
    const item = fc.record({ title: text, body: fc.option(text), resolve: fc.boolean() });
    fc.assert(
      fc.property(fc.array(item, { minLength: 1, maxLength: 40 }), text, (items, team) => {
        const batch = batchOf(
          items.map((i) => alertItem({ title: i.title, body: i.body, action: i.resolve ? "resolve" : "trigger" })),
          { team: { id: 1, name: team } },
        );
        expect(cardErrors(batch)).toEqual([]);
        expect(utf8Length(JSON.stringify(teamsMessage(batch)))).toBeLessThanOrEqual(TEAMS_MAX_BYTES);
      }),
      { numRuns: 100 },
    );
  });

  it("the schema check is not vacuous: it refuses what 1.4 does not have", () => {
    const card = structuredClone(teamsMessage(batchOf([alertItem()])).attachments[0].content) as unknown as Record<string, unknown>;
    expect(validate(card)).toBe(false); // msteams is outside the host-neutral schema
    delete card.msteams;
    expect(validate(card)).toBe(true);
    (card.body as Record<string, unknown>[]).push({ type: "TextBlock", text: "x", style: "heading" }); // 1.5
    expect(validate(card)).toBe(false);
    (card.body as unknown[]).pop();
    (card.body as unknown[]).push({ type: "Table", columns: [], rows: [] }); // 1.5
    expect(validate(card)).toBe(false);
  });
});
