// Failure report parsing (RFC 9991, RFC 6591, RFC 5965): the fields kept, the strict refusals, and
// that nothing of the original message comes out of the parser.
import { describe, expect, it } from "vitest";
import { arfMail, BODY_MARKER, dmarcFailureSample, ORIGINAL_RCPT, ORIGINAL_SUBJECT, rfc6591Sample } from "../../../test/fixtures/arf";
import { parseFailureReportMail } from "./report";

const TO = "token@reports.test";
const base = (domain: string, extra: string[] = []) => [
  "Feedback-Type: auth-failure",
  "Version: 1",
  "Auth-Failure: dmarc",
  `Reported-Domain: ${domain}`,
  ...extra,
];

describe("failure report parsing", () => {
  it("reads the RFC 6591 Appendix B sample: SPF failure, Received-Date, folded Authentication-Results", async () => {
    const r = await parseFailureReportMail(rfc6591Sample(TO, "example.net"));
    expect(r).toEqual({
      ok: true,
      value: {
        reportingOrg: "example.com",
        arrivalDate: Date.parse("2010-04-14T19:15:31Z"),
        sourceIp: "192.0.2.1",
        authFailure: "spf",
        authResults: "mail.example.com; spf=fail smtp.mail=example.net",
        identityAlignment: null,
        dkimDomain: null,
        dkimSelector: null,
        deliveryResult: "spam",
        reportedDomains: ["example.net"],
      },
    });
  });

  it("reads a DMARC failure report with the whole original message and returns nothing of it", async () => {
    const r = await parseFailureReportMail(dmarcFailureSample(TO, "example.com"));
    if (!r.ok) throw new Error(r.error.message);
    expect(r.value).toMatchObject({
      reportingOrg: "mail.big-receiver.example",
      arrivalDate: Date.parse("2026-11-19T10:00:00Z"),
      sourceIp: "2001:db8::1",
      authFailure: "dmarc",
      identityAlignment: "dkim, spf",
      dkimDomain: "example.com",
      dkimSelector: "s2026",
      deliveryResult: "delivered",
      reportedDomains: ["example.com"],
    });
    const out = JSON.stringify(r.value);
    for (const secret of [BODY_MARKER, ORIGINAL_RCPT, ORIGINAL_SUBJECT, "bounce@", "payroll@", "orig-1@"]) expect(out).not.toContain(secret);
  });

  it("takes the original From domain when no Reported-Domain is given; refuses when neither is there", async () => {
    const fields = ["Feedback-Type: auth-failure", "Auth-Failure: dkim"];
    const withHeaders = await parseFailureReportMail(
      arfMail(TO, { fields, original: { type: "text/rfc822-headers", content: 'From: "A" <a@Sub.Example.org>\r\nSubject: x' } }),
    );
    expect(withHeaders.ok && withHeaders.value.reportedDomains).toEqual(["sub.example.org"]);
    const none = await parseFailureReportMail(arfMail(TO, { fields }));
    expect(!none.ok && none.error.code).toBe("no_reported_domain");
  });

  it("refuses what is not an auth-failure report, or has no feedback part, or a bad Source-IP or Auth-Failure", async () => {
    const code = async (mail: string) => {
      const r = await parseFailureReportMail(mail);
      return r.ok ? "ok" : r.error.code;
    };
    expect(await code(arfMail(TO, { fields: ["Feedback-Type: abuse", "Reported-Domain: example.com"] }))).toBe("not_auth_failure");
    expect(await code(arfMail(TO, { fields: ["Version: 1", "Auth-Failure: dmarc"] }))).toBe("not_auth_failure");
    expect(await code(arfMail(TO, { fields: [], noFeedbackPart: true }))).toBe("no_feedback_part");
    expect(await code(arfMail(TO, { fields: base("example.com", ["Source-IP: 192.0.2.300"]) }))).toBe("invalid_source_ip");
    expect(await code(arfMail(TO, { fields: base("example.com", ["Source-IP: 010.0.0.1"]) }))).toBe("invalid_source_ip");
    expect(await code(arfMail(TO, { fields: ["Feedback-Type: auth-failure", "Auth-Failure: maybe", "Reported-Domain: example.com"] }))).toBe(
      "invalid_auth_failure",
    );
    expect(await code(arfMail(TO, { fields: base("not a domain") }))).toBe("invalid_reported_domain");
    const many = Array.from({ length: 201 }, (_, i) => `X-Field-${i}: v`);
    expect(await code(arfMail(TO, { fields: [...base("example.com"), ...many] }))).toBe("feedback_part_too_large");
  });

  it("caps values and drops what it cannot vouch for: bad dates, unknown alignments and results, bad selectors", async () => {
    const long = "x".repeat(5000);
    const r = await parseFailureReportMail(
      arfMail(TO, {
        fields: base("example.com", [
          "Arrival-Date: yesterday-ish",
          "Identity-Alignment: none, dkim",
          "Delivery-Result: bounced",
          "DKIM-Selector: bad selector!",
          "DKIM-Domain: -bad-.example",
          `Authentication-Results: mx.example; ${long}`,
        ]),
      }),
    );
    if (!r.ok) throw new Error(r.error.message);
    expect(r.value).toMatchObject({ arrivalDate: null, identityAlignment: null, deliveryResult: null, dkimSelector: null, dkimDomain: null });
    expect(r.value.authResults?.length).toBe(1024);
    const none = await parseFailureReportMail(arfMail(TO, { fields: base("example.com", ["Identity-Alignment: NONE"]) }));
    expect(none.ok && none.value.identityAlignment).toBe("none");
  });
});
