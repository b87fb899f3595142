// Tests of the RFC 1035 codec: exact query bytes, round trips, captured-style answers, malformed input.
import { describe, expect, it } from "vitest";
import { CAPTURED_CNAME_A, DKIM_KEY, hex } from "../../../test/fixtures/dns";
import { canonicalName, decodeResponse, encodeQuery, encodeResponse, type ResourceRecord, sameName, TYPE } from "./wire";

const toHex = (b: Uint8Array): string => Array.from(b, (x) => x.toString(16).padStart(2, "0")).join("");
const ascii = (s: string): string => toHex(new TextEncoder().encode(s));
const rr = (name: string, type: number, data: ResourceRecord["data"], ttl = 300): ResourceRecord => ({ name, type, class: 1, ttl, data });

describe("encodeQuery", () => {
  it("writes id, RD and AD (RFC 6840 §5.7), one question and an EDNS0 OPT advertising 4096 octets", () => {
    const q = encodeQuery("example.com.", "TXT");
    expect(q.ok).toBe(true);
    if (!q.ok) return;
    expect(toHex(q.value)).toBe(
      "0000" +
        "0120" +
        "0001" +
        "0000" +
        "0000" +
        "0001" +
        "07" +
        ascii("example") +
        "03" +
        ascii("com") +
        "00" +
        "0010" +
        "0001" +
        "00" +
        "0029" +
        "1000" +
        "00000000" +
        "0000",
    );
    const withId = encodeQuery("a.example", 99, 0xabcd);
    expect(withId.ok && toHex(withId.value).slice(0, 4)).toBe("abcd");
  });

  it("refuses names that cannot be encoded instead of throwing", () => {
    expect(encodeQuery(`${"a".repeat(64)}.example`, "A").ok, "64-octet label").toBe(false);
    expect(encodeQuery(`${"abcdefghi.".repeat(26)}com`, "A").ok, "name over 255 octets").toBe(false);
    expect(encodeQuery("bücher.example", "A").ok, "non-ASCII (needs punycode first)").toBe(false);
    expect(encodeQuery("a..example", "A").ok, "empty label").toBe(false);
  });
});

describe("encodeResponse / decodeResponse round trip", () => {
  const records: ResourceRecord[] = [
    rr("example.com", TYPE.A, { kind: "A", address: "192.0.2.1" }),
    rr("example.com", TYPE.AAAA, { kind: "AAAA", address: "2001:db8::1" }),
    rr("example.com", TYPE.MX, { kind: "MX", preference: 10, exchange: "mx1.example.com" }),
    rr("example.com", TYPE.MX, { kind: "MX", preference: 0, exchange: "" }),
    rr("example.com", TYPE.NS, { kind: "NS", target: "ns1.example.net" }),
    rr("www.example.com", TYPE.CNAME, { kind: "CNAME", target: "example.com" }),
    rr("1.2.0.192.in-addr.arpa", TYPE.PTR, { kind: "PTR", target: "host.example.com" }),
    rr("example.com", TYPE.TXT, { kind: "TXT", strings: ["v=spf1 ", "-all"] }),
    rr("example.com", TYPE.TXT, { kind: "TXT", strings: [""] }),
    rr("example.com", TYPE.SPF, { kind: "SPF", strings: ["v=spf1 -all"] }),
    rr("example.com", TYPE.SOA, {
      kind: "SOA",
      mname: "ns1.example.com",
      rname: "hostmaster.example.com",
      serial: 2024010101,
      refresh: 7200,
      retry: 3600,
      expire: 1209600,
      minimum: 300,
    }),
    rr("example.com", 257, { kind: "raw", bytes: hex("0005 6973737565 6c657473656e63727970742e6f7267") }),
  ];

  it("decodes every supported type back to what was encoded, using compression", () => {
    const bytes = encodeResponse({ header: { id: 7, rcode: 0 }, question: [{ name: "example.com", type: TYPE.A, class: 1 }], answer: records });
    expect(bytes.ok).toBe(true);
    if (!bytes.ok) return;
    expect(bytes.value.includes(0xc0), "repeated names are compressed").toBe(true);
    const msg = decodeResponse(bytes.value);
    expect(msg.ok, msg.ok ? "" : msg.error).toBe(true);
    if (!msg.ok) return;
    expect(msg.value.header).toEqual({
      id: 7,
      opcode: 0,
      rcode: 0,
      flags: { qr: true, aa: false, tc: false, rd: true, ra: true, ad: false, cd: false },
    });
    expect(msg.value.question).toEqual([{ name: "example.com", type: TYPE.A, class: 1 }]);
    expect(msg.value.answer).toEqual(records);
  });

  it("splits a TXT string longer than 255 octets into character-strings", () => {
    const bytes = encodeResponse({
      header: { id: 0, rcode: 0 },
      question: [],
      answer: [rr("s1._domainkey.example.com", TYPE.TXT, { kind: "TXT", strings: [DKIM_KEY] })],
    });
    const msg = bytes.ok ? decodeResponse(bytes.value) : bytes;
    if (!msg.ok) throw new Error(msg.error);
    const data = msg.value.answer[0]?.data;
    expect(data?.kind === "TXT" && data.strings.map((s) => s.length)).toEqual([255, DKIM_KEY.length - 255]);
    expect(data?.kind === "TXT" && data.strings.join("")).toBe(DKIM_KEY);
  });

  it("formats AAAA as canonical compressed text (RFC 5952)", () => {
    const cases: Array<[string, string]> = [
      ["2001:0db8:0000:0000:0000:0000:0002:0001", "2001:db8::2:1"],
      ["2001:db8:0:1:1:1:1:1", "2001:db8:0:1:1:1:1:1"],
      ["2001:db8:0:0:1:0:0:1", "2001:db8::1:0:0:1"],
      ["0:0:0:0:0:0:0:0", "::"],
      ["::ffff:192.0.2.1", "::ffff:c000:201"],
      ["FE80:0:0:0:0:0:0:AB", "fe80::ab"],
    ];
    for (const [input, canonical] of cases) {
      const bytes = encodeResponse({ header: { id: 0, rcode: 0 }, question: [], answer: [rr("h.example", TYPE.AAAA, { kind: "AAAA", address: input })] });
      const msg = bytes.ok ? decodeResponse(bytes.value) : bytes;
      if (!msg.ok) throw new Error(msg.error);
      expect(msg.value.answer[0]?.data, input).toEqual({ kind: "AAAA", address: canonical });
    }
  });
});

describe("captured-style answers", () => {
  it("follows compression pointers into question and RDATA names", () => {
    const msg = decodeResponse(CAPTURED_CNAME_A);
    if (!msg.ok) throw new Error(msg.error);
    expect(msg.value.answer.map((r) => [r.name, r.ttl, r.data])).toEqual([
      ["www.example.com", 3600, { kind: "CNAME", target: "cdn.example.com" }],
      ["cdn.example.com", 60, { kind: "A", address: "93.184.216.34" }],
    ]);
    expect(msg.value.additional[0]?.type, "OPT kept in additional").toBe(TYPE.OPT);
  });

  it("decodes a 2048-bit DKIM key published as 255-octet strings, and a UTF-8 split across strings", () => {
    const key = new TextEncoder().encode(DKIM_KEY);
    const first = key.subarray(0, 255);
    const second = key.subarray(255);
    const rdata = `ff${toHex(first)}${second.length.toString(16).padStart(2, "0")}${toHex(second)}`;
    const owner = `02 7331 0a ${ascii("_domainkey")} 07 ${ascii("example")} 03 636f6d 00`;
    const bytes = hex(`0000 8180 0001 0002 0000 0000 ${owner} 0010 0001
      c00c 0010 0001 00000e10 ${(rdata.length / 2).toString(16).padStart(4, "0")} ${rdata}
      c00c 0010 0001 00000e10 0006 02 63c3 02 a96d`);
    const msg = decodeResponse(bytes);
    if (!msg.ok) throw new Error(msg.error);
    const [dkim, split] = msg.value.answer.map((r) => r.data);
    expect(dkim?.kind === "TXT" && dkim.strings.length, "two character-strings").toBe(2);
    expect(dkim?.kind === "TXT" && dkim.strings.join(""), "joined with no separator").toBe(DKIM_KEY);
    expect(split?.kind === "TXT" && split.strings.join(""), "'é' split over two strings").toBe("cém");
  });

  it("reads the EDNS0 extended RCODE and the TC bit", () => {
    const msg = decodeResponse(hex("0000 8380 0000 0000 0000 0001 00 0029 1000 01000000 0000"));
    if (!msg.ok) throw new Error(msg.error);
    expect(msg.value.header.flags.tc).toBe(true);
    expect(msg.value.header.rcode, "BADVERS = 16").toBe(16);
  });
});

describe("malformed input is an error result, never a throw", () => {
  const cases: Array<[string, string]> = [
    ["pointer to itself", "0000 8180 0001 0000 0000 0000 c00c 0001 0001"],
    ["forward pointer pair", "0000 8180 0001 0000 0000 0000 c00e c00c 0001 0001"],
    ["pointer past the end", "0000 8180 0001 0000 0000 0000 c0ff 0001 0001"],
    ["label past the end", "0000 8180 0001 0000 0000 0000 3f 6162 0001"],
    ["reserved label type", "0000 8180 0001 0000 0000 0000 40 0001 0001"],
    ["short header", "0000 81"],
    ["count larger than content", "0000 8180 0001 0005 0000 0000 00 0001 0001"],
    ["A with 3 octets", "0000 8180 0000 0001 0000 0000 00 0001 0001 00000001 0003 010203"],
    ["RDLENGTH past the end", "0000 8180 0000 0001 0000 0000 00 0010 0001 00000001 00ff 03616263"],
    ["TXT string overruns RDATA", "0000 8180 0000 0001 0000 0000 00 0010 0001 00000001 0002 05 61 00 0001 0001 00000001 0000"],
  ];
  for (const [label, bytes] of cases) {
    it(label, () => {
      const r = decodeResponse(hex(bytes));
      expect(r.ok, label).toBe(false);
    });
  }

  it("rejects a name longer than 255 octets built from pointers", () => {
    // 5 names of 63-octet labels each pointing back to the previous one: the last is 321 octets.
    let body = "";
    const starts: number[] = [];
    for (let i = 0; i < 5; i++) {
      starts.push(12 + body.length / 2);
      const prev = starts[i - 1];
      body += `3f${"61".repeat(63)}${prev === undefined ? "00" : (0xc000 | prev).toString(16)}00010001`;
    }
    const r = decodeResponse(hex(`0000 8180 0005 0000 0000 0000 ${body}`));
    expect(r.ok).toBe(false);
  });

  it("survives every truncation and single-byte corruption of a valid answer", () => {
    for (let n = 0; n < CAPTURED_CNAME_A.length; n++) {
      expect(() => decodeResponse(CAPTURED_CNAME_A.subarray(0, n)), `prefix ${n}`).not.toThrow();
      expect(decodeResponse(CAPTURED_CNAME_A.subarray(0, n)).ok, `prefix ${n} is incomplete`).toBe(false);
      for (const v of [0x00, 0x3f, 0xc0, 0xff]) {
        const bad = CAPTURED_CNAME_A.slice();
        bad[n] = v;
        expect(() => decodeResponse(bad), `byte ${n} = ${v}`).not.toThrow();
      }
    }
  });
});

describe("sameName (RFC 4343 §3: compare wire labels, ASCII case-insensitively)", () => {
  it("equates escaped and raw spellings of one label and ignores ASCII case", () => {
    expect(sameName("a b.example.com", "a\\032b.example.com")).toBe(true);
    expect(sameName("A\\032B.Example.COM.", "a b.example.com")).toBe(true);
    expect(sameName("a\\.b.example.com", "a\\046b.example.com"), "an escaped dot stays inside its label").toBe(true);
    expect(canonicalName("MACRO SPACE.example.com")).toBe("macro\\032space.example.com");
  });

  it("keeps different names apart", () => {
    expect(sameName("a\\.b.example.com", "a.b.example.com"), "one label is not two").toBe(false);
    expect(sameName("a b.example.com", "a-b.example.com")).toBe(false);
    expect(sameName("a..example.com", "a..example.com"), "identical text is the same name even if unencodable").toBe(true);
    expect(sameName("a..example.com", "a.example.com")).toBe(false);
    expect(canonicalName(`${"x".repeat(64)}.example.com`), "a label over 63 octets cannot be put on the wire").toBeNull();
  });
});
