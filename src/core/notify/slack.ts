// A grouped notification as a Slack message for an incoming webhook: Block Kit blocks plus the top-level
// `text` Slack shows in notifications. Pure: no I/O.
//
// Slack's published limits this stays within (the test's validator, test/support/block-kit.ts, checks them):
// - at most 50 blocks in a message: https://docs.slack.dev/reference/block-kit/blocks
// - header block: plain_text of at most 150 characters: https://docs.slack.dev/reference/block-kit/blocks/header-block
// - section block: text of at most 3000 characters: https://docs.slack.dev/reference/block-kit/blocks/section-block
// - context block: at most 10 elements: https://docs.slack.dev/reference/block-kit/blocks/context-block
// - button element: text at most 75 characters, url at most 3000: https://docs.slack.dev/reference/block-kit/block-elements/button-element
// - top-level `text`: kept well under 4000 characters, the length Slack advises for it (longer is truncated):
//   https://docs.slack.dev/reference/methods/chat.postMessage
// User text is escaped as "Formatting text" says (&, <, > are control characters and become &amp; &lt; &gt;):
// https://docs.slack.dev/messaging/formatting-message-text#escaping
import {
  actionPrefix,
  cut,
  domainName,
  ELLIPSIS,
  excerpt,
  headline,
  isHighSurrogate,
  readingOrder,
  TEST_MESSAGE_TEXT,
  teamNameOf,
  titleOf,
} from "./render-text";
import type { NotificationBatch, NotificationItem } from "./types";
import { alertLink, alertsLink } from "./types";
import type { Severity } from "../types";

export interface SlackPlainText {
  type: "plain_text";
  text: string;
  emoji?: boolean;
}
export interface SlackMrkdwn {
  type: "mrkdwn";
  text: string;
}
export type SlackBlock =
  | { type: "header"; text: SlackPlainText }
  | { type: "section"; text: SlackMrkdwn }
  | { type: "context"; elements: (SlackMrkdwn | SlackPlainText)[] }
  | { type: "divider" };

/** Published limits (see the head of this file). */
export const SLACK_LIMITS = {
  blocks: 50,
  headerText: 150,
  sectionText: 3000,
  contextElements: 10,
  buttonText: 75,
  url: 3000,
  fallbackText: 4000,
} as const;

/**
 * Alerts listed one by one; the rest are counted in "…and N more". 20 sections plus the header, the "more"
 * line and the context stay far below the 50-block limit and keep a burst readable on a phone.
 */
export const SLACK_MAX_LISTED = 20;

// Budgets inside one section, in characters after escaping, so that their sum (plus the fixed words) stays
// under the section's 3000: title 300, body 1200, link 1000.
const TITLE_MAX = 300;
const BODY_MAX = 1200;
const LINK_MAX = 1000;
const FALLBACK_MAX = 300;

const SEVERITY_EMOJI: Record<Severity, string> = {
  Critical: ":red_circle:",
  High: ":large_orange_circle:",
  Medium: ":large_yellow_circle:",
  Low: ":large_blue_circle:",
  Info: ":white_circle:",
};

export function slackMessage(batch: NotificationBatch): { text: string; blocks: SlackBlock[] } {
  const head = headline(batch);
  const header: SlackBlock = { type: "header", text: { type: "plain_text", text: headerText(teamNameOf(batch), head), emoji: true } };
  const context = contextBlock(batch);
  if (batch.test) {
    return {
      text: mrkdwnCut(`${teamNameOf(batch)}: ${head}`, FALLBACK_MAX),
      blocks: [header, { type: "section", text: { type: "mrkdwn", text: escapeMrkdwn(TEST_MESSAGE_TEXT) } }, context],
    };
  }
  const ordered = readingOrder(batch.items);
  const listed = ordered.slice(0, SLACK_MAX_LISTED);
  const rest = ordered.length - listed.length;
  const blocks: SlackBlock[] = [
    header,
    ...listed.map((item) => ({ type: "section" as const, text: { type: "mrkdwn" as const, text: alertText(batch, item) } })),
  ];
  if (rest > 0) blocks.push({ type: "section", text: { type: "mrkdwn", text: `${linked(alertsLink(batch.siteUrl), `…and ${rest} more`)}` } });
  blocks.push(context);
  return { text: fallbackText(batch, head, ordered[0]), blocks };
}

/** "Team · 3 alerts opened / 1 resolved" within 150 characters: the team name gives way first. */
function headerText(team: string, head: string): string {
  const room = SLACK_LIMITS.headerText - head.length - 3;
  return cut(`${cut(team, Math.max(room, 1))} · ${head}`, SLACK_LIMITS.headerText);
}

/** One alert: its title linked to its page, then domain, severity and kind, then the start of its body. */
function alertText(batch: NotificationBatch, item: NotificationItem): string {
  const a = item.alert;
  const title = mrkdwnCut(titleOf(item), TITLE_MAX);
  const lead = item.action === "resolve" ? ":white_check_mark: Resolved:" : SEVERITY_EMOJI[a.severity];
  const meta = `${mrkdwnCut(domainName(item), 260)} · ${a.severity} · ${mrkdwnCut(a.kind, 60)}`;
  const body = excerpt(a.body, 2000);
  const lines = [`${lead} *${linkedEscaped(alertLink(batch.siteUrl, a), title)}*`, meta];
  if (body) lines.push(mrkdwnCut(body, BODY_MAX));
  return lines.join("\n");
}

function contextBlock(batch: NotificationBatch): SlackBlock {
  return {
    type: "context",
    elements: [{ type: "mrkdwn", text: `${mrkdwnCut(teamNameOf(batch), 200)} · ${linked(alertsLink(batch.siteUrl), "All alerts")}` }],
  };
}

/** The notification text: the headline and the most urgent alert, short (phones show about one line). */
function fallbackText(batch: NotificationBatch, head: string, first: NotificationItem | undefined): string {
  const lead = first ? ` — ${actionPrefix(first)}[${first.alert.severity}] ${domainName(first)}: ${titleOf(first)}` : "";
  return mrkdwnCut(`${teamNameOf(batch)}: ${head}${lead}`, FALLBACK_MAX);
}

/** Escapes Slack's three control characters in user text ("Formatting text", Escaping). */
export function escapeMrkdwn(s: string): string {
  return s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
}

/**
 * Escapes, then cuts to `max` characters of the escaped text (what Slack counts) without splitting an
 * entity or a surrogate pair.
 */
export function mrkdwnCut(raw: string, max: number): string {
  const escaped = escapeMrkdwn(raw);
  if (escaped.length <= max) return escaped;
  let end = Math.max(0, max - ELLIPSIS.length);
  // Every "&" of escaped text starts an entity: one that straddles the cut is dropped whole.
  const amp = escaped.lastIndexOf("&", end - 1);
  if (amp >= 0 && escaped.indexOf(";", amp) >= end) end = amp;
  if (end > 0 && isHighSurrogate(escaped.charCodeAt(end - 1))) end -= 1;
  return `${escaped.slice(0, end)}${ELLIPSIS}`;
}

/** `<url|label>` with a raw label; just the label when the URL is too long to carry. */
const linked = (url: string, label: string): string => linkedEscaped(url, escapeMrkdwn(label));

function linkedEscaped(url: string, escapedLabel: string): string {
  if (url.length > LINK_MAX) return escapedLabel;
  // "|" ends the URL part of a link and "<", ">" delimit it, so they are percent-encoded (RFC 3986 §2.1).
  const safe = escapeMrkdwn(url.replace(/\|/g, "%7C").replace(/</g, "%3C").replace(/>/g, "%3E"));
  return `<${safe}|${escapedLabel}>`;
}
