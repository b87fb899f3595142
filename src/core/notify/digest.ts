// The digest mail (issue 30 §3): the team's totals first, then each domain's grade and its change over
// the period, the next step of its remediation plan, DMARC volume and pass rate with new senders and
// silent reporters, the TLS failure rate and open alerts (docs/decisions.md D189). Rendered as a text
// part and an HTML part that common clients show well: layout tables, inline styles, at most 600 px
// wide, readable on a phone and in dark mode, every piece of user text escaped. Pure: no I/O.
import type { Grade } from "../posture/score";
import { cleanText, escapeHtml, MAIL_FONT, oneLine } from "./render-text";

export interface DigestDomain {
  id: number;
  name: string;
  grade: Grade | null;
  /** The grade of the last check before the period began; null when the domain had none then. */
  gradeBefore: Grade | null;
  score: number | null;
  /** The first step of the stored remediation plan, by its title; null when nothing is left to do. */
  nextStep: string | null;
  dmarcMessages: number;
  /** Share of messages that passed DMARC (0..1), null without reports. */
  dmarcPassRate: number | null;
  newSenders: number;
  silentReporters: number;
  tlsSessions: number;
  /** Share of TLS sessions that failed (0..1), null without TLS reports. */
  tlsFailureRate: number | null;
  openAlerts: number;
}

export interface DigestModel {
  team: string;
  frequency: "weekly" | "daily";
  /** "2026-W48" or "2026-11-28", the team's local period. */
  period: string;
  days: number;
  siteUrl: string;
  totals: {
    domains: number;
    averageScore: number | null;
    grades: Partial<Record<Grade | "none", number>>;
    openAlerts: number;
    dmarcMessages: number;
    dmarcPassRate: number | null;
    tlsSessions: number;
    tlsFailureRate: number | null;
  };
  /** At most the digest's domain limit (docs/limits.md); rendered worst grade first. */
  domains: DigestDomain[];
  /** Domains of the team not listed (past the limit). */
  moreDomains: number;
}

/** The links of one recipient: one-click unsubscribe and frequency changes, and the settings page. */
export interface DigestLinks {
  unsubscribe: string;
  /** Switch to the other frequency in one click (null when not offered). */
  switchTo: { frequency: "weekly" | "daily"; url: string } | null;
  settings: string;
}

export interface RenderedMail {
  subject: string;
  text: string;
  html: string;
}

const GRADE_ORDER: readonly (Grade | "none")[] = ["F", "D", "C", "B", "A", "A+", "none"];
const rank = (g: Grade | null) => GRADE_ORDER.indexOf(g ?? "none");

/** Worst first (the domains that need attention lead), then by name. */
export function orderDomains(domains: DigestDomain[]): DigestDomain[] {
  return [...domains].sort((a, b) => rank(a.grade) - rank(b.grade) || a.name.localeCompare(b.name));
}

export const percent = (rate: number | null): string => (rate === null ? "no data" : `${(Math.round(rate * 1000) / 10).toFixed(1)}%`);

export function gradeChange(d: Pick<DigestDomain, "grade" | "gradeBefore">): string {
  if (d.grade === null) return "not checked yet";
  if (d.gradeBefore === null) return "new this period";
  if (d.gradeBefore === d.grade) return "unchanged";
  return `${rank(d.grade) > rank(d.gradeBefore) ? "up" : "down"} from ${d.gradeBefore}`;
}

const plural = (n: number, one: string, many = `${one}s`) => `${n.toLocaleString("en-US")} ${n === 1 ? one : many}`;

const periodWords = (m: DigestModel) => (m.frequency === "weekly" ? `week ${m.period}` : m.period);

export function digestSubject(m: DigestModel): string {
  const alerts = m.totals.openAlerts > 0 ? `, ${plural(m.totals.openAlerts, "open alert")}` : "";
  return oneLine(`${m.frequency === "weekly" ? "Weekly" : "Daily"} digest for ${m.team}: ${plural(m.totals.domains, "domain")}${alerts} (${periodWords(m)})`);
}

const gradeCounts = (m: DigestModel) =>
  GRADE_ORDER.filter((g) => (m.totals.grades[g] ?? 0) > 0)
    .map((g) => `${g === "none" ? "not checked" : g}: ${m.totals.grades[g]}`)
    .join(", ") || "none";

function totalsLines(m: DigestModel): Array<[string, string]> {
  return [
    ["Domains", String(m.totals.domains)],
    ["Average score", m.totals.averageScore === null ? "no checks yet" : `${m.totals.averageScore} / 100`],
    ["Grades", gradeCounts(m)],
    ["Open alerts", String(m.totals.openAlerts)],
    ["DMARC messages", `${m.totals.dmarcMessages.toLocaleString("en-US")} (pass rate ${percent(m.totals.dmarcPassRate)})`],
    ["TLS failure rate", m.totals.tlsSessions > 0 ? `${percent(m.totals.tlsFailureRate)} of ${plural(m.totals.tlsSessions, "session")}` : "no TLS reports"],
  ];
}

function domainLines(d: DigestDomain): Array<[string, string]> {
  const dmarc = d.dmarcMessages > 0 ? `${d.dmarcMessages.toLocaleString("en-US")} messages, ${percent(d.dmarcPassRate)} pass` : "no DMARC reports this period";
  const senders = [d.newSenders > 0 ? plural(d.newSenders, "new sender") : "", d.silentReporters > 0 ? plural(d.silentReporters, "silent reporter") : ""]
    .filter(Boolean)
    .join(", ");
  return [
    ["Grade", `${d.grade ?? "-"}${d.score === null ? "" : ` (${d.score})`}, ${gradeChange(d)}`],
    ["Next step", d.nextStep === null ? "nothing left in the plan" : oneLine(d.nextStep)],
    ["DMARC", senders ? `${dmarc}; ${senders}` : dmarc],
    ["TLS failures", d.tlsSessions > 0 ? `${percent(d.tlsFailureRate)} of ${plural(d.tlsSessions, "session")}` : "no TLS reports"],
    ["Open alerts", String(d.openAlerts)],
  ];
}

const base = (m: DigestModel) => m.siteUrl.replace(/\/+$/, "");
const domainUrl = (m: DigestModel, d: DigestDomain) => `${base(m)}/domains/${d.id}`;

export function digestText(m: DigestModel, links: DigestLinks): string {
  const out: string[] = [digestSubject(m), "", "Team totals"];
  for (const [k, v] of totalsLines(m)) out.push(`  ${k}: ${v}`);
  for (const d of orderDomains(m.domains)) {
    out.push("", `${oneLine(d.name)} - ${domainUrl(m, d)}`);
    for (const [k, v] of domainLines(d)) out.push(`  ${k}: ${v}`);
  }
  if (m.moreDomains > 0) out.push("", `And ${plural(m.moreDomains, "more domain")}: ${base(m)}/domains`);
  if (m.domains.length === 0) out.push("", `No domains yet. Add one at ${base(m)}/domains/new`);
  out.push("", "--", `Change how often you get this: ${links.settings}`);
  if (links.switchTo) out.push(`Get it ${links.switchTo.frequency} instead: ${links.switchTo.url}`);
  out.push(`Stop these digests: ${links.unsubscribe}`);
  return cleanText(out.join("\n"));
}

const FONT = MAIL_FONT;

function rows(lines: Array<[string, string]>): string {
  return lines
    .map(
      ([k, v]) =>
        `<tr><td class="muted" style="padding:4px 12px 4px 0;color:#555555;font-size:14px;vertical-align:top;white-space:nowrap">${escapeHtml(k)}</td>` +
        `<td style="padding:4px 0;font-size:14px;color:#111111">${escapeHtml(v)}</td></tr>`,
    )
    .join("");
}

function section(title: string, body: string, href?: string): string {
  const heading = href ? `<a href="${escapeHtml(href)}" style="color:#0b57d0;text-decoration:none">${escapeHtml(title)}</a>` : escapeHtml(title);
  return (
    `<tr><td class="card" style="padding:16px;background:#ffffff;border:1px solid #dddddd;border-radius:6px">` +
    `<h2 style="margin:0 0 8px 0;font-size:17px;color:#111111;word-break:break-word">${heading}</h2>` +
    `<table role="presentation" width="100%" cellpadding="0" cellspacing="0" border="0">${body}</table></td></tr>` +
    `<tr><td style="height:12px;line-height:12px;font-size:0">&nbsp;</td></tr>`
  );
}

export function digestHtml(m: DigestModel, links: DigestLinks): string {
  const subject = digestSubject(m);
  const link = (href: string, label: string) => `<a href="${escapeHtml(href)}" style="color:#0b57d0">${escapeHtml(label)}</a>`;
  const parts = [section("Team totals", rows(totalsLines(m)))];
  for (const d of orderDomains(m.domains)) parts.push(section(d.name, rows(domainLines(d)), domainUrl(m, d)));
  if (m.moreDomains > 0) parts.push(section(`And ${plural(m.moreDomains, "more domain")}`, rows([["All domains", `${base(m)}/domains`]])));
  if (m.domains.length === 0) parts.push(section("No domains yet", rows([["Add one", `${base(m)}/domains/new`]])));
  const footer = [
    link(links.settings, "Change how often you get this"),
    links.switchTo ? link(links.switchTo.url, `Get it ${links.switchTo.frequency} instead`) : "",
    link(links.unsubscribe, "Stop these digests"),
  ]
    .filter(Boolean)
    .join(" &middot; ");
  return `<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light dark"><meta name="supported-color-schemes" content="light dark">
<title>${escapeHtml(subject)}</title>
<style>
@media (prefers-color-scheme: dark) {
  body, .page { background:#111418 !important; }
  .card { background:#1c2128 !important; border-color:#30363d !important; }
  .card td, .card h2, h1 { color:#e6edf3 !important; }
  .muted, .card td.muted { color:#9da7b3 !important; }
  a { color:#7cb4ff !important; }
}
</style></head>
<body style="margin:0;padding:0;background:#f4f5f7;${FONT}">
<table role="presentation" class="page" width="100%" cellpadding="0" cellspacing="0" border="0" style="background:#f4f5f7">
<tr><td align="center" style="padding:16px 8px">
<table role="presentation" width="100%" cellpadding="0" cellspacing="0" border="0" style="max-width:600px;width:100%">
<tr><td style="padding:0 0 12px 0"><h1 style="margin:0;font-size:20px;color:#111111;${FONT}">${escapeHtml(subject)}</h1></td></tr>
${parts.join("\n")}
<tr><td class="muted" style="padding:8px 0;font-size:13px;color:#555555">${footer}</td></tr>
</table></td></tr></table></body></html>`;
}

export function renderDigest(m: DigestModel, links: DigestLinks): RenderedMail {
  return { subject: digestSubject(m), text: digestText(m, links), html: digestHtml(m, links) };
}
