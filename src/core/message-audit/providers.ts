// The bulk-sender requirements of Gmail, Yahoo and Microsoft (Outlook.com) as each publishes them
// (docs/bulk-senders.md cites each page and its date), checked against one audited message. Pure, no I/O.

export type RowId = "spf_pass" | "dkim_pass" | "dmarc_record" | "dmarc_alignment" | "fcrdns" | "tls" | "format" | "one_click";
export type RowState = "met" | "not_met" | "cannot_tell";
/** required: the provider's page requires it of bulk senders; recommended: listed as a practice; not_published: not on its page. */
export type Requirement = "required" | "recommended" | "not_published";

export interface ProviderRow {
  id: RowId;
  label: string;
  requirement: Requirement;
  state: RowState;
  detail: string;
  /** What to change; null when met. */
  fix: string | null;
}

export interface ProviderTable {
  provider: "gmail" | "yahoo" | "microsoft";
  name: string;
  source: { title: string; url: string; published: string };
  threshold: string;
  rows: ProviderRow[];
  /** Required rows not met; "cannot tell" rows are not counted. */
  failing: number;
}

/** One row's state, detail and fix, the same for every provider. */
export interface RowFact {
  state: RowState;
  detail: string;
  fix: string | null;
}

export type RowFacts = Record<RowId, RowFact>;

const LABELS: Record<RowId, string> = {
  spf_pass: "SPF passes",
  dkim_pass: "DKIM passes",
  dmarc_record: "DMARC record, at least p=none",
  dmarc_alignment: "DMARC alignment (SPF or DKIM aligned with From)",
  fcrdns: "Forward-confirmed reverse DNS of the sending IP",
  tls: "TLS on the last hop",
  format: "RFC 5322 format (one From, Message-ID, Date)",
  one_click: "One-click unsubscribe for marketing mail (RFC 8058)",
};

interface ProviderRules {
  provider: ProviderTable["provider"];
  name: string;
  source: ProviderTable["source"];
  threshold: string;
  requirements: Record<RowId, Requirement>;
}

/** The rules as of each page's date; docs/bulk-senders.md quotes the wording each row rests on. */
export const PROVIDERS: readonly ProviderRules[] = [
  {
    provider: "gmail",
    name: "Gmail",
    source: { title: "Email sender guidelines", url: "https://support.google.com/a/answer/81126", published: "2024-02-01" },
    threshold: "Senders of more than 5,000 messages a day to personal Gmail accounts (the rules for all senders apply below that).",
    requirements: {
      spf_pass: "required",
      dkim_pass: "required",
      dmarc_record: "required",
      dmarc_alignment: "required",
      fcrdns: "required",
      tls: "required",
      format: "required",
      one_click: "required",
    },
  },
  {
    provider: "yahoo",
    name: "Yahoo",
    source: { title: "Sender Best Practices (Yahoo Sender Hub)", url: "https://senders.yahooinc.com/best-practices/", published: "2024-02-01" },
    threshold: "Bulk senders (Yahoo's bulk-sender rules; Yahoo gives no fixed number, the industry reads it as about 5,000 a day).",
    requirements: {
      spf_pass: "required",
      dkim_pass: "required",
      dmarc_record: "required",
      dmarc_alignment: "required",
      fcrdns: "required",
      tls: "not_published",
      format: "required",
      one_click: "required",
    },
  },
  {
    provider: "microsoft",
    name: "Microsoft (Outlook.com)",
    source: {
      title: "Strengthening Email Ecosystem: Outlook's New Requirements for High-Volume Senders",
      url: "https://techcommunity.microsoft.com/blog/microsoftdefenderforoffice365blog/strengthening-email-ecosystem-outlook%E2%80%99s-new-requirements-for-high%E2%80%90volume-senders/4399730",
      published: "2025-04-02",
    },
    threshold: "Domains sending more than 5,000 messages a day to Outlook.com, Hotmail.com and Live.com, from 2025-05-05.",
    requirements: {
      spf_pass: "required",
      dkim_pass: "required",
      dmarc_record: "required",
      dmarc_alignment: "required",
      fcrdns: "not_published",
      tls: "not_published",
      format: "recommended",
      one_click: "recommended",
    },
  },
];

export function providerTables(facts: RowFacts): ProviderTable[] {
  return PROVIDERS.map((p) => {
    const rows = (Object.keys(LABELS) as RowId[]).map((id) => ({ id, label: LABELS[id], requirement: p.requirements[id], ...facts[id] }));
    return {
      provider: p.provider,
      name: p.name,
      source: p.source,
      threshold: p.threshold,
      rows,
      failing: rows.filter((r) => r.requirement === "required" && r.state === "not_met").length,
    };
  });
}
