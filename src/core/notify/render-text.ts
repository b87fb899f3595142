// What every renderer of a notification says the same way: the order alerts are listed in, the counts in
// a headline, and how user text (titles, bodies, domain names) is cleaned and cut to a channel's limits.
// Pure: no I/O.
import type { NotificationBatch, NotificationItem } from "./types";
import { severityRank } from "./types";

/** Ellipsis that marks text cut to fit a limit. */
export const ELLIPSIS = "…";

/**
 * Cuts `s` to at most `max` UTF-16 code units (the unit JavaScript's `length` and the channels' "characters"
 * count in), ending with "…" when cut, never splitting a surrogate pair.
 */
export function cut(s: string, max: number): string {
  if (s.length <= max) return s;
  if (max <= 0) return "";
  let end = max - ELLIPSIS.length;
  // A high surrogate at the cut would be left without its pair.
  if (end > 0 && isHighSurrogate(s.charCodeAt(end - 1))) end -= 1;
  return `${s.slice(0, Math.max(0, end))}${ELLIPSIS}`;
}

export const isHighSurrogate = (c: number): boolean => c >= 0xd800 && c <= 0xdbff;

/**
 * User text as a channel may show it: line breaks normalized to "\n", other control characters (C0, DEL, C1)
 * removed (they render as boxes or break JSON-escaped payloads' budgets), surrounding space trimmed.
 */
export function cleanText(s: string): string {
  return (
    s
      .replace(/\r\n?/g, "\n")
      // biome-ignore lint/suspicious/noControlCharactersInRegex: removing control characters is the point
      .replace(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g, "")
      .trim()
  );
}

/** User text on one line (subjects, headers, summaries): every run of white space becomes one space. */
export const oneLine = (s: string): string => cleanText(s).replace(/\s+/g, " ");

/** The start of an alert's body for a listing, or null when it has none. */
export function excerpt(body: string | null, max: number): string | null {
  if (body === null) return null;
  const text = cleanText(body).replace(/\n{3,}/g, "\n\n");
  return text === "" ? null : cut(text, max);
}

/**
 * The order every channel lists alerts in: openings before resolutions (an opening asks for action), each
 * from the most to the least severe, then the oldest first; the sort is stable, so equal items keep the
 * batch's order. When a channel cannot list everything, what it leaves out is therefore the least urgent.
 */
export function readingOrder(items: readonly NotificationItem[]): NotificationItem[] {
  return items
    .map((item, index) => ({ item, index }))
    .sort(
      (a, b) =>
        actionRank(a.item) - actionRank(b.item) ||
        severityRank(a.item.alert.severity) - severityRank(b.item.alert.severity) ||
        a.item.alert.at.localeCompare(b.item.alert.at) ||
        a.index - b.index,
    )
    .map((x) => x.item);
}

const actionRank = (item: NotificationItem): number => (item.action === "trigger" ? 0 : 1);

export interface Tally {
  opened: number;
  resolved: number;
  /** Distinct domain names, in reading order. */
  domains: string[];
}

export function tally(items: readonly NotificationItem[]): Tally {
  const domains = [...new Set(readingOrder(items).flatMap((i) => (i.alert.domain ? [i.alert.domain.name] : [])))];
  return {
    opened: items.filter((i) => i.action === "trigger").length,
    resolved: items.filter((i) => i.action === "resolve").length,
    domains,
  };
}

export const plural = (n: number, one: string, many = `${one}s`): string => `${n} ${n === 1 ? one : many}`;

/** "3 alerts opened / 1 resolved", "1 alert resolved", or "Test message" for a channel's test. */
export function headline(batch: NotificationBatch): string {
  if (batch.test) return "Test message";
  const { opened, resolved } = tally(batch.items);
  if (opened > 0 && resolved > 0) return `${plural(opened, "alert")} opened / ${resolved} resolved`;
  if (resolved > 0) return `${plural(resolved, "alert")} resolved`;
  return `${plural(opened, "alert")} opened`;
}

/** What a channel's test message says (every channel says the same). */
export const TEST_MESSAGE_TEXT = "This is a test message. The channel works: alerts of this team will be delivered here.";

/** "example.com", or "no domain" for an alert about the team itself. */
export const domainName = (item: NotificationItem): string => item.alert.domain?.name ?? "no domain";

/** "Resolved: " before a resolution's title, nothing before an opening's. */
export const actionPrefix = (item: NotificationItem): string => (item.action === "resolve" ? "Resolved: " : "");

/** An alert's title on one line; never empty (an empty link label or subject would say nothing). */
export const titleOf = (item: NotificationItem): string => oneLine(item.alert.title) || "(untitled alert)";

/** The team's name on one line; never empty. */
export const teamNameOf = (batch: NotificationBatch): string => oneLine(batch.team.name) || "Your team";

/**
 * The text style of mail HTML (alerts and digests): the platform font stack, and long unbreakable strings
 * (records, keys, URLs) wrap instead of widening the message past a phone's screen.
 */
export const MAIL_FONT =
  "font-family:-apple-system,BlinkMacSystemFont,'Segoe UI',Roboto,Helvetica,Arial,sans-serif;overflow-wrap:anywhere;word-break:break-word";

/** Escapes text for HTML element content and double- or single-quoted attribute values (mail HTML, every user value). */
export const escapeHtml = (s: string): string =>
  s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;").replace(/'/g, "&#39;");
