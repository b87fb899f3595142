// Reporter variants (Google, Microsoft, Yahoo, Mail.ru, RFC 9990) through parseReport. Pure, no I/O.
import { gzipSync, zipSync } from "fflate";
import { describe, expect, it } from "vitest";
import { parseReport } from "./index";
import { BEGIN, chunked, enc, google, microsoft, report, rfc9990, yahoo } from "./test-fixtures";

async function parsed(input: Uint8Array | ReadableStream<Uint8Array>) {
  const r = await parseReport(input);
  if (!r.ok) throw new Error(`${r.error.code}: ${r.error.message}`);
  return r.value;
}

describe("parseReport: reporter variants", () => {
  it("Google-style report (RFC 7489, no namespace)", async () => {
    const r = await parsed(enc(google()));
    expect(r.version).toBe("1.0");
    expect(r.metadata).toMatchObject({
      orgName: "google.com",
      reportId: "17000064001234567890",
      begin: BEGIN,
      end: BEGIN + 86_399,
      errors: [],
      generator: null,
    });
    expect(r.policy).toMatchObject({ domain: "example.com", p: "none", sp: "none", pct: 100, np: null, testing: null });
    expect(r.totals).toEqual({ records: 2, messages: 14, overflowRecords: 0, overflowMessages: 0 });
    expect(r.rows).toHaveLength(2);
    expect(r.rows[1]).toEqual({
      day: "2023-11-15",
      sourceIp: "203.0.113.9",
      headerFrom: "example.com",
      envelopeFrom: null,
      disposition: "none",
      dmarcDkim: "fail",
      dmarcSpf: "fail",
      overrideReason: null,
      dkimDomain: "spoof.test",
      dkimSelector: "x",
      dkimResult: "fail",
      spfDomain: "spoof.test",
      spfResult: "softfail",
      messages: 2,
    });
  });

  it("Microsoft-style report: xsi declarations, <version>, whitespace in dates, envelope_to, IPv6", async () => {
    const r = await parsed(enc(microsoft()));
    expect(r.version).toBe("1.0");
    expect(r.metadata.begin).toBe(BEGIN);
    expect(r.policy.domain).toBe("example.com"); // lower-cased, root dot dropped
    expect(r.rows[0]).toMatchObject({ sourceIp: "2a01:111:f400:7e8b::20c", envelopeFrom: "example.com", dkimSelector: "selector1", day: "2023-11-15" });
  });

  it("Yahoo-style report: results lower-cased (parsedmarc #288), override reason kept", async () => {
    const r = await parsed(enc(yahoo()));
    expect(r.metadata.extraContactInfo).toBeNull();
    expect(r.rows[0]).toMatchObject({
      disposition: "none",
      dmarcDkim: "fail",
      dmarcSpf: "fail",
      overrideReason: "forwarded",
      dkimResult: "fail",
      spfResult: "softfail",
      spfDomain: "list.example.org",
    });
    expect(r.selectors).toEqual([
      { domain: "example.com", selector: "s2048", messages: 4, pass: 0, fail: 4, sourceIps: ["192.0.2.7"], sourceIpsTruncated: false },
    ]);
  });

  it("RFC 9990 report: namespace, generator, np, testing, discovery_method, policy_test_mode", async () => {
    const r = await parsed(enc(rfc9990()));
    expect(r.version).toBe("2.0");
    expect(r.metadata).toMatchObject({ orgName: "Sample Reporter", generator: "Example DMARC 2.1", errors: ["one"] });
    expect(r.policy).toEqual({
      domain: "example.com",
      adkim: "s",
      aspf: "r",
      p: "reject",
      sp: "quarantine",
      np: "reject",
      pct: null,
      fo: "1",
      testing: "y",
      discoveryMethod: "treewalk",
    });
    // The passing signature is the row's DKIM summary; both selectors are inventory evidence.
    expect(r.rows[0]).toMatchObject({ overrideReason: "policy_test_mode", dkimDomain: "esp.test", dkimSelector: "k1", dkimResult: "pass" });
    expect(r.selectors.map((s) => `${s.domain}/${s.selector}:${s.pass}/${s.fail}`)).toEqual(["example.com/sel-2024:0/9", "esp.test/k1:9/0"]);
  });

  it("namespace prefixes and 9990-only fields without the namespace", async () => {
    const x = report({ root: `<d:feedback xmlns:d="urn:ietf:params:xml:ns:dmarc-2.0">` })
      .replace(/<(\/?)(?!\?)/g, "<$1d:")
      .replace("<d:d:", "<d:");
    expect((await parsed(enc(x))).version).toBe("2.0");
    const np = report({ policy: "<domain>example.com</domain><p>reject</p><np>reject</np>" });
    expect((await parsed(enc(np))).version).toBe("2.0");
  });

  it("Mail.ru-style report starting at Moscow midnight (21:00 UTC) lands on its intended day", async () => {
    const r = await parsed(enc(report({ org: "Mail.Ru", begin: BEGIN - 3 * 3600, end: BEGIN + 21 * 3600 })));
    expect(r.rows.map((x) => x.day)).toEqual(["2023-11-15"]);
  });

  it("tolerates BOM, missing optional fields, `identities`, ISO and millisecond dates", async () => {
    const x = report({
      begin: "2023-11-15T00:00:00Z",
      end: String((BEGIN + 86_399) * 1000),
      policy: "<domain>example.com</domain>",
      records: [{ ip: "198.51.100.1", count: 1, sigs: [] }],
    })
      .replaceAll("identifiers>", "identities>")
      .replace(/<email>.*<\/email>/, "");
    const r = await parsed(new Uint8Array([0xef, 0xbb, 0xbf, 0x20, 0x0a, ...enc(x)]));
    expect(r.metadata).toMatchObject({ begin: BEGIN, end: BEGIN + 86_399, email: null });
    expect(r.policy.p).toBeNull();
    expect(r.rows[0]).toMatchObject({ headerFrom: "example.com", dkimDomain: null, dkimResult: null, spfResult: "pass" });
  });

  it("gzip and zip wrappers, and a stream split into 7-byte chunks (UTF-8 across boundaries)", async () => {
    const x = enc(report({ org: "Mail.Ru Почта" }));
    for (const input of [gzipSync(x), zipSync({ "mail.ru!example.com!1700006400!1700092799.xml": x }), chunked(x, 7), chunked(gzipSync(x), 7)]) {
      const r = await parsed(input);
      expect(r.metadata.orgName).toBe("Mail.Ru Почта");
      expect(r.totals.messages).toBe(3);
    }
  });

  it("a zip entry not named .xml is accepted when its content is XML; directories are skipped", async () => {
    const r = await parsed(zipSync({ "report.dat": enc(google()) }));
    expect(r.totals.records).toBe(2);
  });

  it("truncates free text at 1 KB instead of refusing it", async () => {
    const x = rfc9990().replace("<error>one</error>", `<error>${"&#65;".repeat(3000)}</error>`);
    const r = await parsed(enc(x));
    expect(r.metadata.errors[0]).toHaveLength(1024);
  });
});
