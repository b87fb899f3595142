// RFC 5322 format checks the mailbox providers name (one From, a Message-ID, a Date, RFC 5322 §3.6) and
// whether a message reads as bulk/marketing mail. Pure, no I/O.
import type { HeaderField } from "../dkim/message";

export interface FormatCheck {
  from_count: number;
  message_id: boolean;
  date: boolean;
  ok: boolean;
  problems: string[];
}

export function checkFormat(headers: HeaderField[]): FormatCheck {
  const count = (k: string) => headers.filter((h) => h.key === k).length;
  const from = count("from");
  const mid = count("message-id");
  const date = count("date");
  const problems: string[] = [];
  // RFC 5322 §3.6: exactly one From and one Date; Message-ID SHOULD be present and at most once.
  if (from !== 1) problems.push(from === 0 ? "no From field" : `${from} From fields (exactly one is allowed, RFC 5322 §3.6)`);
  if (mid === 0) problems.push("no Message-ID field (RFC 5322 §3.6.4)");
  else if (mid > 1) problems.push(`${mid} Message-ID fields (at most one, RFC 5322 §3.6)`);
  if (date === 0) problems.push("no Date field (RFC 5322 §3.6.1)");
  else if (date > 1) problems.push(`${date} Date fields (exactly one, RFC 5322 §3.6)`);
  return { from_count: from, message_id: mid === 1, date: date === 1, ok: problems.length === 0, problems };
}

export interface MarketingGuess {
  /** true: bulk/marketing; null: nothing in the headers says so, but the headers cannot rule it out. */
  marketing: boolean | null;
  evidence: string[];
}

/**
 * The providers require one-click unsubscribe for "marketing" or "subscribed" messages; only the
 * sender knows which mail is which. A List-Unsubscribe field or Precedence: bulk/list (RFC 2076 §3.9)
 * says it is list mail; nothing else in the headers can say that it is not.
 */
export function guessMarketing(headers: HeaderField[]): MarketingGuess {
  const evidence: string[] = [];
  if (headers.some((h) => h.key === "list-unsubscribe")) evidence.push("List-Unsubscribe present");
  const precedence = headers
    .find((h) => h.key === "precedence")
    ?.value.trim()
    .toLowerCase();
  if (precedence === "bulk" || precedence === "list") evidence.push(`Precedence: ${precedence}`);
  if (headers.some((h) => h.key === "list-id")) evidence.push("List-Id present");
  return { marketing: evidence.length > 0 ? true : null, evidence };
}
