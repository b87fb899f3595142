// Signature tag parsing (RFC 6376 §3.2, §3.5), key records (§3.6.1) and message splitting / From extraction.
import { describe, expect, it } from "vitest";
import { parseKeyRecord } from "./key-record";
import { extractFromDomain, parseMessage } from "./message";
import { decodeQp, parseSignature } from "./signature";
import { parseTagList } from "./tags";

const base = "v=1; a=rsa-sha256; d=example.com; s=sel; h=from:to; bh=AAAA; b=BBBB";

describe("tag lists", () => {
  it("accepts FWS around names, values and a trailing semicolon", () => {
    const r = parseTagList(" a = 1 ;\r\n\tb=two words ; ");
    expect(r.ok && [...r.value]).toEqual([
      ["a", "1"],
      ["b", "two words"],
    ]);
  });
  it("rejects duplicates, missing = and empty specs", () => {
    expect(parseTagList("a=1; a=2").ok).toBe(false);
    expect(parseTagList("a=1; junk").ok).toBe(false);
    expect(parseTagList("a=1;; b=2").ok).toBe(false);
  });
});

describe("parseSignature", () => {
  it("parses defaults: c=simple/simple, i=@d", () => {
    const r = parseSignature(base);
    expect(r.ok && r.value).toMatchObject({
      algorithm: "rsa-sha256",
      headerCanon: "simple",
      bodyCanon: "simple",
      identity: "@example.com",
      headers: ["from", "to"],
      length: null,
    });
  });
  it("c=relaxed alone means relaxed/simple", () => {
    const r = parseSignature(`${base}; c=relaxed`);
    expect(r.ok && [r.value.headerCanon, r.value.bodyCanon]).toEqual(["relaxed", "simple"]);
  });
  it("strips FWS from b= and bh= and h= entries", () => {
    const r = parseSignature("v=1; a=ed25519-sha256; d=example.com; s=sel; h=from :\r\n to; bh=AA\r\n AA; b=BB BB");
    expect(r.ok && [r.value.bodyHash, r.value.signature, r.value.headers]).toEqual(["AAAA", "BBBB", ["from", "to"]]);
  });
  const bad: Array<[string, RegExp]> = [
    ["v=1; a=rsa-sha256; d=example.com; s=sel; h=from; bh=AAAA", /missing required tag b=/],
    [base.replace("v=1", "v=2"), /version/],
    [base.replace("rsa-sha256", "rsa-md5"), /unsupported algorithm/],
    [`${base}; c=relaxed/fancy`, /canonicalization/],
    [`${base}; i=joe@evil.example`, /not d= or a subdomain/],
    [`${base}; i=joe@example.com.evil`, /not d= or a subdomain/],
    [`${base}; t=200; x=100`, /x= is not after t=/],
    [`${base}; l=ten`, /l= is not a number/],
    [`${base}; q=http`, /query method/],
  ];
  for (const [v, re] of bad)
    it(`rejects ${v.slice(-30)}`, () => {
      const r = parseSignature(v);
      expect(r.ok).toBe(false);
      if (!r.ok) expect(r.error.reason).toMatch(re);
    });
  it("accepts an i= subdomain of d=", () => {
    expect(parseSignature(`${base}; i=joe@mail.example.com`).ok).toBe(true);
  });
});

describe("parseKeyRecord", () => {
  it("defaults k=rsa and reads flags and hashes", () => {
    const r = parseKeyRecord("v=DKIM1; h=sha256:sha1; t=y:s; p=AAAA");
    expect(r.ok && r.value).toMatchObject({ keyType: "rsa", hashes: ["sha256", "sha1"], testing: true, strict: true, revoked: false });
  });
  it("treats an empty p= as revoked", () => {
    const r = parseKeyRecord("v=DKIM1; k=ed25519; p=");
    expect(r.ok && r.value.revoked).toBe(true);
  });
  it("requires v=DKIM1 first when present, p= always, and a known k=", () => {
    expect(parseKeyRecord("k=rsa; v=DKIM1; p=AAAA").ok).toBe(false);
    expect(parseKeyRecord("v=DKIM2; p=AAAA").ok).toBe(false);
    expect(parseKeyRecord("v=DKIM1; k=rsa").ok).toBe(false);
    expect(parseKeyRecord("v=DKIM1; k=dsa; p=AAAA").ok).toBe(false);
  });
});

describe("message splitting and From", () => {
  it("splits headers and body, unfolding into one field", () => {
    const m = parseMessage("A: 1\nB: 2\n  continued\n\nbody\n");
    expect(m.normalized).toBe(true);
    expect(m.headers.map((h) => h.raw)).toEqual(["A: 1", "B: 2\r\n  continued"]);
    expect(m.body).toBe("body\r\n");
  });
  it("handles a message without body", () => {
    expect(parseMessage("A: 1\r\n").body).toBe("");
  });
  const from = (v: string) => extractFromDomain(parseMessage(`${v}\r\n\r\n`).headers);
  it("extracts the From domain", () => {
    expect(from('From: "Doe, John" <john@Example.COM> (work)').domain).toBe("example.com");
    expect(from("From: jane@example.org").domain).toBe("example.org");
  });
  it("returns null with a reason for several From headers or addresses", () => {
    expect(from("From: a@x.example\r\nFrom: b@y.example")).toEqual({ domain: null, reason: "2 From headers" });
    expect(from("From: a@x.example, b@y.example")).toEqual({ domain: null, reason: "2 addresses in From" });
    expect(from("To: a@x.example").reason).toBe("no From header");
  });
});

describe("i= is dkim-quoted-printable (RFC 6376 §2.11, §3.5)", () => {
  it("decodes =XX octets before checking the identity against d=", () => {
    const r = parseSignature("v=1; a=rsa-sha256; d=messiah.edu; s=s; h=from; bh=AAAA; b=BBBB; i=jlong=40messiah.edu");
    expect(r.ok && r.value.identity).toBe("jlong@messiah.edu");
    expect(decodeQp("=40")).toBe("@");
    expect(decodeQp("caf=C3=A9@x.example")).toBe("café@x.example");
    expect(decodeQp("plain@example.com")).toBe("plain@example.com");
  });

  it("refuses a broken escape as permerror", () => {
    for (const bad of ["jlong=4", "jlong=ZZmessiah.edu", "jlong=", "x=C3@example.com"]) {
      expect(decodeQp(bad), bad).toBeNull();
    }
    const r = parseSignature("v=1; a=rsa-sha256; d=messiah.edu; s=s; h=from; bh=AAAA; b=BBBB; i=jlong=4");
    expect(r.ok).toBe(false);
  });
});
