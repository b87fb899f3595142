/** @jsxImportSource hono/jsx */
// What each alert kind means, in one line, and where to look next: the alerts page and the overview
// show these next to the alert's own title and body. The facts come from what the alert stores (its
// subject, title and body, written by the producers of docs/decisions.md D102-D104; D37); a fact that
// cannot be read is left out rather than guessed. No I/O.
import type { FC } from "hono/jsx";
import type { AlertView } from "../services/alerts/list-alerts";
import { plural } from "./domain-format";

export interface AlertGuide {
  label: string;
  line: string;
  link: { href: string; text: string } | null;
}

/** new_sender (D103): the address is the subject (`sender:<ip>`); the sender is in the title, the counts in the body. */
export function newSenderFacts(a: Pick<AlertView, "subject" | "title" | "body">) {
  const ip = a.subject.startsWith("sender:") ? a.subject.slice(7) : null;
  const sender = /^New sender \S+ \((.+)\) failing DMARC/.exec(a.title)?.[1] ?? null;
  const body = a.body ?? "";
  const messages = /saw (\d+) messages from /.exec(body)?.[1];
  const failed = /; (\d+) failed DMARC/.exec(body)?.[1];
  return { ip, sender, messages: messages === undefined ? null : Number(messages), failed: failed === undefined ? null : Number(failed) };
}

/** reports_missing (D104): the title names the reporters that went quiet, after " from ". */
export function quietReporters(a: Pick<AlertView, "title">): string | null {
  const i = a.title.lastIndexOf(" from ");
  return i >= 0 ? a.title.slice(i + 6) : null;
}

export function alertGuide(a: AlertView): AlertGuide {
  const domain = a.domain ?? "the domain";
  const page = a.domain_id === null ? null : `/domains/${a.domain_id}`;
  const to = (path: string, text: string) => (page === null ? null : { href: `${page}${path}`, text });
  switch (a.kind) {
    case "tls_failure":
      return {
        label: "SMTP TLS failures",
        line: `Receivers reported a share of failed TLS sessions to the MX hosts of ${domain} well above normal: senders enforcing MTA-STS or DANE hold or bounce that mail, others may send it unencrypted.`,
        link: to("/tls", "SMTP TLS reports, with the advice per failure type"),
      };
    case "new_sender": {
      const f = newSenderFacts(a);
      const who = `${f.ip ?? "An address"}${f.sender ? ` (${f.sender})` : ""}`;
      const counts =
        f.messages !== null && f.failed !== null ? `${plural(f.messages, "message")}, ${f.failed.toLocaleString("en")} failing DMARC` : "mail failing DMARC";
      return {
        label: "New sender failing DMARC",
        line: `${who} sent ${counts} as ${domain} and was never seen before: authorize it (SPF and DKIM) if it sends for you; if not, it is spoofing the domain.`,
        link: f.ip === null ? to("/dmarc", "DMARC sources") : to(`/dmarc/sources?ip=${encodeURIComponent(f.ip)}`, `${f.ip} in the DMARC sources`),
      };
    }
    case "reports_missing": {
      const who = quietReporters(a);
      return {
        label: "DMARC reports stopped",
        line: `${who ?? "Reporters"} sent aggregate reports for ${domain} nearly every day and then none for 3 days: check that the rua tag of _dmarc.${domain} still names the report address.`,
        link: to("/dmarc#dmarc-reports", "DMARC reports received"),
      };
    }
    case "dmarc_failure_spike":
      return {
        label: "DMARC failure spike",
        line: `A report showed a much larger share of mail failing DMARC for ${domain} than usual.`,
        link: to("/dmarc", "DMARC reports and sources"),
      };
    case "drift":
      return {
        label: "DNS record changed",
        line: `A record the last check read for ${domain} differs from the one before.`,
        link: to("", "Posture and changes"),
      };
    case "blacklist":
      return {
        label: "Blocklisted",
        line: "An address or name of the domain appeared on a DNS blocklist; receivers using it refuse or junk its mail.",
        link: to("", "Posture"),
      };
    case "expiry":
      return {
        label: "Registration expiring",
        line: `The registration of ${domain} ends soon; an expired domain stops receiving and authenticating mail.`,
        link: to("", "Domain"),
      };
    case "dkim":
      return {
        label: "DKIM key problem",
        line: "A DKIM selector of the domain has a serious finding; signatures with it may fail.",
        link: to("", "DKIM selectors"),
      };
    case "ownership":
      return {
        label: "Ownership not verified",
        line: "The verification record is gone, so monitoring and report ingestion stopped.",
        link: to("/verify", "Verify again"),
      };
    case "hosting":
      return {
        label: "Hosted policy or mark",
        line: `What receivers fetch for ${domain} differs from what this service hosts (a stale MTA-STS id, a BIMI certificate expiring or not matching its logo).`,
        link: to("/hosting", "Hosting"),
      };
    default:
      return { label: a.kind, line: "", link: null };
  }
}

/** The label, the one-line explanation and the link, under an alert's title. */
export const AlertGuideLine: FC<{ alert: AlertView }> = ({ alert }) => {
  const g = alertGuide(alert);
  return (
    <div class="small alert-guide">
      <span class="badge">{g.label}</span> {g.line}
      {g.link && (
        <>
          {" "}
          <a href={g.link.href}>{g.link.text}</a>
        </>
      )}
    </div>
  );
};
