// A checker of Slack messages against Slack's published Block Kit limits, written from Slack's reference
// pages (not from the renderer), for the blocks an incoming webhook message may carry. Returns every
// violation found, as readable strings; an empty list means the message is within the limits.
//
// Sources (the numbers below are quoted from these pages):
// - Blocks: "You can include up to 50 blocks in each message": https://docs.slack.dev/reference/block-kit/blocks
// - Header: text plain_text, "Maximum length for the text in this field is 150 characters"; block_id 255:
//   https://docs.slack.dev/reference/block-kit/blocks/header-block
// - Section: text "Maximum length ... 3000 characters"; fields "Maximum number of items is 10", each at most
//   2000 characters; block_id 255: https://docs.slack.dev/reference/block-kit/blocks/section-block
// - Context: elements "Maximum number of items is 10": https://docs.slack.dev/reference/block-kit/blocks/context-block
// - Actions: elements "There is a maximum of 25 elements": https://docs.slack.dev/reference/block-kit/blocks/actions-block
// - Button: text "Maximum length ... 75 characters"; url "Maximum length ... 3000 characters"; action_id 255;
//   value 2000: https://docs.slack.dev/reference/block-kit/block-elements/button-element
// - Text object: text at least 1 and at most 3000 characters: https://docs.slack.dev/reference/block-kit/composition-objects/text-object
// - Top-level text: Slack truncates messages over 40,000 characters and advises keeping `text` to 4,000:
//   https://docs.slack.dev/reference/methods/chat.postMessage
// - Escaping: "&", "<" and ">" are control characters in mrkdwn and must be sent as &amp; &lt; &gt; unless
//   they are markup (links <url|text>, mentions): https://docs.slack.dev/messaging/formatting-message-text#escaping

export const BLOCK_KIT_LIMITS = {
  blocksPerMessage: 50,
  headerText: 150,
  sectionText: 3000,
  sectionFields: 10,
  sectionFieldText: 2000,
  contextElements: 10,
  actionsElements: 25,
  buttonText: 75,
  buttonUrl: 3000,
  buttonValue: 2000,
  actionId: 255,
  blockId: 255,
  textObject: 3000,
  messageText: 4000,
} as const;

type Json = Record<string, unknown>;

export function blockKitProblems(message: { text?: unknown; blocks?: unknown }): string[] {
  const problems: string[] = [];
  const p = (where: string, what: string) => problems.push(`${where}: ${what}`);
  const L = BLOCK_KIT_LIMITS;

  if (typeof message.text !== "string" || message.text.length === 0) p("text", "missing (the notification fallback)");
  else {
    if (message.text.length >= L.messageText) p("text", `${message.text.length} characters, not under ${L.messageText}`);
    for (const x of mrkdwnProblems(message.text)) p("text", x);
  }
  if (!Array.isArray(message.blocks)) return [...problems, "blocks: not an array"];
  if (message.blocks.length > L.blocksPerMessage) p("blocks", `${message.blocks.length} blocks, over ${L.blocksPerMessage}`);

  message.blocks.forEach((raw, i) => {
    const b = raw as Json;
    const at = `blocks[${i}] (${String(b.type)})`;
    if (typeof b.block_id === "string" && b.block_id.length > L.blockId) p(at, "block_id over 255");
    switch (b.type) {
      case "header": {
        const t = textObject(b.text, `${at}.text`, problems);
        if (t && t.type !== "plain_text") p(at, "header text must be plain_text");
        if (t && t.text.length > L.headerText) p(at, `header text ${t.text.length} characters, over ${L.headerText}`);
        break;
      }
      case "section": {
        if (b.text === undefined && b.fields === undefined) p(at, "needs text or fields");
        if (b.text !== undefined) {
          const t = textObject(b.text, `${at}.text`, problems);
          if (t && t.text.length > L.sectionText) p(at, `text ${t.text.length} characters, over ${L.sectionText}`);
        }
        if (b.fields !== undefined) {
          if (!Array.isArray(b.fields)) p(at, "fields not an array");
          else {
            if (b.fields.length > L.sectionFields) p(at, `${b.fields.length} fields, over ${L.sectionFields}`);
            b.fields.forEach((f, j) => {
              const t = textObject(f, `${at}.fields[${j}]`, problems);
              if (t && t.text.length > L.sectionFieldText) p(at, `field ${j} over ${L.sectionFieldText}`);
            });
          }
        }
        if (b.accessory !== undefined) elementProblems(b.accessory as Json, `${at}.accessory`, problems);
        break;
      }
      case "context": {
        if (!Array.isArray(b.elements) || b.elements.length === 0) p(at, "elements must be a non-empty array");
        else {
          if (b.elements.length > L.contextElements) p(at, `${b.elements.length} elements, over ${L.contextElements}`);
          b.elements.forEach((e, j) => {
            if ((e as Json).type !== "image") textObject(e, `${at}.elements[${j}]`, problems);
          });
        }
        break;
      }
      case "actions": {
        if (!Array.isArray(b.elements) || b.elements.length === 0) p(at, "elements must be a non-empty array");
        else {
          if (b.elements.length > L.actionsElements) p(at, `${b.elements.length} elements, over ${L.actionsElements}`);
          b.elements.forEach((e, j) => {
            elementProblems(e as Json, `${at}.elements[${j}]`, problems);
          });
        }
        break;
      }
      case "divider":
        break;
      default:
        p(at, "a block type this checker does not know");
    }
  });
  return problems;
}

function elementProblems(e: Json, at: string, problems: string[]): void {
  const L = BLOCK_KIT_LIMITS;
  if (e.type !== "button") return;
  const t = textObject(e.text, `${at}.text`, problems);
  if (t && t.type !== "plain_text") problems.push(`${at}: button text must be plain_text`);
  if (t && t.text.length > L.buttonText) problems.push(`${at}: button text ${t.text.length} characters, over ${L.buttonText}`);
  if (typeof e.url === "string" && e.url.length > L.buttonUrl) problems.push(`${at}: url over ${L.buttonUrl}`);
  if (typeof e.value === "string" && e.value.length > L.buttonValue) problems.push(`${at}: value over ${L.buttonValue}`);
  if (typeof e.action_id === "string" && e.action_id.length > L.actionId) problems.push(`${at}: action_id over ${L.actionId}`);
}

function textObject(raw: unknown, at: string, problems: string[]): { type: string; text: string } | null {
  const t = raw as Json | undefined;
  if (!t || (t.type !== "plain_text" && t.type !== "mrkdwn") || typeof t.text !== "string") {
    problems.push(`${at}: not a text object`);
    return null;
  }
  if (t.text.length < 1 || t.text.length > BLOCK_KIT_LIMITS.textObject) problems.push(`${at}: text length ${t.text.length} outside 1..3000`);
  if (t.type === "mrkdwn") for (const x of mrkdwnProblems(t.text)) problems.push(`${at}: ${x}`);
  return { type: t.type, text: t.text };
}

/**
 * Escaping as "Formatting text" requires: every "&" starts &amp; &lt; or &gt;, every "<" opens markup that
 * ">" closes (a link <http…|label>, or a mention <@…>, <#…>, <!…>), and no ">" stands alone outside it.
 * (A literal ">" at the start of a line would be a quote; escaped it is text.)
 */
export function mrkdwnProblems(text: string): string[] {
  const problems: string[] = [];
  for (const m of text.matchAll(/&(?!amp;|lt;|gt;)/g)) problems.push(`unescaped "&" at ${m.index}`);
  let rest = text;
  for (const m of text.matchAll(/<([^<>]*)>/g)) {
    const inner = m[1] ?? "";
    if (!/^(https?:\/\/[^\s|<>]+(\|[^<>]+)?|[@#!][^<>]+)$/.test(inner)) problems.push(`"<${inner}>" is not a link or mention`);
    rest = rest.replace(m[0], "");
  }
  if (/[<>]/.test(rest)) problems.push(`unescaped "<" or ">" in ${JSON.stringify(rest.slice(0, 80))}`);
  return problems;
}
