import { describe, expect, it } from "vitest";
import paypalLogo from "../../../test/fixtures/bimi-marks/paypal-logo.svg?raw";
import paypalPem from "../../../test/fixtures/bimi-marks/paypal_vmc.pem?raw";
import { FakeResolver } from "../../../test/support/fake-resolver";
import { checkBimi } from "./check";
import { bimiDmarcFindings, parseBimiRecord } from "./record";
import { inspectSvg } from "./svg";
import type { HttpFetch } from "../types";

const REC = "v=BIMI1; l=https://brand.example/logo.svg; a=https://brand.example/vmc.pem";
const ENFORCING = { p: "reject", sp: null, pct: null };
const rules = (fs: { rule: string }[]) => fs.map((x) => x.rule);
const org = (d: string) => d.split(".").slice(-2).join(".");

const GOOD_SVG = `<svg xmlns="http://www.w3.org/2000/svg" version="1.2" baseProfile="tiny-ps" viewBox="0 0 100 100"><title>Brand</title><path d="M0 0h100v100H0z"/></svg>`;
const svgFetch =
  (body: string, init: ResponseInit = { status: 200, headers: { "content-type": "image/svg+xml" } }) =>
  async () =>
    new Response(body, init);

describe("parseBimiRecord", () => {
  it("parses l=, a=, lps= and avp=", () => {
    const r = parseBimiRecord(`${REC}; lps=Marketing,News; avp=brand`);
    expect(r.ok && r.value.record).toEqual({
      logo: "https://brand.example/logo.svg",
      authority: "https://brand.example/vmc.pem",
      localPartSelectors: ["marketing", "news"],
      avatarPreference: "brand",
      declined: false,
    });
  });
  it("recognises a declination (empty l= and a=)", () => {
    const r = parseBimiRecord("v=BIMI1; l=; a=;");
    expect(r.ok && r.value.record.declined).toBe(true);
  });
  it("a non-https l= or a= makes the record invalid, with the https record as the fix (BIMI draft §4.2)", () => {
    const r = parseBimiRecord("v=BIMI1; l=http://x.example/l.svg; a=https://x.example/a.pem");
    expect(r.ok).toBe(false);
    expect(!r.ok && r.error).toMatchObject({
      rule: "bimi.logo-not-https",
      severity: "High",
      fix: "v=BIMI1; l=https://x.example/l.svg; a=https://x.example/a.pem",
    });
    expect(!r.ok && r.error.description).toMatch(/invalid/);
    const a = parseBimiRecord("v=BIMI1; l=https://x.example/l.svg; a=ftp://x.example/a.pem");
    expect(!a.ok && a.error).toMatchObject({ rule: "bimi.authority-not-https", fix: null });
    expect(parseBimiRecord("v=BIMI1; l=; a=").ok, "empty values are a declination, not an error").toBe(true);
  });
  it("reads the tag list as RFC 6376 §3.2 does: whitespace around = and ;, a trailing ;, unknown tags ignored", () => {
    const r = parseBimiRecord("v=BIMI1 ;  l = https://x.example/l.svg ; x_future=1;");
    expect(r.ok && r.value.record.logo).toBe("https://x.example/l.svg");
    expect(parseBimiRecord("v=BIMI1; l=https://x.example/l.svg;; a=").ok, "an empty tag-spec inside the list").toBe(false);
  });
  it("rejects a record whose first tag is not v=BIMI1, and duplicates", () => {
    expect(parseBimiRecord("l=https://x/l.svg; v=BIMI1").ok).toBe(false);
    expect(parseBimiRecord("v=BIMI1; l=https://x/a.svg; l=https://x/b.svg").ok).toBe(false);
  });
  it("notes a missing evidence document", () => {
    const r = parseBimiRecord("v=BIMI1; l=https://x.example/l.svg");
    expect(r.ok && rules(r.value.findings)).toEqual(["bimi.no-certificate"]);
  });
});

describe("bimiDmarcFindings", () => {
  it("p=none is not enforcing", () => {
    expect(rules(bimiDmarcFindings({ p: "none", sp: null, pct: null }))).toEqual(["bimi.no-enforcing-dmarc"]);
  });
  it("no DMARC at all", () => expect(rules(bimiDmarcFindings(null))).toEqual(["bimi.no-enforcing-dmarc"]));
  it("sp=none and pct<100 are flagged even with p=reject", () => {
    expect(rules(bimiDmarcFindings({ p: "reject", sp: "none", pct: 50 }))).toEqual(["bimi.dmarc-sp-none", "bimi.dmarc-pct-below-100"]);
  });
  it("quarantine with pct=100 passes", () => expect(bimiDmarcFindings({ p: "quarantine", sp: "reject", pct: 100 })).toEqual([]));
});

describe("checkBimi", () => {
  it("finds the record and flags p=none", async () => {
    const r = await checkBimi("brand.example", new FakeResolver({ "default._bimi.brand.example": { TXT: [REC] } }), {
      dmarc: { p: "none", sp: null, pct: null },
    });
    expect(r.status).toBe("present");
    expect(rules(r.findings)).toContain("bimi.no-enforcing-dmarc");
  });
  it("falls back to the organizational domain", async () => {
    const res = new FakeResolver({ "default._bimi.brand.example": { TXT: [REC] } });
    const r = await checkBimi("mail.brand.example", res, { dmarc: ENFORCING, orgDomain: org });
    expect(r).toMatchObject({ status: "present", fromOrgDomain: true, host: "default._bimi.brand.example" });
    expect(r.findings).toEqual([]);
  });
  it("a subdomain declination stops the fallback", async () => {
    const res = new FakeResolver({ "default._bimi.mail.brand.example": { TXT: ["v=BIMI1; l=; a="] }, "default._bimi.brand.example": { TXT: [REC] } });
    const r = await checkBimi("mail.brand.example", res, { dmarc: null, orgDomain: org });
    expect(r).toMatchObject({ status: "present", declined: true, fromOrgDomain: false });
    expect(rules(r.findings)).toEqual(["bimi.declined"]);
  });
  it("a temperror is not replaced by the fallback and is not 'missing'", async () => {
    const res = new FakeResolver({ "default._bimi.brand.example": { TXT: [REC] } });
    res.faults.set("default._bimi.mail.brand.example TXT", "temperror");
    const r = await checkBimi("mail.brand.example", res, { dmarc: ENFORCING, orgDomain: org });
    expect(r.status).toBe("temperror");
  });
  it("a failed walk to the Organizational Domain is unknown (temperror), never 'missing'", async () => {
    const res = new FakeResolver({ "default._bimi.brand.example": { TXT: [REC] } });
    const r = await checkBimi("mail.brand.example", res, { dmarc: ENFORCING, orgDomain: async () => null });
    expect(r.status).toBe("temperror");
    expect(r.findings).toEqual([]);
  });
  it("multiple records are an error; unrelated TXT is ignored", async () => {
    const res = new FakeResolver({ "default._bimi.brand.example": { TXT: [REC, REC.replace("logo", "logo2"), "google-site-verification=x"] } });
    const r = await checkBimi("brand.example", res, { dmarc: ENFORCING });
    expect(r.status).toBe("invalid");
    expect(rules(r.findings)).toEqual(["bimi.multiple-records"]);
  });
  it("missing", async () => {
    const r = await checkBimi("brand.example", new FakeResolver({}), { dmarc: ENFORCING });
    expect(r.status).toBe("missing");
  });
  it("checks the logo when given a fetch", async () => {
    const res = new FakeResolver({ "default._bimi.brand.example": { TXT: [REC] } });
    const good = await checkBimi("brand.example", res, { dmarc: ENFORCING, fetch: svgFetch(GOOD_SVG) });
    expect(good.svg?.status).toBe("valid");
    const moved = await checkBimi("brand.example", res, { dmarc: ENFORCING, fetch: svgFetch("", { status: 302, headers: { location: "https://x/" } }) });
    expect(rules(moved.findings)).toEqual(["bimi.svg-redirect"]);
    const down = await checkBimi("brand.example", res, {
      dmarc: ENFORCING,
      fetch: async () => {
        throw new TypeError("network");
      },
    });
    expect(down.svg?.status).toBe("unknown");
  });
});

describe("inspectSvg", () => {
  it("accepts a valid Tiny PS logo", () => expect(inspectSvg(GOOD_SVG, GOOD_SVG.length)).toEqual([]));
  it("flags profile, title, script, external refs, size", () => {
    const bad = `<svg xmlns="http://www.w3.org/2000/svg" x="0" viewBox="0 0 100 50"><script>alert(1)</script><image href="https://evil.example/a.png"/></svg>`;
    expect(rules(inspectSvg(bad, 40_000))).toEqual([
      "bimi.svg-too-large",
      "bimi.svg-profile",
      "bimi.svg-root-xy",
      "bimi.svg-title",
      "bimi.svg-script",
      "bimi.svg-external-ref",
      "bimi.svg-raster-image",
      "bimi.svg-not-square",
    ]);
  });
  it("allows same-document fragment hrefs", () => {
    const s = GOOD_SVG.replace("<path", '<use href="#p"/><path id="p"');
    expect(inspectSvg(s, s.length)).toEqual([]);
  });
});

describe("inspectSvg: the rest of the SVG Tiny PS profile, each finding with what to change", () => {
  const svg = (inner: string, root = 'version="1.2" baseProfile="tiny-ps" viewBox="0 0 100 100"') =>
    `<svg xmlns="http://www.w3.org/2000/svg" ${root}><title>Brand</title>${inner}</svg>`;
  const cases: [string, string, string][] = [
    ["animation", svg('<rect><animateTransform attributeName="transform"/></rect>'), "bimi.svg-animation"],
    ["a raster image", svg('<image href="#i"/>'), "bimi.svg-raster-image"],
    ["a link", svg('<a href="#r"><rect id="r"/></a>'), "bimi.svg-interactive"],
    ["a focusable element", svg('<rect focusable="true"/>'), "bimi.svg-interactive"],
    ["no viewBox", svg("<rect/>", 'version="1.2" baseProfile="tiny-ps"'), "bimi.svg-no-viewbox"],
    ["a wide viewBox", svg("<rect/>", 'version="1.2" baseProfile="tiny-ps" viewBox="0 0 200 100"'), "bimi.svg-not-square"],
    ["not SVG at all", "<html></html>", "bimi.svg-not-svg"],
  ];
  for (const [name, text, rule] of cases) {
    it(name, () => {
      const found = inspectSvg(text, text.length);
      expect(rules(found)).toEqual([rule]);
      expect(found[0]?.fix).toBeTruthy();
      expect(found[0]?.severity).not.toBe("Info");
    });
  }
  it("a comment is not content: a commented-out script is no script", () => {
    const s = svg("<!-- <script>alert(1)</script> --><rect/>");
    expect(inspectSvg(s, s.length)).toEqual([]);
  });
});

describe("checkBimi with the mark certificate at a=", () => {
  const PAYPAL = "v=BIMI1; l=https://paypal.example/logo.svg; a=https://paypal.example/vmc.pem";
  const zone = () => new FakeResolver({ "default._bimi.paypal.com": { TXT: [PAYPAL] } });
  const serve =
    (files: Record<string, string | number>): HttpFetch =>
    async (input) => {
      const url = typeof input === "string" ? input : input.url;
      const body = files[url];
      if (body === undefined) throw new TypeError("network");
      return typeof body === "number" ? new Response(null, { status: body }) : new Response(body, { status: 200 });
    };
  const files = { "https://paypal.example/logo.svg": paypalLogo, "https://paypal.example/vmc.pem": paypalPem };
  const at = (iso: string) => new Date(iso);

  it("a valid VMC with its own logo at l=: no finding, the report kept", async () => {
    const r = await checkBimi("paypal.com", zone(), { dmarc: ENFORCING, fetch: serve(files), now: at("2024-11-05T00:00:00Z") });
    expect(r.findings).toEqual([]);
    expect(r.mark).toMatchObject({ status: "valid", report: { kind: "VMC", valid: true } });
  });
  it("a logo at l= that is not the one in the certificate", async () => {
    const other = { ...files, "https://paypal.example/logo.svg": paypalLogo.replace("PayPal", "PayPaI") };
    const r = await checkBimi("paypal.com", zone(), { dmarc: ENFORCING, fetch: serve(other), now: at("2024-11-05T00:00:00Z") });
    expect(rules(r.findings)).toEqual(["bimi.vmc-logo-mismatch"]);
    expect(r.findings[0]).toMatchObject({ severity: "High" });
    expect(r.findings[0]?.fix).toMatch(/SVG file embedded/);
  });
  it("expiring within 30 days is a warning; expired is an error", async () => {
    const soon = await checkBimi("paypal.com", zone(), { dmarc: ENFORCING, fetch: serve(files), now: at("2025-08-25T00:00:00Z") });
    expect(rules(soon.findings)).toEqual(["bimi.vmc-expiring"]);
    expect(soon.findings[0]).toMatchObject({ severity: "Medium" });
    expect(soon.mark?.status).toBe("valid");
    const gone = await checkBimi("paypal.com", zone(), { dmarc: ENFORCING, fetch: serve(files), now: at("2025-10-01T00:00:00Z") });
    expect(rules(gone.findings)).toEqual(["bimi.vmc-expired"]);
    expect(gone.mark?.status).toBe("invalid");
  });
  it("a certificate for another domain", async () => {
    const res = new FakeResolver({ "default._bimi.brand.example": { TXT: [PAYPAL] } });
    const r = await checkBimi("brand.example", res, { dmarc: ENFORCING, fetch: serve(files), now: at("2024-11-05T00:00:00Z") });
    expect(rules(r.findings)).toEqual(["bimi.vmc-wrong-domain"]);
  });
  it("after the Organizational Domain fallback, the SAN is matched against the domain of the record found", async () => {
    const r = await checkBimi("email.paypal.com", zone(), { dmarc: ENFORCING, orgDomain: org, fetch: serve(files), now: at("2024-11-05T00:00:00Z") });
    expect(r.fromOrgDomain).toBe(true);
    expect(r.findings).toEqual([]);
  });
  it("a network failure is cannot-tell (Info, unknown), never invalid; an HTTP error is a finding", async () => {
    const down = await checkBimi("paypal.com", zone(), {
      dmarc: ENFORCING,
      fetch: serve({ "https://paypal.example/logo.svg": paypalLogo }),
      now: at("2024-11-05T00:00:00Z"),
    });
    expect(down.mark?.status).toBe("unknown");
    expect(down.findings.map((x) => [x.rule, x.severity])).toEqual([["bimi.vmc-fetch-failed", "Info"]]);
    const missing = await checkBimi("paypal.com", zone(), {
      dmarc: ENFORCING,
      fetch: serve({ ...files, "https://paypal.example/vmc.pem": 404 }),
      now: at("2024-11-05T00:00:00Z"),
    });
    expect(rules(missing.findings)).toEqual(["bimi.vmc-unavailable"]);
  });
  it("a file that is not a certificate", async () => {
    const r = await checkBimi("paypal.com", zone(), {
      dmarc: ENFORCING,
      fetch: serve({ ...files, "https://paypal.example/vmc.pem": "<html>" }),
      now: at("2024-11-05T00:00:00Z"),
    });
    expect(rules(r.findings)).toEqual(["bimi.vmc-invalid"]);
  });
});
