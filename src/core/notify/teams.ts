// A grouped notification as the body a Microsoft Teams Workflows webhook ("Post to a channel when a webhook
// request is received") takes: a message with one Adaptive Card 1.4 attachment. Pure: no I/O.
//
// Limits and choices:
// - Only elements and properties of the Adaptive Card 1.4 schema (test/node/adaptive-card.test.ts validates
//   every card against the published schema): TextBlock, RichTextBlock/TextRun, Container, Action.OpenUrl.
// - User text (team name, titles, bodies, domains) goes in TextRun, which "does not support Markdown"
//   (schema, TextRun.text), so a title such as "[x](https://…)" is shown as written; TextBlock (which renders a
//   Markdown subset) carries only this service's own words.
// - `msteams: { width: "Full" }` is the Teams extension for a full-width card:
//   https://learn.microsoft.com/en-us/microsoftteams/platform/task-modules-and-cards/cards/cards-format#full-width-adaptive-card
// - A Teams message is limited to 28 KB ("The message size limit is 28 KB"):
//   https://learn.microsoft.com/en-us/microsoftteams/platform/webhooks-and-connectors/how-to/add-incoming-webhook
//   The card lists at most TEAMS_MAX_LISTED alerts and, measured as UTF-8 JSON, drops listed alerts (least
//   urgent first) until the whole body is within TEAMS_MAX_BYTES, saying how many more there are.
import { cut, domainName, excerpt, headline, readingOrder, TEST_MESSAGE_TEXT, teamNameOf, titleOf } from "./render-text";
import type { NotificationBatch, NotificationItem } from "./types";
import { alertLink, alertsLink } from "./types";
import type { Severity } from "../types";

export const ADAPTIVE_CARD_SCHEMA = "http://adaptivecards.io/schemas/adaptive-card.json";
export const TEAMS_MAX_LISTED = 25;
/** 24 KiB: under the 28 KB limit with room for the HTTP request's own overhead on the Workflows side. */
export const TEAMS_MAX_BYTES = 24 * 1024;

const TITLE_MAX = 200;
const BODY_MAX = 400;

type Color = "default" | "good" | "warning" | "attention" | "accent";
export interface TeamsTextRun {
  type: "TextRun";
  text: string;
  weight?: "bolder";
  size?: "medium" | "large";
  color?: Color;
  isSubtle?: boolean;
}
export interface TeamsOpenUrl {
  type: "Action.OpenUrl";
  url: string;
  title?: string;
}
export type TeamsElement =
  | { type: "TextBlock"; text: string; wrap: true; weight?: "bolder"; size?: "medium" | "large"; isSubtle?: boolean; spacing?: "small" | "medium" }
  | { type: "RichTextBlock"; inlines: TeamsTextRun[]; spacing?: "none" | "small" }
  | { type: "Container"; items: TeamsElement[]; separator?: boolean; spacing?: "medium"; selectAction?: TeamsOpenUrl };
export interface AdaptiveCard {
  type: "AdaptiveCard";
  $schema: typeof ADAPTIVE_CARD_SCHEMA;
  version: "1.4";
  fallbackText: string;
  body: TeamsElement[];
  actions: TeamsOpenUrl[];
  msteams: { width: "Full" };
}
export interface TeamsMessage {
  type: "message";
  attachments: [{ contentType: "application/vnd.microsoft.card.adaptive"; contentUrl: null; content: AdaptiveCard }];
}

const TITLE_COLOR: Record<Severity, Color> = { Critical: "attention", High: "attention", Medium: "warning", Low: "default", Info: "default" };

export function teamsMessage(batch: NotificationBatch): TeamsMessage {
  const ordered = batch.test ? [] : readingOrder(batch.items);
  let listed = Math.min(ordered.length, TEAMS_MAX_LISTED);
  let message = build(batch, ordered, listed);
  while (listed > 0 && utf8Length(JSON.stringify(message)) > TEAMS_MAX_BYTES) {
    listed -= 1;
    message = build(batch, ordered, listed);
  }
  return message;
}

function build(batch: NotificationBatch, ordered: NotificationItem[], listed: number): TeamsMessage {
  const head = headline(batch);
  const team = cut(teamNameOf(batch), 200);
  const body: TeamsElement[] = [
    { type: "RichTextBlock", inlines: [{ type: "TextRun", text: team, weight: "bolder", size: "large" }] },
    { type: "TextBlock", text: head, wrap: true, isSubtle: true, spacing: "small" },
  ];
  if (batch.test) body.push({ type: "TextBlock", text: TEST_MESSAGE_TEXT, wrap: true, spacing: "medium" });
  for (const item of ordered.slice(0, listed)) body.push(alertContainer(batch, item));
  const rest = ordered.length - listed;
  if (rest > 0) body.push({ type: "TextBlock", text: `…and ${rest} more in the alerts list.`, wrap: true, spacing: "medium" });
  const first = ordered[0];
  const fallback = first ? `${team}: ${head} — ${titleOf(first)}` : `${team}: ${head}`;
  const content: AdaptiveCard = {
    type: "AdaptiveCard",
    $schema: ADAPTIVE_CARD_SCHEMA,
    version: "1.4",
    fallbackText: cut(fallback, 300),
    body,
    actions: [{ type: "Action.OpenUrl", title: "Open alerts", url: alertsLink(batch.siteUrl) }],
    msteams: { width: "Full" },
  };
  return { type: "message", attachments: [{ contentType: "application/vnd.microsoft.card.adaptive", contentUrl: null, content }] };
}

/** One alert: title (coloured by severity, green when resolved), domain · severity · kind, start of body. */
function alertContainer(batch: NotificationBatch, item: NotificationItem): TeamsElement {
  const a = item.alert;
  const resolved = item.action === "resolve";
  const title = cut(titleOf(item), TITLE_MAX);
  const items: TeamsElement[] = [
    {
      type: "RichTextBlock",
      inlines: [
        ...(resolved ? [{ type: "TextRun" as const, text: "Resolved: ", weight: "bolder" as const, color: "good" as const }] : []),
        { type: "TextRun", text: title, weight: "bolder", color: resolved ? "good" : TITLE_COLOR[a.severity] },
      ],
    },
    {
      type: "RichTextBlock",
      spacing: "none",
      inlines: [{ type: "TextRun", text: `${cut(domainName(item), 253)} · ${a.severity} · ${cut(a.kind, 60)}`, isSubtle: true }],
    },
  ];
  const text = excerpt(a.body, BODY_MAX);
  if (text) items.push({ type: "RichTextBlock", spacing: "small", inlines: [{ type: "TextRun", text }] });
  return {
    type: "Container",
    separator: true,
    spacing: "medium",
    items,
    selectAction: { type: "Action.OpenUrl", title: "Open", url: alertLink(batch.siteUrl, a) },
  };
}

const encoder = new TextEncoder();
export const utf8Length = (s: string): number => encoder.encode(s).length;
