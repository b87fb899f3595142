// Canonicalization matrix (RFC 6376 §3.4), header selection (§5.4.2) and b= emptying (§3.5/§3.7).
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { BodyHashes, canonBodyOctets } from "./body-canon";
import { bytesEqual } from "./bytes";
import { canonBody, canonBodyBytes, canonHeaderRelaxed, canonHeaderSimple, selectHeaders, signedHeaderData, withEmptyB } from "./canonicalize";
import { parseMessage, type HeaderField } from "./message";

const field = (raw: string): HeaderField => {
  const h = parseMessage(`${raw}\r\n\r\n`).headers[0];
  if (!h) throw new Error("no header");
  return h;
};

describe("header canonicalization", () => {
  const cases: Array<[string, string, string]> = [
    // [raw field, simple, relaxed]
    ["Subject: hi", "Subject: hi\r\n", "subject:hi\r\n"],
    ["SUBJECT:   hi   there  ", "SUBJECT:   hi   there  \r\n", "subject:hi there\r\n"],
    ["Subject \t: \thi", "Subject \t: \thi\r\n", "subject:hi\r\n"],
    ["Subject: a\r\n  folded\r\n\tline", "Subject: a\r\n  folded\r\n\tline\r\n", "subject:a folded line\r\n"],
    ["To: x\t\t\ty", "To: x\t\t\ty\r\n", "to:x y\r\n"],
    ["X-Empty:", "X-Empty:\r\n", "x-empty:\r\n"],
    ["X-Empty:   ", "X-Empty:   \r\n", "x-empty:\r\n"],
  ];
  for (const [raw, simple, relaxed] of cases) {
    it(JSON.stringify(raw), () => {
      expect(canonHeaderSimple(field(raw))).toBe(simple);
      expect(canonHeaderRelaxed(field(raw))).toBe(relaxed);
    });
  }
});

describe("body canonicalization", () => {
  const cases: Array<[string, string, string]> = [
    // [body, simple, relaxed]
    ["", "\r\n", ""],
    ["\r\n", "\r\n", ""],
    ["\r\n\r\n\r\n", "\r\n", ""],
    ["abc", "abc\r\n", "abc\r\n"],
    ["abc\r\n", "abc\r\n", "abc\r\n"],
    ["abc\r\n\r\n\r\n", "abc\r\n", "abc\r\n"],
    ["a  b\t\tc  \r\n", "a  b\t\tc  \r\n", "a b c\r\n"],
    ["abc  ", "abc  \r\n", "abc\r\n"],
    ["abc\r\n  \r\n\t\r\n", "abc\r\n  \r\n\t\r\n", "abc\r\n"],
    ["\r\n\r\nabc\r\n", "\r\n\r\nabc\r\n", "\r\n\r\nabc\r\n"],
    [" lead\r\n", " lead\r\n", " lead\r\n"],
  ];
  for (const [body, simple, relaxed] of cases) {
    it(JSON.stringify(body), () => {
      expect(canonBody(body, "simple")).toBe(simple);
      expect(canonBody(body, "relaxed")).toBe(relaxed);
    });
  }

  it("cuts the canonical body to l= octets (§3.4.5) and reports the full length", () => {
    const r = canonBodyBytes("héllo\r\nworld\r\n", "simple", 3);
    expect(Array.from(r.bytes)).toEqual([0x68, 0xc3, 0xa9]);
    expect(r.available).toBe(15);
  });

  it("canonicalizes a 1 MB body to the same octets as the string rules", () => {
    const body = "Some text   with   runs of spaces \t \r\n".repeat(28000);
    const want = new TextEncoder().encode(canonBody(body, "relaxed"));
    const got = canonBodyOctets(new TextEncoder().encode(body), "relaxed");
    expect(got.length).toBe(want.length);
    expect(bytesEqual(got, want)).toBe(true);
  });
});

describe("body canonicalization on octets (the form verification uses)", () => {
  // Tokens that exercise every rule: WSP runs, WSP before CRLF, a lone CR, empty lines, 8-bit text.
  const token = fc.constantFrom("a", "word", " ", "  ", "\t", " \t ", "\r\n", "\r", "é", "0123456789abcdef", "\u0001");
  const text = fc.array(token, { maxLength: 120 }).map((t) => t.join(""));
  const enc = new TextEncoder();

  it("matches the string rules for any CRLF text, at every buffer alignment", () => {
    fc.assert(
      fc.property(text, fc.integer({ min: 0, max: 7 }), (body, offset) => {
        const raw = enc.encode(body);
        // The body is a view at an arbitrary offset of a larger buffer, as in a parsed message.
        const backing = new Uint8Array(raw.length + offset);
        backing.set(raw, offset);
        const view = backing.subarray(offset);
        for (const c of ["simple", "relaxed"] as const) {
          const want = enc.encode(canonBody(body, c));
          const got = canonBodyOctets(view, c);
          if (!bytesEqual(got, want)) return false;
        }
        return true;
      }),
      { numRuns: 2000 },
    );
  });

  it("returns views, not copies, when the body needs no change", () => {
    const body = enc.encode("one line\r\nanother line of text\r\n");
    expect(canonBodyOctets(body, "simple").buffer).toBe(body.buffer);
    expect(canonBodyOctets(body, "relaxed").buffer).toBe(body.buffer);
  });

  it("hashes each distinct (canonicalization, hash, l=) once and cuts at l= (§3.4.5)", async () => {
    const hashes = new BodyHashes(enc.encode("héllo  \r\nworld\r\n\r\n"));
    const a = hashes.hash("relaxed", "sha256", null);
    expect(hashes.hash("relaxed", "sha256", null)).toBe(a);
    expect((await a).available).toBe(15);
    const cut = await hashes.hash("simple", "sha256", 3);
    expect(cut).toMatchObject({ used: 3, available: 17 });
    expect(cut.hash).toEqual(new Uint8Array(await crypto.subtle.digest("SHA-256", new Uint8Array([0x68, 0xc3, 0xa9]))));
  });
});

describe("header selection and the signature field", () => {
  const msg = parseMessage("Received: 1\r\nSubject: first\r\nFrom: a@x.example\r\nSubject: second\r\n\r\nbody");

  it("takes repeated names bottom-up and ignores over-signed names", () => {
    const picked = selectHeaders(msg.headers, ["subject", "Subject", "subject", "from", "FROM", "x-absent"]);
    expect(picked.map((h) => h.raw)).toEqual(["Subject: second", "Subject: first", "From: a@x.example"]);
  });

  it("empties only the b= tag, never a b= inside bh=", () => {
    const sig = field("DKIM-Signature: v=1; bh=abc/b=; h=from;\r\n b=SIG\r\n NATURE; d=x.example");
    expect(withEmptyB(sig).raw).toBe("DKIM-Signature: v=1; bh=abc/b=; h=from;\r\n b=; d=x.example");
    const last = field("DKIM-Signature: v=1; b=abc ");
    expect(withEmptyB(last).value).toBe(" v=1; b=");
  });

  it("appends the signature field without its CRLF (§3.7)", () => {
    const sig = field("DKIM-Signature: v=1;  b=xyz");
    expect(signedHeaderData(msg.headers, ["from"], sig, "relaxed")).toBe("from:a@x.example\r\ndkim-signature:v=1; b=");
    expect(signedHeaderData(msg.headers, ["from"], sig, "simple")).toBe("From: a@x.example\r\nDKIM-Signature: v=1;  b=");
  });
});
