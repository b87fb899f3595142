// Provider attribution (label-boundary, longest suffix), provider inference, selector syntax, selector scans.
import { describe, expect, it } from "vitest";
import { FakeResolver } from "../../../test/support/fake-resolver";
import { lookupSelectors } from "./lookup";
import { attributeProvider, candidateSelectors, inferProviders, isValidSelector } from "./selectors";
import { RFC8463_KEYS } from "../../../test/fixtures/dkim/rfc8463";

describe("attributeProvider", () => {
  it("matches on label boundaries only", () => {
    expect(attributeProvider("s1.domainkey.u123.wl.sendgrid.net")).toBe("Twilio SendGrid");
    expect(attributeProvider("sendgrid.net")).toBe("Twilio SendGrid");
    expect(attributeProvider("SENDGRID.NET.")).toBe("Twilio SendGrid");
    expect(attributeProvider("sendgrid.net.evil.example")).toBeNull();
    expect(attributeProvider("mysendgrid.net")).toBeNull();
  });
  it("recognises the table's CNAME targets", () => {
    expect(attributeProvider("dkim.mcsv.net")).toBe("Mailchimp");
    expect(attributeProvider("selector1-example-com._domainkey.contoso.onmicrosoft.com")).toBe("Microsoft 365");
    expect(attributeProvider("selector1-example-com._domainkey.contoso.n-v1.dkim.mail.microsoft")).toBe("Microsoft 365");
    expect(attributeProvider("abc.dkim.amazonses.com")).toBe("Amazon SES");
    expect(attributeProvider("amazonses.com")).toBeNull(); // only the dkim. suffix identifies SES keys
    expect(attributeProvider("fm1.example.com.dkim.fmhosted.com")).toBe("Fastmail");
  });
  it("lets the longest matching suffix win", () => {
    const table = [
      { provider: "Parent", selectors: [], cnameSuffixes: ["example.net"], mxSuffixes: [], spfSuffixes: [] },
      { provider: "Child", selectors: [], cnameSuffixes: ["mail.example.net"], mxSuffixes: [], spfSuffixes: [] },
    ];
    expect(attributeProvider("k.mail.example.net", table)).toBe("Child");
    expect(attributeProvider("k.other.example.net", table)).toBe("Parent");
    expect(attributeProvider("k.xmail.example.net", table)).toBe("Parent");
    expect(attributeProvider("x.dkim.hubspotemail.net")).toBe("HubSpot");
    expect(attributeProvider("dkim.acdkim1.acems1.com")).toBe("ActiveCampaign");
  });
});

describe("inferProviders and candidates", () => {
  it("infers from MX and SPF includes", () => {
    expect(inferProviders({ mx: ["example-com.mail.protection.outlook.com"], spfIncludes: ["sendgrid.net", "_spf.google.com"] })).toEqual([
      "Google Workspace",
      "Microsoft 365",
      "Twilio SendGrid",
    ]);
    expect(inferProviders({ mx: ["mx.notgoogle.com"], spfIncludes: [] })).toEqual([]);
  });
  it("tries the inferred provider's selectors first, without duplicates", () => {
    const c = candidateSelectors(["Microsoft 365"]);
    expect(c.slice(0, 2)).toEqual(["selector1", "selector2"]);
    expect(new Set(c).size).toBe(c.length);
    expect(c).toContain("default");
  });
  it("tries the common generic selectors right after the inferred providers', within the first 40 whatever the providers", () => {
    const everyProvider = candidateSelectors(["Google Workspace", "Microsoft 365", "Twilio SendGrid", "Mailchimp", "Klaviyo", "Mailgun"]);
    expect(everyProvider.slice(0, 40)).toEqual(expect.arrayContaining(["default", "dkim", "mail", "selector"]));
    expect(candidateSelectors().slice(0, 5)).toEqual(["default", "dkim", "mail", "selector", "key1"]);
  });
});

describe("isValidSelector", () => {
  it("accepts LDH/underscore labels separated by dots", () => {
    for (const s of ["google", "s1", "20230601123456pm", "a.b", "hs1-123", "k_2", "x".repeat(63)]) expect(isValidSelector(s)).toBe(true);
  });
  it("rejects empty labels, edges, long labels and other characters", () => {
    for (const s of ["", ".a", "a.", "_a", "a_", "a..b", "x".repeat(64), "a b", "a/b", "ünï"]) expect(isValidSelector(s)).toBe(false);
  });
});

describe("lookupSelectors", () => {
  const ed = RFC8463_KEYS["brisbane._domainkey.football.example.com"];
  const rsa = RFC8463_KEYS["test._domainkey.football.example.com"];

  it("classifies active, revoked, invalid, missing and temperror selectors", async () => {
    const res = new FakeResolver({
      "ed._domainkey.example.com": { TXT: [ed] },
      "old._domainkey.example.com": { TXT: ["v=DKIM1; p="] },
      "bad._domainkey.example.com": { TXT: ["v=DKIM1; p=!!!"] },
      "s1._domainkey.example.com": { CNAME: ["s1.domainkey.u42.wl.sendgrid.net"] },
      "s1.domainkey.u42.wl.sendgrid.net": { TXT: [rsa] },
      "gone._domainkey.example.com": { CNAME: ["dkim.mcsv.net"] },
    });
    res.faults.set("flaky._domainkey.example.com TXT", "temperror");
    const r = await lookupSelectors("example.com", ["ed", "old", "bad", "s1", "gone", "flaky", "none", "_x"], res);
    expect(Object.fromEntries(Object.entries(r.selectors).map(([k, v]) => [k, v.status]))).toEqual({
      ed: "active",
      old: "revoked",
      bad: "invalid",
      s1: "active",
      gone: "invalid",
      flaky: "temperror",
    });
    expect(r.missing).toEqual({ none: "no such name" });
    expect(r.selectors.s1).toMatchObject({ delegated_to: "s1.domainkey.u42.wl.sendgrid.net", provider: "Twilio SendGrid", key: { bits: 1024 } });
    expect(r.selectors.gone?.issues.map((i) => i.rule)).toEqual(["dkim.selector.dangling_cname"]);
    expect(r).toMatchObject({ status: "found", scanned: 7, wildcard: false });
    expect(r.score).toBe(100); // the Ed25519 key is flawless
    expect(r.issues.map((i) => i.rule)).toContain("dkim.selector.invalid_name");
  });

  it("says 'not found among N selectors checked', never 'no DKIM'", async () => {
    const r = await lookupSelectors("example.com", null, new FakeResolver({}));
    expect(r.status).toBe("not_found");
    expect(r.score).toBe(0);
    expect(r.summary).toBe(`DKIM key not found among ${r.scanned} selectors checked`);
    expect(r.scanned).toBe(candidateSelectors().length);
  });

  it("detects a wildcard under _domainkey", async () => {
    const zone: Record<string, { TXT: string[] }> = {};
    const res = new FakeResolver(zone);
    // FakeResolver has no wildcard support: answer every name through a proxy.
    const proxy = new Proxy(zone, { get: (_t, name) => (typeof name === "string" && name.endsWith("._domainkey.example.com") ? { TXT: [ed] } : undefined) });
    const wild = new FakeResolver(proxy);
    const r = await lookupSelectors("example.com", ["a", "b"], wild);
    expect(r.wildcard).toBe(true);
    expect(r.issues.map((i) => i.rule)).toContain("dkim.selector.wildcard");
    expect((await lookupSelectors("example.com", ["a"], res)).wildcard).toBe(false);
  });

  it("a failed wildcard probe says the wildcard is unknown (never 'no wildcard')", async () => {
    const proxy = new Proxy({} as Record<string, { TXT: string[] } | "temperror">, {
      get: (_t, name) =>
        typeof name !== "string"
          ? undefined
          : name.startsWith("dkimprobe-")
            ? "temperror"
            : name.endsWith("._domainkey.example.com")
              ? { TXT: [ed] }
              : undefined,
    });
    const r = await lookupSelectors("example.com", ["a"], new FakeResolver(proxy));
    expect(r.wildcard).toBe(false);
    expect(r.wildcardUnknown).toBe(true);
  });

  it("keeps at most 6 lookups in flight", async () => {
    let inFlight = 0;
    let peak = 0;
    const inner = new FakeResolver({});
    const slow = {
      queriesSent: 0,
      query: async (...a: Parameters<FakeResolver["query"]>) => {
        inFlight++;
        peak = Math.max(peak, inFlight);
        await new Promise((r) => setTimeout(r, 2));
        inFlight--;
        return inner.query(...a);
      },
    } as unknown as FakeResolver;
    await lookupSelectors("example.com", null, slow);
    expect(peak).toBe(6);
  });
});
