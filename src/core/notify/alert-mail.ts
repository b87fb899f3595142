// A grouped notification as an email to a person: subject, plain-text part and HTML part (buildMime in
// ./mime.ts makes the message). Pure: no I/O.
//
// The HTML is written for mail clients, not browsers: a table layout with inline styles (clients drop or
// rewrite <style> and most CSS), no external CSS, scripts or images, at most 600px wide and fluid below it.
// Dark mode: clients that honour `prefers-color-scheme` get the <style> block's overrides (with !important,
// since inline styles win otherwise); clients that ignore it, or invert colours themselves, still get a
// light layout where every coloured cell sets both its background (bgcolor and style) and its text colour.
import {
  cleanText,
  cut,
  domainName,
  escapeHtml,
  excerpt,
  headline,
  MAIL_FONT,
  plural,
  readingOrder,
  TEST_MESSAGE_TEXT,
  tally,
  teamNameOf,
  titleOf,
} from "./render-text";
import type { NotificationBatch, NotificationItem } from "./types";
import { alertLink, alertsLink } from "./types";
import type { Severity } from "../types";

/** Alerts listed one by one in a mail; the rest are counted with a link to the alerts list. */
export const MAIL_MAX_LISTED = 50;
const TITLE_MAX = 200;
const BODY_MAX = 600;
const SUBJECT_TITLE_MAX = 120;

export interface AlertMailLinks {
  unsubscribeUrl: string;
  preferencesUrl: string;
}

/**
 * The one-click unsubscribe headers of every mail to a person (alerts and digests): RFC 2369 §3.2
 * List-Unsubscribe with the HTTPS URI, and RFC 8058 §3.1 List-Unsubscribe-Post (which needs a DKIM signature
 * covering both). Auto-Submitted (RFC 3834 §5) is added by the sender to every such mail.
 */
export function listUnsubscribeHeaders(unsubscribeUrl: string): Record<string, string> {
  return {
    "List-Unsubscribe": `<${unsubscribeUrl}>`,
    "List-Unsubscribe-Post": "List-Unsubscribe=One-Click",
  };
}

export function alertMail(batch: NotificationBatch, opts: AlertMailLinks): { subject: string; text: string; html: string } {
  const ordered = batch.test ? [] : readingOrder(batch.items);
  const listed = ordered.slice(0, MAIL_MAX_LISTED);
  const rest = ordered.length - listed.length;
  return { subject: alertMailSubject(batch), text: textPart(batch, listed, rest, opts), html: htmlPart(batch, listed, rest, opts) };
}

/**
 * "[example.com] DMARC policy changed" for one alert, "Resolved: [example.com] …" for one resolution,
 * "[Team] 10 alerts on 3 domains" (", 2 resolved") for a burst, "Resolved: [Team] 4 alerts on 2 domains"
 * when everything resolved. Always one line (titles may hold line breaks; a header may not).
 */
export function alertMailSubject(batch: NotificationBatch): string {
  const team = cut(teamNameOf(batch), 60);
  if (batch.test) return `[${team}] Test message`;
  const ordered = readingOrder(batch.items);
  const { opened, resolved, domains } = tally(ordered);
  const label = domains.length === 1 ? cut(domains[0] ?? team, 80) : team;
  const title = (item: NotificationItem) => cut(titleOf(item), SUBJECT_TITLE_MAX);
  const where = domains.length > 1 ? ` on ${plural(domains.length, "domain")}` : "";
  const [first] = ordered;
  if (!first) return `[${team}] No alerts`;
  if (ordered.length === 1)
    return `${first.action === "resolve" ? "Resolved: " : ""}[${first.alert.domain ? cut(first.alert.domain.name, 80) : team}] ${title(first)}`;
  if (opened === 0) return `Resolved: [${label}] ${plural(resolved, "alert")}${where}`;
  if (opened === 1) return `[${label}] ${title(first)} (and ${resolved} resolved)`;
  return `[${label}] ${plural(opened, "alert")}${where}${resolved > 0 ? `, ${resolved} resolved` : ""}`;
}

// ---- text part ----

function textPart(batch: NotificationBatch, listed: NotificationItem[], rest: number, opts: AlertMailLinks): string {
  const team = teamNameOf(batch);
  const lines: string[] = [`${team}: ${headline(batch)}`, ""];
  if (batch.test) lines.push(TEST_MESSAGE_TEXT, "");
  for (const item of listed) {
    const a = item.alert;
    lines.push(`${item.action === "resolve" ? "Resolved: " : ""}[${a.severity}] ${domainName(item)}: ${cut(titleOf(item), TITLE_MAX)}`);
    const body = excerpt(a.body, BODY_MAX);
    if (body) lines.push(...body.split("\n").map((l) => `  ${l}`));
    lines.push(`  ${alertLink(batch.siteUrl, a)}`, "");
  }
  if (rest > 0) lines.push(`...and ${rest} more: ${alertsLink(batch.siteUrl)}`, "");
  lines.push(`All alerts: ${alertsLink(batch.siteUrl)}`, "");
  // "-- " is the usual signature separator: clients fold or dim what follows.
  lines.push("-- ", `Alerts of ${team}, from Email-auth monitor.`, `Unsubscribe: ${opts.unsubscribeUrl}`, `Preferences: ${opts.preferencesUrl}`);
  return `${lines.join("\n")}\n`;
}

// ---- HTML part ----

const FONT = MAIL_FONT;
const PAGE_BG = "#f3f4f6";
const CARD_BG = "#ffffff";
const INK = "#1f2328";
const MUTED = "#57606a";
const LINK = "#0b57d0";
const RULE = "#d0d7de";

/** Badge colours: dark text on a light fill, readable whether or not a client applies dark mode. */
const BADGE: Record<Severity | "Resolved", { fg: string; bg: string }> = {
  Critical: { fg: "#8a1c12", bg: "#fee4e2" },
  High: { fg: "#8a3a06", bg: "#fdead7" },
  Medium: { fg: "#6b4a03", bg: "#fef7c3" },
  Low: { fg: "#1d3f8f", bg: "#dbe7fe" },
  Info: { fg: "#374151", bg: "#e5e7eb" },
  Resolved: { fg: "#05603a", bg: "#dcfae6" },
};

const DARK_STYLE = `@media (prefers-color-scheme: dark) {
  .bg { background-color: #0f1216 !important; color: #e6e8eb !important; }
  .card { background-color: #1a1f26 !important; color: #e6e8eb !important; }
  .ink { color: #e6e8eb !important; }
  .muted { color: #a8b1bb !important; }
  .link { color: #8ab4f8 !important; }
  .rule { border-color: #2d343d !important; }
}
@media only screen and (max-width: 620px) {
  .container { width: 100% !important; }
  .pad { padding: 16px !important; }
}`;

function htmlPart(batch: NotificationBatch, listed: NotificationItem[], rest: number, opts: AlertMailLinks): string {
  const team = escapeHtml(teamNameOf(batch));
  const head = escapeHtml(headline(batch));
  const subject = escapeHtml(alertMailSubject(batch));
  const rows = listed.map((item) => alertRow(batch, item)).join("\n");
  const more =
    rest > 0 ? `<p class="ink" style="margin:16px 0 0 0;color:${INK};">…and ${rest} more in ${link(alertsLink(batch.siteUrl), "the alerts list")}.</p>` : "";
  const test = batch.test ? `<p class="ink" style="margin:16px 0 0 0;color:${INK};">${escapeHtml(TEST_MESSAGE_TEXT)}</p>` : "";
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light dark">
<meta name="supported-color-schemes" content="light dark">
<title>${subject}</title>
<style>
${DARK_STYLE}
</style>
</head>
<body class="bg" bgcolor="${PAGE_BG}" style="margin:0;padding:0;background-color:${PAGE_BG};color:${INK};">
<div style="display:none;max-height:0;overflow:hidden;">${subject}</div>
<table role="presentation" class="bg" width="100%" cellpadding="0" cellspacing="0" border="0" bgcolor="${PAGE_BG}" style="background-color:${PAGE_BG};">
<tr><td align="center" style="padding:24px 8px;">
<table role="presentation" class="container card" width="600" cellpadding="0" cellspacing="0" border="0" bgcolor="${CARD_BG}" style="width:100%;max-width:600px;background-color:${CARD_BG};color:${INK};border-radius:6px;">
<tr><td class="pad" style="padding:24px;${FONT};font-size:15px;line-height:1.5;color:${INK};">
<p class="ink" style="margin:0;font-size:20px;font-weight:bold;color:${INK};">${team}</p>
<p class="muted" style="margin:4px 0 0 0;color:${MUTED};">${head}</p>
${test}${rows}
${more}
<p style="margin:24px 0 0 0;">${link(alertsLink(batch.siteUrl), "Open the alerts list")}</p>
</td></tr>
<tr><td class="pad rule" style="padding:16px 24px;border-top:1px solid ${RULE};${FONT};font-size:12px;line-height:1.5;">
<p class="muted" style="margin:0;color:${MUTED};">Alerts of ${team}, from Email-auth monitor.
${link(opts.unsubscribeUrl, "Unsubscribe")} · ${link(opts.preferencesUrl, "Preferences")}</p>
</td></tr>
</table>
</td></tr>
</table>
</body>
</html>
`;
}

function alertRow(batch: NotificationBatch, item: NotificationItem): string {
  const a = item.alert;
  const badge = BADGE[item.action === "resolve" ? "Resolved" : a.severity];
  const label = item.action === "resolve" ? `Resolved · ${a.severity}` : a.severity;
  const body = excerpt(a.body, BODY_MAX);
  const bodyHtml = body ? `\n<p class="ink" style="margin:6px 0 0 0;color:${INK};">${escapeHtml(body).replace(/\n/g, "<br>")}</p>` : "";
  return `<table role="presentation" width="100%" cellpadding="0" cellspacing="0" border="0" style="margin-top:16px;">
<tr><td class="rule" style="padding:12px 0 0 0;border-top:1px solid ${RULE};${FONT};font-size:15px;line-height:1.5;">
<span style="display:inline-block;padding:1px 8px;border-radius:10px;font-size:12px;font-weight:bold;background-color:${badge.bg};color:${badge.fg};">${escapeHtml(label)}</span>
<span class="muted" style="color:${MUTED};font-size:13px;">&nbsp;${escapeHtml(domainName(item))} · ${escapeHtml(cleanText(a.kind))}</span>
<p style="margin:6px 0 0 0;font-weight:bold;">${link(alertLink(batch.siteUrl, a), cut(titleOf(item), TITLE_MAX))}</p>${bodyHtml}
</td></tr>
</table>`;
}

const link = (href: string, text: string): string =>
  `<a class="link" href="${escapeHtml(href)}" style="color:${LINK};text-decoration:underline;">${escapeHtml(text)}</a>`;
