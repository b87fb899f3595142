// The one strict IP parser: RFC 4291 §2.2 text forms in, RFC 5952 §4 canonical text out.
import { describe, expect, it } from "vitest";
import { formatIPv4, formatIPv6, parseIPv4, parseIPv6 } from "./address";

const v6 = (s: string) => {
  const b = parseIPv6(s);
  return b === null ? null : formatIPv6(b);
};

describe("IPv4 (strict dotted quad)", () => {
  it("accepts four decimal octets and nothing else", () => {
    expect(formatIPv4(parseIPv4("192.0.2.1") ?? new Uint8Array())).toBe("192.0.2.1");
    for (const bad of ["999.192.0.2.1", "256.1.1.1", "192.0.2.01", "192.0.2", "0x7f.0.0.1", "1.2.3.4.", " 1.2.3.4", "1.2.3.-4", ""]) {
      expect(parseIPv4(bad), bad).toBeNull();
    }
  });
});

describe("IPv6 (RFC 4291 §2.2) and canonical text (RFC 5952 §4)", () => {
  it("reads the three text forms and writes the canonical one", () => {
    expect(v6("2001:DB8:0:0:8:800:200C:417A")).toBe("2001:db8::8:800:200c:417a"); // §4.3 lower case, §4.2.1 compression
    expect(v6("FF01:0:0:0:0:0:0:101")).toBe("ff01::101");
    expect(v6("0:0:0:0:0:0:0:1")).toBe("::1");
    expect(v6("0:0:0:0:0:0:0:0")).toBe("::");
    expect(v6("2001:db8:0:1:1:1:1:1")).toBe("2001:db8:0:1:1:1:1:1"); // §4.2.2 one 16-bit 0 field is not shortened
    expect(v6("2001:0:0:1:0:0:0:1")).toBe("2001:0:0:1::1"); // §4.2.3 the longest run
    expect(v6("2001:db8:0:0:1:0:0:1")).toBe("2001:db8::1:0:0:1"); // ... the first of equal runs
    expect(v6("0:0:0:0:0:FFFF:129.144.52.38")).toBe("::ffff:8190:3426"); // embedded IPv4 form
    expect(v6("::13.1.68.3")).toBe("::d01:4403");
  });

  it("refuses zone ids, wrong group counts, double compression and bad digits", () => {
    for (const bad of [
      "fe80::1%eth0",
      "1:2:3:4:5:6:7:8:9",
      "1:2:3:4:5:6:7",
      "1::2::3",
      "12345::1",
      "g::1",
      "::1.2.3.256",
      ":1:2:3:4:5:6:7",
      "1:2:3:4:5:6:7:",
    ]) {
      expect(parseIPv6(bad), bad).toBeNull();
    }
  });
});
