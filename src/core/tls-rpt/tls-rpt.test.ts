import { describe, expect, it } from "vitest";
import { FakeResolver } from "../../../test/support/fake-resolver";
import { checkTlsRpt, parseTlsRptRecord, tlsRptPairingFindings } from "./check";
import { tlsRptDestinationFindings } from "./destination";
import { tlsRptPart } from "./part";
import type { AnalyzeSettings, AnyPart, ResultOf, SettledContext } from "../part/types";

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

describe("tls_rpt.reports-elsewhere (the record's rua and this service's destinations, D100)", () => {
  const ours = { rua: "https://app.example/api/webhooks/tlsrpt/k3j2h1q9z8x7w6v5u4t3", mailbox: "mailto:k3j2h1q9z8x7w6v5u4t3@reports.app.example" };
  const found = async (txt: string[] | "temperror", o: { rua: string | null; mailbox: string | null } = ours) => {
    const resolver = new FakeResolver({ "_smtp._tls.example.com": txt === "temperror" ? "temperror" : { TXT: txt } });
    return tlsRptDestinationFindings(await checkTlsRpt("example.com", resolver), o);
  };

  it("an Info finding with the exact rua to add when no rua URI is ours", async () => {
    const fs = await found(["v=TLSRPTv1; rua=mailto:tls@example.com,https://vendor.example/tlsrpt"]);
    expect(fs).toEqual([
      {
        rule: "tls_rpt.reports-elsewhere",
        severity: "Info",
        description:
          "The TLS-RPT record sends reports only to mailto:tls@example.com, https://vendor.example/tlsrpt, so this service receives none for the domain and shows no TLS delivery data.",
        fix: `Add ${ours.rua} as the first rua destination (some reporters send only to the first): v=TLSRPTv1; rua=${ours.rua},mailto:tls@example.com,https://vendor.example/tlsrpt`,
      },
    ]);
  });

  it("none when a rua URI is the HTTPS report URL or the report mailbox, in any case, with or without a trailing slash", async () => {
    expect(await found([`v=TLSRPTv1; rua=mailto:tls@example.com,${ours.rua}`])).toEqual([]);
    expect(await found([`v=TLSRPTv1; rua=HTTPS://APP.EXAMPLE/api/webhooks/tlsrpt/k3j2h1q9z8x7w6v5u4t3/`])).toEqual([]);
    expect(await found(["v=TLSRPTv1; rua=mailto:K3J2H1Q9Z8X7W6V5U4T3@Reports.App.Example"])).toEqual([]);
    // Another domain's token at the same intake is not this domain's destination.
    expect(await found(["v=TLSRPTv1; rua=https://app.example/api/webhooks/tlsrpt/zzzzzzzzzzzzzzzzzzzz"])).toHaveLength(1);
  });

  it("none when the service's address is unknown, the lookup failed, or the record is missing or invalid", async () => {
    expect(await found(["v=TLSRPTv1; rua=mailto:tls@example.com"], { rua: null, mailbox: null })).toEqual([]);
    expect(await found("temperror")).toEqual([]);
    expect(await found([])).toEqual([]);
    expect(await found(["v=TLSRPTv1; rua=http://insecure.example/"])).toEqual([]);
    expect(await found(["v=TLSRPTv1; rua=mailto:a@x.example", "v=TLSRPTv1; rua=mailto:b@x.example"])).toEqual([]);
  });

  it("the part reads the destinations from the check's settings (tlsRptRua, and dmarcRua as the mailbox)", async () => {
    const r = await checkTlsRpt("example.com", at(["v=TLSRPTv1; rua=mailto:tls@example.com"]));
    const ctx = (settings: AnalyzeSettings): SettledContext => ({
      domain: "example.com",
      now: new Date(0),
      settings,
      nullMx: false,
      mxHosts: ["mx.example.com"],
      result: (<P extends AnyPart>() => ({ status: "present" }) as ResultOf<P>) as SettledContext["result"],
    });
    expect(rules(tlsRptPart.findings(r, ctx({ tlsRptRua: ours.rua, dmarcRua: ours.mailbox })))).toEqual(["tls_rpt.reports-elsewhere"]);
    expect(rules(tlsRptPart.findings(r, ctx({ tlsRptRua: ours.rua, dmarcRua: "mailto:tls@example.com" })))).toEqual([]);
    expect(rules(tlsRptPart.findings(r, ctx({})))).toEqual([]);
  });
});
