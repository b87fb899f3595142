import { describe, expect, it } from "vitest";
import { FakeResolver } from "../../../test/support/fake-resolver";
import { checkBimi } from "./check";
import { bimiDmarcFindings, parseBimiRecord } from "./record";
import { inspectSvg } from "./svg";

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
