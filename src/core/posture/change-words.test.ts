import { describe, expect, it } from "vitest";
import { changeSentence, fieldWords, partWords } from "./change-words";

describe("changeSentence", () => {
  it("says a DMARC tag change with the tag's name in words and both values", () => {
    expect(changeSentence("dmarc", "p", "none", "quarantine")).toBe("DMARC policy changed from none to quarantine");
    expect(changeSentence("dmarc", "sp", null, "reject")).toBe("DMARC subdomain policy set to reject");
    expect(changeSentence("dmarc", "rua", '["mailto:a@x.example"]', "[]")).toBe("DMARC aggregate report addresses changed from mailto:a@x.example to none");
    expect(changeSentence("dmarc", "pct", "100", null)).toBe("DMARC percentage of mail the policy applies to removed (was 100)");
    expect(changeSentence("spf", "all", "-all", "~all")).toBe("SPF catch-all rule changed from -all to ~all");
  });

  it("says records published, removed, changed and invalid, and leaves long values out of the sentence", () => {
    expect(changeSentence("spf", "status", "missing", "present")).toBe("SPF record published");
    expect(changeSentence("mta_sts", "status", "present", "missing")).toBe("MTA-STS record removed");
    expect(changeSentence("dmarc", "status", "present", "invalid")).toBe("DMARC record became invalid");
    expect(changeSentence("tls_rpt", "record", "v=TLSRPTv1; rua=mailto:a@x", "v=TLSRPTv1; rua=mailto:b@x")).toBe("TLS-RPT record changed");
    expect(changeSentence("mta_sts", "policy", "x".repeat(61), "y")).toBe("MTA-STS policy file changed");
    expect(changeSentence("mta_sts", "id_unchanged", "a", "a")).toMatch(/^MTA-STS policy changed without a new policy id/);
  });

  it("says DKIM selector and blocklist changes per selector and per listing", () => {
    expect(changeSentence("dkim", "selector:s1", null, "fp")).toBe("DKIM selector s1 added");
    expect(changeSentence("dkim", "selector:s1", "fp", null)).toBe("DKIM selector s1 removed");
    expect(changeSentence("dkim", "selector:s1", "fp", "revoked")).toBe("DKIM key of selector s1 revoked");
    expect(changeSentence("dkim", "selector:s1", "fp1", "fp2")).toBe("DKIM key of selector s1 rotated");
    expect(changeSentence("dkim", "record:s1", "a", "b")).toBe("DKIM record of selector s1 changed");
    expect(changeSentence("blacklist", "spamcop:192.0.2.10", "not_listed", "listed")).toBe("192.0.2.10 listed on spamcop");
    expect(changeSentence("blacklist", "spamcop:192.0.2.10", "listed", "not_listed")).toBe("192.0.2.10 removed from spamcop");
  });

  it("keeps an unknown part or field readable", () => {
    expect(partWords("new_part")).toBe("NEW-PART");
    expect(fieldWords("dmarc", "fo_x")).toBe("fo x");
    expect(changeSentence("mx", "hosts", '["a.example"]', '["a.example","b.example"]')).toBe("MX mail servers changed from a.example to a.example, b.example");
  });
});
