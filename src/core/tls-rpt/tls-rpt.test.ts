import { describe, expect, it } from "vitest";
import { FakeResolver } from "../../../test/support/fake-resolver";
import { checkTlsRpt, parseTlsRptRecord, tlsRptPairingFindings } from "./check";

const rules = (fs: { rule: string }[]) => fs.map((x) => x.rule);
const at = (txt: string[]) => new FakeResolver({ "_smtp._tls.example.com": { TXT: txt } });

describe("parseTlsRptRecord (RFC 8460 §3)", () => {
  it("accepts mailto: and https: rua", () => {
    expect(parseTlsRptRecord("v=TLSRPTv1; rua=mailto:tls@example.com,https://r.example/v1")).toEqual({
      ok: true,
      value: { rua: ["mailto:tls@example.com", "https://r.example/v1"] },
    });
  });
  it("requires rua and valid schemes", () => {
    expect(parseTlsRptRecord("v=TLSRPTv1;").ok).toBe(false);
    expect(parseTlsRptRecord("v=TLSRPTv1; rua=http://r.example/").ok).toBe(false);
    expect(parseTlsRptRecord("rua=mailto:a@b.example; v=TLSRPTv1").ok).toBe(false);
  });
});

describe("checkTlsRpt", () => {
  it("present, single rua, no findings", async () => {
    const r = await checkTlsRpt("example.com", at(["v=TLSRPTv1; rua=mailto:tls@example.com"]));
    expect(r).toMatchObject({ status: "present", findings: [] });
  });
  it("advises a single rua", async () => {
    const r = await checkTlsRpt("example.com", at(["v=TLSRPTv1; rua=mailto:a@example.com,mailto:b@example.com"]));
    expect(rules(r.findings)).toEqual(["tls_rpt.multiple-rua"]);
  });
  it("multiple records are invalid; others are discarded first", async () => {
    expect((await checkTlsRpt("example.com", at(["v=TLSRPTv1; rua=mailto:a@x.example", "v=TLSRPTv1; rua=mailto:b@x.example"]))).status).toBe("invalid");
    expect((await checkTlsRpt("example.com", at(["v=spf1 -all", "v=TLSRPTv1; rua=mailto:a@x.example"]))).status).toBe("present");
  });
  it("missing vs temperror", async () => {
    expect((await checkTlsRpt("example.com", new FakeResolver({}))).status).toBe("missing");
    expect((await checkTlsRpt("example.com", new FakeResolver({ "_smtp._tls.example.com": "temperror" }))).status).toBe("temperror");
  });
  it("pairing advice", () => {
    expect(rules(tlsRptPairingFindings("missing", "present"))).toEqual(["tls_rpt.mta-sts-without-reports"]);
    expect(rules(tlsRptPairingFindings("present", "missing"))).toEqual(["tls_rpt.without-mta-sts"]);
    expect(tlsRptPairingFindings("present", "present")).toEqual([]);
    expect(tlsRptPairingFindings("missing", "temperror")).toEqual([]);
  });
});
