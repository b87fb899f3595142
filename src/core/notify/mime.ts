// A raw Internet Message Format message (RFC 5322) with a text and an HTML alternative (RFC 2046 §5.1.4),
// for the send_email binding. Pure: no I/O (the boundary's random bytes come from Web Crypto unless a
// caller passes its own source).
//
// Hand-written rather than a library: what an alert mail needs is small (ASCII or encoded-word headers,
// two quoted-printable parts) and fully covered by the tests, which parse every message back with an
// independent parser (postal-mime); a library would add a dependency for the same few rules (docs/decisions.md D184).
//
// Rules kept:
// - CRLF line endings everywhere (RFC 5322 §2.1); header lines folded at white space to at most 78
//   characters where possible and never over 998 (§2.1.1, §2.2.3).
// - A header value with CR or LF is refused: it would start a header of the caller's choosing (injection).
// - Non-ASCII header text becomes RFC 2047 encoded-words ("B" encoding of UTF-8), each at most 75 characters
//   and holding whole characters (RFC 2047 §2, §5 (3)); an address's display name likewise (§5 (3)).
// - Date in the RFC 5322 §3.3 form ("Sat, 28 Nov 2026 13:52:58 +0000", always UTC).
// - Bodies in quoted-printable (RFC 2045 §6.7): lines at most 76 characters, soft breaks "=", "=" and
//   trailing white space encoded, line breaks kept as CRLF.
// - The boundary contains "=_", which quoted-printable output can never contain (every "=" there is followed
//   by two hex digits or a line break), so it cannot occur in the parts (RFC 2046 §5.1.1); it is checked anyway.

export interface MimeMail {
  from: string;
  to: string;
  subject: string;
  text: string;
  html: string;
  /** Extra header fields, e.g. List-Unsubscribe; may not repeat a field this builder writes. */
  headers?: Record<string, string>;
  /** With or without the angle brackets. */
  messageId: string;
  date: Date;
}

export interface MimeDeps {
  /** Random bytes for the boundary; Web Crypto's by default. */
  randomBytes?: (n: number) => Uint8Array;
}

const CRLF = "\r\n";
const MAX_LINE = 78;
const HARD_MAX_LINE = 998;
const QP_MAX_LINE = 76;

/** Fields this builder writes itself: an extra header may not set them a second time. */
const OWN_FIELDS = new Set(["from", "to", "subject", "date", "message-id", "mime-version", "content-type", "content-transfer-encoding"]);

export function buildMime(mail: MimeMail, deps: MimeDeps = {}): string {
  const randomBytes = deps.randomBytes ?? ((n: number) => crypto.getRandomValues(new Uint8Array(n)));
  const text = encodeQuotedPrintable(mail.text);
  const html = encodeQuotedPrintable(mail.html);
  const boundary = pickBoundary(randomBytes, [text, html]);
  const headers: [string, string][] = [
    ["From", addressField(mail.from)],
    ["To", addressField(mail.to)],
    ["Subject", unstructured("Subject", mail.subject)],
    ["Date", rfc5322Date(mail.date)],
    ["Message-ID", messageIdField(mail.messageId)],
    ["MIME-Version", "1.0"],
  ];
  for (const [name, value] of Object.entries(mail.headers ?? {})) {
    checkFieldName(name);
    if (OWN_FIELDS.has(name.toLowerCase())) throw new Error(`header ${name} is written by buildMime itself`);
    headers.push([name, unstructured(name, value)]);
  }
  headers.push(["Content-Type", `multipart/alternative; boundary="${boundary}"`]);
  const part = (type: string, body: string) =>
    [`--${boundary}`, `Content-Type: ${type}; charset=utf-8`, "Content-Transfer-Encoding: quoted-printable", "", body].join(CRLF);
  return [
    ...headers.map(([name, value]) => fold(name, value)),
    "",
    "This is a message in MIME format: a text part and an HTML part.",
    part("text/plain", text),
    part("text/html", html),
    `--${boundary}--`,
    "",
  ].join(CRLF);
}

// ---- header fields ----

/** RFC 5322 §2.2: a field name is printable US-ASCII except ":". */
function checkFieldName(name: string): void {
  if (!/^[\x21-\x39\x3b-\x7e]+$/.test(name)) throw new Error(`invalid header field name: ${JSON.stringify(name)}`);
}

function refuseLineBreaks(value: string): void {
  if (/[\r\n]/.test(value)) throw new Error("header value contains CR or LF (header injection refused)");
}

const isPrintableAscii = (s: string): boolean => /^[\x20-\x7e]*$/.test(s);

/**
 * Unstructured text (Subject, extra headers): as is when printable ASCII, else as encoded-words. ASCII text
 * that looks like an encoded-word ("=?") is encoded too, so a reader shows it as written.
 */
function unstructured(name: string, value: string): string {
  refuseLineBreaks(value);
  if (isPrintableAscii(value) && !value.includes("=?")) return value;
  return encodedWords(value, firstWordBytes(`${name}: `.length)).join(" ");
}

/** "Name <addr@example>" or "addr@example"; the address must be ASCII, a non-ASCII name is encoded. */
function addressField(value: string): string {
  refuseLineBreaks(value);
  const m = /^\s*(.*?)\s*<([^<>\s]+)>\s*$/.exec(value);
  const address = m ? (m[2] ?? "") : value.trim();
  const name = m ? (m[1] ?? "").replace(/^"(.*)"$/, "$1") : "";
  // A mailbox is dot-atom or quoted local part @ domain (RFC 5322 §3.4.1); international addresses
  // (RFC 6532) are not needed here and are refused rather than sent broken.
  if (!/^[\x21-\x7e]+@[\x21-\x7e]+$/.test(address) || /[<>(),;:\\"[\]]/.test(address)) throw new Error(`invalid address: ${JSON.stringify(address)}`);
  if (name === "") return address;
  // A phrase of atoms goes as is; other ASCII as a quoted-string (RFC 5322 §3.2.3, §3.2.4).
  if (/^[A-Za-z0-9!#$%&'*+\-/=?^_`{|}~ ]+$/.test(name) && !name.includes("=?")) return `${name} <${address}>`;
  if (isPrintableAscii(name) && !name.includes("=?")) return `"${name.replace(/[\\"]/g, "\\$&")}" <${address}>`;
  return `${encodedWords(name, firstWordBytes("From: ".length)).join(" ")} <${address}>`;
}

function messageIdField(id: string): string {
  refuseLineBreaks(id);
  const bare = id.replace(/^<(.*)>$/, "$1");
  // RFC 5322 §3.6.4: id-left "@" id-right, printable ASCII without brackets or spaces.
  if (!/^[\x21-\x3b\x3d\x3f-\x7e]+@[\x21-\x3b\x3d\x3f-\x7e]+$/.test(bare)) throw new Error(`invalid Message-ID: ${JSON.stringify(id)}`);
  return `<${bare}>`;
}

const ENCODED_WORD_MAX = 75;
const ENCODED_WORD_OVERHEAD = "=?utf-8?B??=".length;
/** UTF-8 bytes per encoded-word: its base64 (4 per 3 bytes) plus the overhead within 75, and within one
 * folded line (" " + word <= 78). 45 bytes -> 60 base64 characters -> 72-character words. */
const BYTES_PER_WORD = Math.floor((ENCODED_WORD_MAX - ENCODED_WORD_OVERHEAD) / 4) * 3;

/** Bytes the first encoded-word may hold to fit on the field's first line after `prefix` characters. */
const firstWordBytes = (prefix: number): number => Math.max(0, Math.floor((MAX_LINE - prefix - ENCODED_WORD_OVERHEAD) / 4) * 3);

/**
 * RFC 2047 "B" encoded-words of UTF-8, each holding whole characters; the first holds at most `firstBytes`
 * (none when 0: it then starts on the next line) so that the field's first line fits too.
 */
function encodedWords(s: string, firstBytes: number): string[] {
  const encoder = new TextEncoder();
  const words: string[] = [];
  let chunk: number[] = [];
  let limit = Math.min(firstBytes, BYTES_PER_WORD);
  for (const ch of s) {
    const bytes = encoder.encode(ch);
    if (chunk.length + bytes.length > limit) {
      if (chunk.length > 0) words.push(encodedWord(chunk));
      chunk = [];
      limit = BYTES_PER_WORD;
    }
    chunk.push(...bytes);
  }
  if (chunk.length > 0 || words.length === 0) words.push(encodedWord(chunk));
  return words;
}

const encodedWord = (bytes: number[]): string => `=?utf-8?B?${base64(bytes)}?=`;

function base64(bytes: number[]): string {
  let bin = "";
  for (const b of bytes) bin += String.fromCharCode(b);
  return btoa(bin);
}

/**
 * "Name: value" folded at white space so that lines stay within 78 characters when the value allows it
 * (RFC 5322 §2.2.3: folding inserts CRLF before white space). A word that cannot fit on its own line stays
 * whole; past 998 characters the message would be invalid, so that is refused.
 */
function fold(name: string, value: string): string {
  const lines: string[] = [];
  let line = `${name}:`;
  for (const word of value.split(" ")) {
    const fits = line.length + 1 + word.length <= MAX_LINE;
    // Break before the word unless it is the value's first and would not fit on a line of its own either.
    if (!fits && (line !== `${name}:` || 1 + word.length <= MAX_LINE)) {
      lines.push(line);
      line = ` ${word}`;
    } else {
      line = `${line} ${word}`;
    }
  }
  lines.push(line);
  if (lines.some((l) => l.length > HARD_MAX_LINE)) throw new Error(`header ${name} has a word longer than a line may be`);
  return lines.join(CRLF);
}

const DAYS = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"];
const MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];

/** RFC 5322 §3.3 date-time in UTC: "Sat, 28 Nov 2026 13:52:58 +0000". */
export function rfc5322Date(d: Date): string {
  if (Number.isNaN(d.getTime())) throw new Error("invalid Date");
  const two = (n: number) => String(n).padStart(2, "0");
  return `${DAYS[d.getUTCDay()]}, ${two(d.getUTCDate())} ${MONTHS[d.getUTCMonth()]} ${d.getUTCFullYear()} ${two(d.getUTCHours())}:${two(d.getUTCMinutes())}:${two(d.getUTCSeconds())} +0000`;
}

// ---- body ----

/**
 * Quoted-printable (RFC 2045 §6.7) of UTF-8 text. Line breaks (CRLF, CR or LF) become CRLF (rule 4);
 * printable ASCII except "=" is literal (rule 2), space and tab too except before a line break (rule 3);
 * everything else is "=XX"; lines are cut with a soft break "=" so none exceeds 76 characters (rule 5),
 * never inside an "=XX". A "." opening a line is encoded too, so no transport's dot-stuffing can touch it.
 */
export function encodeQuotedPrintable(text: string): string {
  const encoder = new TextEncoder();
  return text
    .split(/\r\n|\r|\n/)
    .map((line) => {
      const bytes = encoder.encode(line);
      const tokens: string[] = [];
      bytes.forEach((b, i) => {
        const last = i === bytes.length - 1;
        const literal = (b >= 33 && b <= 126 && b !== 61) || ((b === 32 || b === 9) && !last);
        tokens.push(literal && !(i === 0 && b === 46) ? String.fromCharCode(b) : `=${b.toString(16).toUpperCase().padStart(2, "0")}`);
      });
      const out: string[] = [];
      let current = "";
      for (const t of tokens) {
        // Room for the token plus a possible soft break "=" after it.
        if (current.length + t.length > QP_MAX_LINE - 1) {
          out.push(`${current}=`);
          current = "";
        }
        current += t;
      }
      out.push(current);
      return out.join(CRLF);
    })
    .join(CRLF);
}

function pickBoundary(randomBytes: (n: number) => Uint8Array, parts: string[]): string {
  for (let attempt = 0; attempt < 8; attempt++) {
    const hex = [...randomBytes(16)].map((b) => b.toString(16).padStart(2, "0")).join("");
    const boundary = `=_emailauth_${hex}`;
    if (!parts.some((p) => p.includes(`--${boundary}`))) return boundary;
  }
  throw new Error("no boundary that the parts do not contain");
}
