// The Gmail rows from the facts a check gives (Google's "Set up BIMI" and the BIMI draft's DMARC rule):
// enforcement at quarantine or reject on the organizational domain, pct 100 or absent, t=y and sp=none
// not at enforcement, the published record pointing at the hosted files, and unknown facts never "not met".
import { describe, expect, it } from "vitest";
import { type DmarcFacts, gmailReadiness, type ReadinessFacts } from "../../../src/services/bimi-hosting/gmail";
import type { CertificateReport } from "../../../src/services/bimi-hosting/validation";

const URLS = { logo: "https://svc.example/bimi/brand.example/default.svg", authority: "https://svc.example/bimi/brand.example/default.pem" };
const CERT: CertificateReport = {
  kind: "VMC",
  valid: true,
  checks: [{ id: "chain", ok: true, message: "ok", fix: null, blocking: true }],
  subject: { organization: "Brand Inc.", common_name: null, trademark_registration: "123", trademark_country: "US", mark_type: "Registered Mark" },
  issuer: "CN=Some VMC CA",
  sans: ["brand.example"],
  not_before: "2025-01-01T00:00:00.000Z",
  not_after: "2026-01-01T00:00:00.000Z",
  embedded_svg_sha256: "ab",
  logo_matches: true,
};
const OWN = { host: "default._bimi.brand.example", fromOrgDomain: false };
const REJECT: DmarcFacts = { host: "_dmarc.brand.example", policy: "reject", sp: null, pct: null, testing: false };

const facts = (o: Partial<ReadinessFacts> = {}): ReadinessFacts => ({
  domain: "brand.example",
  selector: "default",
  dmarc: REJECT,
  published: { record: `v=BIMI1; l=${URLS.logo}; a=${URLS.authority}`, logo: URLS.logo, authority: URLS.authority, ...OWN },
  expected: URLS,
  hasLogo: true,
  certificate: CERT,
  now: new Date("2025-06-01T00:00:00Z"),
  ...o,
});
const state = (f: ReadinessFacts, id: string) => gmailReadiness(f).requirements.find((r) => r.id === id)?.state;

describe("gmailReadiness", () => {
  it("shows the logo when every published requirement is met", () => {
    const r = gmailReadiness(facts());
    expect(r.verdict).toBe("shows");
    expect(r.requirements.every((x) => x.state === "met" && x.fix === null)).toBe(true);
    expect(r.sources.map((s) => s.url)).toContain("https://support.google.com/a/answer/10911320");
  });

  it("p=none, t=y and sp=none are not at enforcement; quarantine is", () => {
    expect(state(facts({ dmarc: { ...REJECT, policy: "none" } }), "dmarc_enforcement")).toBe("not_met");
    expect(state(facts({ dmarc: { ...REJECT, testing: true } }), "dmarc_enforcement")).toBe("not_met");
    expect(state(facts({ dmarc: { ...REJECT, sp: "none" } }), "dmarc_enforcement")).toBe("not_met");
    expect(state(facts({ dmarc: { ...REJECT, policy: "quarantine" } }), "dmarc_enforcement")).toBe("met");
    const none = gmailReadiness(facts({ dmarc: { ...REJECT, policy: null } }));
    expect(none.verdict).toBe("does_not_show");
    expect(none.requirements[0]?.fix).toMatch(/p=quarantine or p=reject at _dmarc\.brand\.example/);
  });

  it("pct below 100 is not met, pct=100 and no pct are", () => {
    expect(state(facts({ dmarc: { ...REJECT, pct: 50 } }), "dmarc_pct")).toBe("not_met");
    expect(state(facts({ dmarc: { ...REJECT, pct: 100 } }), "dmarc_pct")).toBe("met");
  });

  it("unknown DMARC facts and an unchecked record are cannot tell, never not met", () => {
    const r = gmailReadiness(facts({ dmarc: null, published: null }));
    expect(r.verdict).toBe("cannot_tell");
    expect(r.requirements.filter((x) => x.state === "cannot_tell").map((x) => x.id)).toEqual(["dmarc_enforcement", "dmarc_pct", "record_published"]);
  });

  it("a published record pointing elsewhere, or none, is not met", () => {
    expect(
      state(
        facts({ published: { record: "v=BIMI1; l=https://cdn.example/logo.svg", logo: "https://cdn.example/logo.svg", authority: null, ...OWN } }),
        "record_published",
      ),
    ).toBe("not_met");
    expect(state(facts({ published: { record: null, logo: null, authority: null, ...OWN } }), "record_published")).toBe("not_met");
  });

  it("a subdomain without a record: the Organizational Domain's record is the one judged, and the detail says so", () => {
    const orgRecord = { record: "v=BIMI1; l=https://cdn.example/org.svg", logo: "https://cdn.example/org.svg", authority: null };
    const r = gmailReadiness(facts({ domain: "news.brand.example", published: { ...orgRecord, host: "default._bimi.brand.example", fromOrgDomain: true } }));
    expect(r.requirements.find((x) => x.id === "record_published")).toMatchObject({
      state: "not_met",
      detail: expect.stringMatching(
        /^default\._bimi\.news\.brand\.example has no record, so receivers use the Organizational Domain's at default\._bimi\.brand\.example, which does not point/,
      ),
      fix: expect.stringMatching(/default\._bimi\.news\.brand\.example/),
    });
  });

  it("no certificate: Gmail needs one; dates outside the validity are not met", () => {
    expect(state(facts({ certificate: null }), "mark_certificate")).toBe("not_met");
    const late = gmailReadiness(facts({ now: new Date("2026-02-01T00:00:00Z") }));
    expect(late.requirements.find((x) => x.id === "certificate_dates")).toMatchObject({ state: "not_met", detail: "Expired on 2026-01-01 00:00 UTC." });
  });
  it("a failed check that only informs (a subject field the CA should have set) neither fails the certificate row nor fills its detail", () => {
    const note = { id: "subject-fields", ok: false, message: "The subject lacks streetAddress.", fix: "Tell your CA.", blocking: false };
    const honoured = gmailReadiness(facts({ certificate: { ...CERT, checks: [...CERT.checks, note] } }));
    expect(honoured.requirements.find((x) => x.id === "mark_certificate")?.state).toBe("met");
    const broken = { id: "eku", ok: false, message: "Not issued for BIMI.", fix: "Use a VMC.", blocking: true };
    const refused = gmailReadiness(facts({ certificate: { ...CERT, valid: false, checks: [broken, note] } }));
    expect(refused.requirements.find((x) => x.id === "mark_certificate")).toMatchObject({
      state: "not_met",
      detail: "Not issued for BIMI.",
      fix: "Use a VMC.",
    });
  });
});
