// buildMime's messages read back by an independent parser (postal-mime), and checked line by line against
// RFC 5322 (CRLF, 78/998-character lines, the §3.3 date), RFC 2047 (encoded-words of at most 75 characters),
// RFC 2045 §6.7 (quoted-printable lines of at most 76) and RFC 2046 §5.1 (boundary, alternatives' order).
import fc from "fast-check";
import PostalMime from "postal-mime";
import { describe, expect, it } from "vitest";
import { listUnsubscribeHeaders } from "./alert-mail";
import { buildMime, encodeQuotedPrintable, type MimeMail, rfc5322Date } from "./mime";

const base: MimeMail = {
  from: "Email-auth monitor <alerts@monitor.example>",
  to: "ops@example.com",
  subject: "[example.com] DMARC policy changed",
  text: "Plain part\nsecond line\n",
  html: "<p>HTML part</p>\n",
  headers: { ...listUnsubscribeHeaders("https://monitor.example/unsubscribe/tok123"), "Auto-Submitted": "auto-generated" },
  messageId: "<abc123@monitor.example>",
  date: new Date("2026-11-28T13:52:58Z"),
};

const lines = (raw: string) => raw.split("\r\n");
/** postal-mime ends every text body it returns with one "\n" (a hand-written part "abc" gives "abc\n"): drop it. */
const body = (parsed: string | undefined) => (parsed ?? "").replace(/\n$/, "");
const headerBlock = (raw: string) => raw.slice(0, raw.indexOf("\r\n\r\n"));

describe("buildMime", () => {
  it("parses back: addresses, subject, date, Message-ID, both parts, text/plain first and text/html last", async () => {
    const raw = buildMime(base);
    const mail = await PostalMime.parse(raw);
    expect(mail.from).toEqual({ name: "Email-auth monitor", address: "alerts@monitor.example" });
    expect(mail.to).toEqual([{ name: "", address: "ops@example.com" }]);
    expect(mail.subject).toBe(base.subject);
    expect(mail.messageId).toBe("<abc123@monitor.example>");
    expect(new Date(mail.date ?? "").toISOString()).toBe("2026-11-28T13:52:58.000Z");
    expect(body(mail.text)).toBe("Plain part\nsecond line\n");
    expect(body(mail.html)).toBe("<p>HTML part</p>\n");
    // RFC 2046 §5.1.4: the alternatives in increasing preference, the richer (HTML) last.
    expect(raw.indexOf("Content-Type: text/plain; charset=utf-8")).toBeLessThan(raw.indexOf("Content-Type: text/html; charset=utf-8"));
    const head = headerBlock(raw);
    expect(head).toContain("MIME-Version: 1.0");
    expect(head).toContain("Date: Sat, 28 Nov 2026 13:52:58 +0000");
    expect(head).toMatch(/Content-Type: multipart\/alternative;\s+boundary="=_emailauth_[0-9a-f]{32}"/);
  });

  it("keeps List-Unsubscribe, List-Unsubscribe-Post and Auto-Submitted intact", async () => {
    const mail = await PostalMime.parse(buildMime(base));
    const get = (k: string) => mail.headers.filter((h) => h.key === k).map((h) => h.value);
    expect(get("list-unsubscribe")).toEqual(["<https://monitor.example/unsubscribe/tok123>"]);
    expect(get("list-unsubscribe-post")).toEqual(["List-Unsubscribe=One-Click"]);
    expect(get("auto-submitted")).toEqual(["auto-generated"]);
  });

  it("encodes a non-ASCII subject as RFC 2047 encoded-words that decode to the same text", async () => {
    for (const subject of ["Prüfung — ✓", `Prüfung — ✓ ${"ünïcödé 😀 ".repeat(12)}end`, "日本語のタイトル".repeat(10), "=?utf-8?B?not really?= ascii"]) {
      const raw = buildMime({ ...base, subject });
      const mail = await PostalMime.parse(raw);
      expect(mail.subject).toBe(subject);
      const subjectLines = headerBlock(raw).split("\r\n");
      const start = subjectLines.findIndex((l) => l.startsWith("Subject:"));
      const folded = [subjectLines[start] ?? ""];
      for (let i = start + 1; subjectLines[i]?.startsWith(" "); i++) folded.push(subjectLines[i] ?? "");
      for (const l of folded) expect(l.length).toBeLessThanOrEqual(78);
      for (const word of folded.join(" ").matchAll(/=\?[^?]+\?[BbQq]\?[^?]*\?=/g)) expect(word[0].length).toBeLessThanOrEqual(75);
      if (subject.startsWith("Prüfung")) expect(folded[0]).toMatch(/^Subject: =\?utf-8\?B\?/);
    }
  });

  it("encodes a non-ASCII display name and quotes one with specials", async () => {
    const mail = await PostalMime.parse(buildMime({ ...base, from: "Überwachung <alerts@monitor.example>", to: `"Ops, Team" <ops@example.com>` }));
    expect(mail.from).toEqual({ name: "Überwachung", address: "alerts@monitor.example" });
    expect(mail.to).toEqual([{ name: "Ops, Team", address: "ops@example.com" }]);
  });

  it("folds a long ASCII subject at spaces within 78 characters and unfolds to the same text", async () => {
    const subject = `[Acme] ${"word ".repeat(40)}end`;
    const raw = buildMime({ ...base, subject });
    expect((await PostalMime.parse(raw)).subject).toBe(subject);
    for (const l of lines(headerBlock(raw))) expect(l.length).toBeLessThanOrEqual(78);
  });

  it("quoted-printable: long lines, '=', trailing spaces and tabs, a leading dot, non-ASCII survive the round trip", async () => {
    const text = [
      "a".repeat(300),
      "x=y and =3D literally, =?utf-8?B?abc?=",
      "trailing spaces   ",
      "trailing tab\t",
      ".a line starting with a dot",
      "ünïcödé — ✓ 😀 ".repeat(20),
      "",
      "last",
    ].join("\n");
    const html = `<p style="color:#000">${"long ".repeat(100)}</p>   `;
    const raw = buildMime({ ...base, text, html });
    const mail = await PostalMime.parse(raw);
    expect(body(mail.text)).toBe(text);
    expect(body(mail.html)).toBe(html);
    for (const l of lines(raw)) expect(l.length).toBeLessThanOrEqual(78);
    for (const l of lines(raw.slice(raw.indexOf("\r\n\r\n")))) {
      expect(l.length).toBeLessThanOrEqual(76);
      expect(l).not.toMatch(/[ \t]$/); // RFC 2045 §6.7 (3): no literal white space before a line break
    }
  });

  it("a body holding the boundary text itself cannot end its part", async () => {
    const bytes = new Uint8Array(16).fill(0xab);
    const boundary = `=_emailauth_${"ab".repeat(16)}`;
    const text = `before\n--${boundary}\nContent-Type: text/html\n\n<b>injected</b>\n--${boundary}--\nafter`;
    const raw = buildMime({ ...base, text, html: `<p>--${boundary}</p>` }, { randomBytes: () => bytes });
    expect(raw).toContain(`boundary="${boundary}"`);
    expect(raw.split(`\r\n--${boundary}\r\n`).length).toBe(3); // exactly the two real delimiters
    const mail = await PostalMime.parse(raw);
    expect(body(mail.text)).toBe(text);
    expect(body(mail.html)).toBe(`<p>--${boundary}</p>`);
    expect(mail.attachments).toEqual([]);
  });

  it("uses CRLF only: no bare CR or LF anywhere", () => {
    const raw = buildMime({ ...base, text: "a\nb\rc\r\nd", html: "<p>\n</p>" });
    expect(raw.replace(/\r\n/g, "")).not.toMatch(/[\r\n]/);
    expect(raw.endsWith("--\r\n")).toBe(true);
  });

  it("refuses CR or LF in any header value (header injection)", () => {
    const evil = ["x\r\nBcc: victim@example.org", "x\nBcc: victim@example.org", "x\rBcc: victim@example.org"];
    for (const v of evil) {
      expect(() => buildMime({ ...base, subject: v })).toThrow(/CR or LF/);
      expect(() => buildMime({ ...base, to: `ops@example.com${v}` })).toThrow(/CR or LF/);
      expect(() => buildMime({ ...base, from: `Name${v} <a@b.example>` })).toThrow(/CR or LF/);
      expect(() => buildMime({ ...base, messageId: `<a${v}@b>` })).toThrow(/CR or LF/);
      expect(() => buildMime({ ...base, headers: { "List-Unsubscribe": `<https://x.example/${v}>` } })).toThrow(/CR or LF/);
    }
    expect(() => buildMime({ ...base, headers: { "Bad Name": "v" } })).toThrow(/field name/);
    expect(() => buildMime({ ...base, headers: { "X-A:b": "v" } })).toThrow(/field name/);
    expect(() => buildMime({ ...base, headers: { "content-type": "text/plain" } })).toThrow(/written by buildMime/);
    expect(() => buildMime({ ...base, to: "not an address" })).toThrow(/invalid address/);
  });

  it("formats dates as RFC 5322 §3.3 in UTC", () => {
    expect(rfc5322Date(new Date("2026-01-05T03:04:05Z"))).toBe("Mon, 05 Jan 2026 03:04:05 +0000");
    expect(rfc5322Date(new Date("2024-02-29T23:59:59Z"))).toBe("Thu, 29 Feb 2024 23:59:59 +0000");
  });

  it("quoted-printable matches RFC 2045 §6.7's rules on small cases", () => {
    expect(encodeQuotedPrintable("a=b")).toBe("a=3Db");
    expect(encodeQuotedPrintable("end ")).toBe("end=20");
    expect(encodeQuotedPrintable("é")).toBe("=C3=A9");
    expect(encodeQuotedPrintable("a\nb")).toBe("a\r\nb");
    const soft = encodeQuotedPrintable("é".repeat(40)).split("\r\n");
    expect(soft.every((l) => l.length <= 76)).toBe(true);
    // Soft breaks end every line but the last, and never split an "=XX".
    for (const l of soft.slice(0, -1)) expect(l).toMatch(/^(?:[^=]|=[0-9A-F]{2})*=$/);
  });

  it("any Unicode subject, display name and body survives the round trip (property)", async () => {
    const text = fc.string({ unit: "binary", maxLength: 400 }).filter((x) => !/\p{Cs}/u.test(x)); // well-formed UTF-16 only
    // A subject as alertMail makes it: one line, no control characters, single spaces, trimmed.
    const line = text.map((x) =>
      x
        .replace(/[\p{Cc}\p{Zl}\p{Zp}]/gu, "")
        .replace(/\s+/gu, " ")
        .trim(),
    );
    await fc.assert(
      fc.asyncProperty(line, line, text, text, async (subject, name, plain, html) => {
        const display = name
          .replace(/[<>"\\]/g, "")
          .replace(/\s+/gu, " ")
          .trim();
        const raw = buildMime({ ...base, subject, from: `${display} <alerts@monitor.example>`, text: plain, html });
        const mail = await PostalMime.parse(raw);
        expect(mail.from).toEqual({ name: display, address: "alerts@monitor.example" });
        expect(mail.subject ?? "").toBe(subject);
        expect(body(mail.text)).toBe(plain.replace(/\r\n?/g, "\n"));
        expect(body(mail.html)).toBe(html.replace(/\r\n?/g, "\n"));
        for (const l of lines(raw)) expect(l.length).toBeLessThanOrEqual(78);
        expect(raw.replace(/\r\n/g, "")).not.toMatch(/[\r\n]/);
      }),
      { numRuns: 200 },
    );
  });
});
