// The one tag-list reader against each record's grammar, with the ABNF edge cases of RFC 6376 §3.2,
// RFC 8460 §3, RFC 8461 §3.1 and RFC 9989 §5.4. No I/O.
import { describe, expect, it } from "vitest";
import { DKIM_TAG_LIST } from "../dkim/tags";
import { DMARC_RECORD } from "../dmarc/parse";
import { STS_RECORD, parseStsRecord } from "../mta-sts/policy";
import { TLS_RPT_RECORD, parseTlsRptRecord } from "../tls-rpt/check";
import { readTagList } from "./tag-list";

const kinds = (text: string, g: Parameters<typeof readTagList>[1]) => {
  const r = readTagList(text, g);
  return r.ok ? r.value.issues.map((i) => i.kind) : `error:${r.error.kind}`;
};

describe("DKIM (RFC 6376 §3.2)", () => {
  it("allows FWS around = and ;, folded lines and one trailing ;", () => {
    const r = readTagList(" v = 1 ;\r\n\ta=rsa-sha256 ;  b=abc\r\n def; ", DKIM_TAG_LIST);
    expect(r.ok && [...r.value.tags]).toEqual([
      ["v", "1"],
      ["a", "rsa-sha256"],
      ["b", "abc def"],
    ]);
  });
  it("makes the whole list invalid on a duplicate, an empty spec inside, a part without = or a bad name", () => {
    expect(kinds("a=1; a=2", DKIM_TAG_LIST)).toBe("error:duplicate");
    expect(kinds("a=1;; b=2", DKIM_TAG_LIST)).toBe("error:empty-spec");
    expect(kinds("a=1; junk", DKIM_TAG_LIST)).toBe("error:malformed");
    expect(kinds("a=1; x-y=2", DKIM_TAG_LIST), "tag-name = ALPHA *ALNUMPUNC: no hyphen").toBe("error:invalid-name");
    expect(kinds("a=1; 1a=2", DKIM_TAG_LIST)).toBe("error:invalid-name");
  });
  it("keeps names case-sensitive (A and a are two tags) and empty values", () => {
    const r = readTagList("a=1; A=2; n=", DKIM_TAG_LIST);
    expect(r.ok && [...r.value.tags]).toEqual([
      ["a", "1"],
      ["A", "2"],
      ["n", ""],
    ]);
  });
});

describe("TLS-RPT (RFC 8460 §3)", () => {
  it("ignores extension fields named (ALPHA / DIGIT) *31(ALPHA / DIGIT / _ / - / .)", () => {
    expect(parseTlsRptRecord("v=TLSRPTv1; rua=mailto:r@example.com; ext-id=1")).toEqual({ ok: true, value: { rua: ["mailto:r@example.com"] } });
    expect(parseTlsRptRecord("v=TLSRPTv1;rua=mailto:r@example.com;x.y_z-1=a;").ok).toBe(true);
    expect(parseTlsRptRecord(`v=TLSRPTv1; rua=mailto:r@example.com; ${"e".repeat(32)}=1`).ok, "32 characters").toBe(true);
    expect(parseTlsRptRecord(`v=TLSRPTv1; rua=mailto:r@example.com; ${"e".repeat(33)}=1`).ok, "33 characters").toBe(false);
    expect(parseTlsRptRecord("v=TLSRPTv1; rua=mailto:r@example.com; -x=1").ok, "must start with a letter or digit").toBe(false);
  });
  it("allows whitespace around ; but not around =; needs v first and rua", () => {
    expect(parseTlsRptRecord("v=TLSRPTv1 ;\trua=mailto:r@example.com ; ").ok).toBe(true);
    expect(parseTlsRptRecord("v=TLSRPTv1; rua = mailto:r@example.com").ok).toBe(false);
    expect(parseTlsRptRecord("rua=mailto:r@example.com; v=TLSRPTv1").ok).toBe(false);
    expect(parseTlsRptRecord("v=TLSRPTv1; ext=1")).toEqual({ ok: false, error: "rua= is required (RFC 8460 §3)" });
    expect(parseTlsRptRecord("v=TLSRPTv1; rua=http://r.example.com/").ok).toBe(false);
    expect(kinds("v=TLSRPTv1; rua=mailto:r@example.com; rua=mailto:s@example.com", TLS_RPT_RECORD)).toBe("error:duplicate");
  });
});

describe("MTA-STS TXT (RFC 8461 §3.1)", () => {
  it("ignores extension fields", () => {
    expect(parseStsRecord("v=STSv1; id=20240101; ext-x=1")).toEqual({ ok: true, value: { id: "20240101" } });
    expect(kinds("v=STSv1; id=20240101; ext-x=1", STS_RECORD)).toEqual(["unknown-tag"]);
  });
  it("checks id (1*32 ALPHA / DIGIT), the first tag and the delimiters", () => {
    expect(parseStsRecord("v=STSv1; id=2024-01").ok).toBe(false);
    expect(parseStsRecord(`v=STSv1; id=${"1".repeat(33)}`).ok).toBe(false);
    expect(parseStsRecord("v=STSv1;id=abc;").ok).toBe(true);
    expect(parseStsRecord("v=STSv1; id =abc").ok).toBe(false);
    expect(parseStsRecord("id=abc; v=STSv1").ok).toBe(false);
    expect(parseStsRecord("v=STSv1;; id=abc").ok).toBe(false);
  });
});

describe("DMARC (RFC 9989 §5.4)", () => {
  it("reports and skips duplicates, malformed parts and unknown tags instead of failing the record", () => {
    expect(kinds("v=DMARC1; p=none; p=reject; junk; foo=bar;", DMARC_RECORD)).toEqual(["duplicate", "malformed", "unknown-tag"]);
  });
  it("ignores an invalid sp value and says so, with the section that decides what follows", () => {
    const r = readTagList("v=DMARC1; p=reject; sp=bogus", DMARC_RECORD);
    expect(r.ok && r.value.issues[0]).toMatchObject({ kind: "invalid-value", tag: "sp", value: "bogus", section: "RFC 7489 §6.6.3, RFC 9989 §4.10" });
    expect(r.ok && r.value.tags.has("sp")).toBe(false);
  });
});
