import { describe, expect, it } from "vitest";
import { parseAddress } from "../../../src/services/intel/address";
import { isFreeDomain, isRoleLocal, providerFromMx } from "../../../src/services/intel/tables";
import { policyStrength } from "../../../src/services/intel/domain-facts";

describe("address syntax (RFC 5321 §4.5.3.1, RFC 5322 §3.4.1)", () => {
  it.each([
    "jane@example.com",
    "jane.doe+news@example.com",
    "!#$%&'*+/=?^_`{|}~-@example.com", // every atext special
    '"john doe"@example.com', // quoted local part with a space
    '"a@b"@example.com', // @ inside quotes
    '"quote\\"d"@example.com', // quoted-pair
    `${"a".repeat(64)}@example.com`,
    "user@bücher.example", // IDN domain → punycode
    "jörg@example.com", // RFC 6531 UTF-8 local part
  ])("accepts %s", (addr) => {
    expect(parseAddress(addr).ok).toBe(true);
  });

  it.each([
    ["plainaddress", "no @"],
    ["@example.com", "empty"],
    ["jane@", "domain is invalid"],
    [".jane@example.com", "starts or ends with a dot"],
    ["jane.@example.com", "starts or ends with a dot"],
    ["ja..ne@example.com", "two dots"],
    ["ja ne@example.com", "not allowed outside quotes"],
    ["ja(ne)@example.com", "not allowed outside quotes"],
    ['"unterminated@example.com', "quoted local part"],
    [`${"a".repeat(65)}@example.com`, "64 octets"],
    ["jane@[192.0.2.1]", "address literals"],
    ["jane@localhost", "two labels"],
    ["jane@exa_mple.com", "domain is invalid"],
    [`jane@${"a".repeat(63)}.${"b".repeat(63)}.${"c".repeat(63)}.${"d".repeat(57)}.com`, "254 octets"],
  ])("rejects %s", (addr, reason) => {
    const r = parseAddress(addr);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.reason).toContain(reason);
  });

  it("lower-cases and punycodes the domain but keeps the local part's case (RFC 5321 §2.4)", () => {
    expect(parseAddress(" Jane@Bücher.Example ")).toMatchObject({
      ok: true,
      local: "Jane",
      domain: "xn--bcher-kva.example",
      address: "Jane@xn--bcher-kva.example",
    });
  });
});

describe("curated tables", () => {
  it("detects providers from MX host suffixes on label boundaries", () => {
    expect(providerFromMx(["aspmx.l.google.com"])?.name).toBe("Google Workspace");
    expect(providerFromMx(["acme-example.mail.protection.outlook.com"])?.name).toBe("Microsoft 365");
    expect(providerFromMx(["us-smtp-inbound-1.mimecast.com"])).toEqual({ name: "Mimecast", kind: "security_gateway" });
    expect(providerFromMx(["mx0a-001.pphosted.com"])?.name).toBe("Proofpoint");
    expect(providerFromMx(["in1-smtp.messagingengine.com"])?.name).toBe("Fastmail");
    expect(providerFromMx(["notgoogle.com"])).toBeNull();
    expect(providerFromMx([])).toBeNull();
  });
  it("knows free mailbox domains, including country variants of the big brands", () => {
    for (const d of [
      "gmail.com",
      "googlemail.com",
      "hotmail.co.uk",
      "hotmail.fr",
      "yahoo.co.jp",
      "yahoo.com",
      "gmx.de",
      "yandex.ru",
      "proton.me",
      "qq.com",
      "icloud.com",
      "web.de",
    ]) {
      expect(isFreeDomain(d), d).toBe(true);
    }
    for (const d of ["acme.example", "google.com", "hotmail.acme.example", "yahoo.example.co.uk"]) expect(isFreeDomain(d), d).toBe(false);
  });
  it("recognises role local parts with separators, case and subaddresses", () => {
    for (const l of ["admin", "Postmaster", "no-reply", "noreply", "do_not_reply", "info+web", "support", "abuse"]) expect(isRoleLocal(l), l).toBe(true);
    for (const l of ["jane", "john.smith", "infoman"]) expect(isRoleLocal(l), l).toBe(false);
  });
  it("grades domain policy strength from SPF all and DMARC, unknown on temperror", () => {
    expect(policyStrength("-all", "reject", false)).toBe("strong");
    expect(policyStrength("~all", "quarantine", false)).toBe("strong");
    expect(policyStrength("~all", "reject", true)).toBe("moderate"); // t=y: testing
    expect(policyStrength("?all", "reject", false)).toBe("moderate");
    expect(policyStrength("-all", "none", false)).toBe("moderate");
    expect(policyStrength("-all", "missing", false)).toBe("weak");
    expect(policyStrength("+all", "none", false)).toBe("weak");
    expect(policyStrength("none", "missing", false)).toBe("none");
    expect(policyStrength("temperror", "reject", false)).toBe("unknown");
    expect(policyStrength("-all", "temperror", false)).toBe("unknown");
  });
});
