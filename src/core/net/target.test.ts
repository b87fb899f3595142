// SSRF rules for webhook targets: IP parsing in every form, blocked ranges, names, and DNS checks.
import { describe, expect, it } from "vitest";
import { FakeResolver } from "../../../test/support/fake-resolver";
import { embeddedIPv4, isBlockedAddress, parseIPv4, parseIPv6 } from "./ip-rules";
import { resolveAndCheckTarget, validateTargetUrl, type TargetOptions } from "./target";

const STRICT: TargetOptions = { allowInsecure: false, allowPrivate: false };
const code = (r: { ok: boolean; error?: { code: string } }) => (r.ok ? "ok" : r.error?.code);

describe("parseIPv4 (URL Standard §4.3 forms)", () => {
  it.each([
    ["127.0.0.1", 0x7f000001],
    ["2130706433", 0x7f000001],
    ["0177.0.0.1", 0x7f000001],
    ["0x7f.1", 0x7f000001],
    ["0x7F000001", 0x7f000001],
    ["127.1", 0x7f000001],
    ["127.0.1", 0x7f000001],
    ["017700000001", 0x7f000001],
    ["10.0.0.1.", 0x0a000001],
    ["0", 0],
    ["0x", 0],
    ["255.255.255.255", 0xffffffff],
  ])("%s", (text, value) => expect(parseIPv4(text)).toBe(value));

  it.each(["256.0.0.1", "1.2.3.4.5", "4294967296", "09.1.1.1", "0x1g", "example.com", "", "1..2", "1.2.3.256"])("rejects %s", (text) =>
    expect(parseIPv4(text)).toBeNull(),
  );
});

describe("parseIPv6", () => {
  it("reads compressed, full, bracketed and dotted-tail forms", () => {
    expect(parseIPv6("::1")).toEqual([0, 0, 0, 0, 0, 0, 0, 1]);
    expect(parseIPv6("[::]")).toEqual([0, 0, 0, 0, 0, 0, 0, 0]);
    expect(parseIPv6("2001:db8:0:0:0:0:0:1")).toEqual([0x2001, 0xdb8, 0, 0, 0, 0, 0, 1]);
    expect(parseIPv6("::ffff:127.0.0.1")).toEqual([0, 0, 0, 0, 0, 0xffff, 0x7f00, 1]);
    expect(parseIPv6("64:ff9b::10.0.0.1")).toEqual([0x64, 0xff9b, 0, 0, 0, 0, 0x0a00, 1]);
    expect(parseIPv6("1:2:3:4:5:6:1.2.3.4")).toEqual([1, 2, 3, 4, 5, 6, 0x102, 0x304]);
    expect(parseIPv6("1::")).toEqual([1, 0, 0, 0, 0, 0, 0, 0]);
  });
  it.each(["1:2:3:4:5:6:7:8:9", "1::2::3", "12345::", "::1%eth0", "1.2.3.4", "1:2:3:4:5:6:7:8::", ":1::", "::1.2.3"])("rejects %s", (text) =>
    expect(parseIPv6(text)).toBeNull(),
  );
  it("finds the IPv4 inside Teredo and 6to4", () => {
    // Teredo client 10.0.0.1 is stored inverted: f5ff:fffe.
    expect(embeddedIPv4(parseIPv6("2001:0:4136:e378:8000:63bf:f5ff:fffe")!)).toContain(0x0a000001);
    expect(embeddedIPv4(parseIPv6("2002:c0a8:0101::1")!)).toEqual([0xc0a80101]);
  });
});

describe("isBlockedAddress", () => {
  it.each([
    "0.0.0.0",
    "0.1.2.3",
    "10.0.0.1",
    "10.255.255.255",
    "100.64.0.1",
    "100.127.255.255",
    "127.0.0.1",
    "127.255.0.1",
    "169.254.169.254",
    "169.254.0.1",
    "172.16.0.1",
    "172.31.255.255",
    "192.0.0.8",
    "192.0.2.1",
    "192.168.1.1",
    "198.18.0.1",
    "198.19.255.255",
    "198.51.100.7",
    "203.0.113.9",
    "224.0.0.1",
    "239.255.255.250",
    "240.0.0.1",
    "255.255.255.255",
    // raw WHATWG forms of 127.0.0.1 and 169.254.169.254
    "2130706433",
    "0177.0.0.1",
    "0x7f.1",
    "0xa9fea9fe",
    "::",
    "::1",
    "[::1]",
    "fc00::1",
    "fd12:3456::1",
    "fe80::1",
    "febf::1",
    "ff02::1",
    "2001:db8::1",
    "::ffff:127.0.0.1",
    "::ffff:7f00:1",
    "::ffff:10.0.0.1",
    "::ffff:a9fe:a9fe",
    "::ffff:0:10.0.0.1",
    "64:ff9b::127.0.0.1",
    "64:ff9b::a00:1",
    "64:ff9b:1::1",
    "2002:7f00:1::1",
    "2002:a00:1::",
    "2001:0:4136:e378:8000:63bf:f5ff:fffe",
    "::127.0.0.1",
    "100::1",
    "3fff::1",
    "not-an-ip",
    "",
  ])("blocks %s", (ip) => expect(isBlockedAddress(ip)).toBe(true));

  it.each([
    "8.8.8.8",
    "1.1.1.1",
    "93.184.215.14",
    "100.63.255.255",
    "100.128.0.1",
    "172.15.255.255",
    "172.32.0.1",
    "192.0.1.1",
    "192.169.0.1",
    "198.17.255.255",
    "198.20.0.1",
    "223.255.255.255",
    "169.253.0.1",
    "2606:4700:4700::1111",
    "2001:4860:4860::8888",
    "::ffff:8.8.8.8",
    "64:ff9b::808:808",
    "2002:808:808::1",
  ])("allows %s", (ip) => expect(isBlockedAddress(ip)).toBe(false));
});

describe("validateTargetUrl", () => {
  it("normalizes decimal, octal and hex IPv4 forms in the URL parser, and blocks them", () => {
    for (const host of ["2130706433", "0177.0.0.1", "0x7f.1", "0x7f000001", "127.1", "0"]) {
      const url = `https://${host}/hook`;
      const parsed = new URL(url).hostname;
      expect(parsed === "127.0.0.1" || parsed === "0.0.0.0", `${host} -> ${parsed}`).toBe(true);
      expect(code(validateTargetUrl(url, STRICT)), url).toBe("blocked_address");
    }
  });

  it.each([
    ["https://10.0.0.1/", "blocked_address"],
    ["https://127.0.0.1:8443/", "blocked_address"],
    ["https://169.254.169.254/latest/meta-data/", "blocked_address"],
    ["https://100.64.1.1/", "blocked_address"],
    ["https://198.18.0.1/", "blocked_address"],
    ["https://192.168.0.10/", "blocked_address"],
    ["https://[::1]/", "blocked_address"],
    ["https://[::ffff:127.0.0.1]/", "blocked_address"],
    ["https://[::ffff:7f00:1]/", "blocked_address"],
    ["https://[64:ff9b::a9fe:a9fe]/", "blocked_address"],
    ["https://[2002:a9fe:a9fe::1]/", "blocked_address"],
    ["https://[fe80::1]/", "blocked_address"],
    ["https://[fd00::1]/", "blocked_address"],
    ["https://localhost/", "blocked_name"],
    ["https://LOCALHOST./", "blocked_name"],
    ["https://api.localhost/", "blocked_name"],
    ["https://metadata.google.internal/computeMetadata/v1/", "blocked_name"],
    ["https://db.corp.internal/", "blocked_name"],
    ["https://printer.local/", "blocked_name"],
    ["https://nas.home.arpa/", "blocked_name"],
    ["https://metadata/", "blocked_name"],
    ["http://hooks.example.com/", "insecure_scheme"],
    ["ftp://hooks.example.com/", "invalid_url"],
    ["javascript:alert(1)", "invalid_url"],
    ["https://user:pass@hooks.example.com/", "credentials"],
    ["https://user@hooks.example.com/", "credentials"],
    ["https://:pw@hooks.example.com/", "credentials"],
    ["not a url", "invalid_url"],
    ["https://256.1.1.1/", "invalid_url"],
    ["/relative/path", "invalid_url"],
  ])("rejects %s (%s)", (url, expected) => expect(code(validateTargetUrl(url, STRICT))).toBe(expected));

  it.each([
    "https://hooks.example.com/webhooks?x=1",
    "https://hooks.example.com:8443/webhooks",
    "https://8.8.8.8/hook",
    "https://[2606:4700:4700::1111]/hook",
    "https://example.com./hook",
  ])("accepts %s", (url) => expect(code(validateTargetUrl(url, STRICT))).toBe("ok"));

  it("allows http only when allowInsecure, and private hosts only when allowPrivate", () => {
    expect(code(validateTargetUrl("http://hooks.example.com/", { allowInsecure: true, allowPrivate: false }))).toBe("ok");
    expect(code(validateTargetUrl("http://127.0.0.1:8787/", { allowInsecure: true, allowPrivate: false }))).toBe("blocked_address");
    expect(code(validateTargetUrl("http://127.0.0.1:8787/", { allowInsecure: true, allowPrivate: true }))).toBe("ok");
    expect(code(validateTargetUrl("https://localhost/", { allowInsecure: false, allowPrivate: true }))).toBe("ok");
    expect(code(validateTargetUrl("http://localhost/", { allowInsecure: false, allowPrivate: true }))).toBe("insecure_scheme");
    expect(code(validateTargetUrl("https://u:p@localhost/", { allowInsecure: true, allowPrivate: true }))).toBe("credentials");
  });
});

describe("resolveAndCheckTarget", () => {
  const resolver = () => {
    const r = new FakeResolver({
      "hooks.example.com": { A: ["93.184.215.14"], AAAA: ["2606:2800:21f:cb07:6820:80da:af6b:8b2c"] },
      "v6only.example.com": { AAAA: ["2606:4700::1"] },
      "private.example.com": { A: ["10.0.0.1"] },
      "mixed.example.com": { A: ["93.184.215.14", "127.0.0.1"] },
      "mapped.example.com": { A: ["93.184.215.14"], AAAA: ["::ffff:169.254.169.254"] },
      "alias.example.com": { CNAME: ["private.example.com"] },
      "flaky.example.com": "temperror",
      "empty.example.com": {},
      "half.example.com": { A: ["93.184.215.14"] },
    });
    r.faults.set("half.example.com AAAA", "temperror");
    return r;
  };

  it("accepts a name whose every address is public", async () => {
    const r = await resolveAndCheckTarget("https://hooks.example.com/hook", resolver(), STRICT);
    expect(r.ok && r.value.addresses).toEqual(["93.184.215.14", "2606:2800:21f:cb07:6820:80da:af6b:8b2c"]);
    expect(code(await resolveAndCheckTarget("https://v6only.example.com/", resolver(), STRICT))).toBe("ok");
  });

  it.each([
    ["https://private.example.com/", "blocked_address"],
    ["https://mixed.example.com/", "blocked_address"],
    ["https://mapped.example.com/", "blocked_address"],
    ["https://alias.example.com/", "blocked_address"],
    ["https://flaky.example.com/", "dns_temperror"],
    ["https://empty.example.com/", "unresolvable"],
    ["https://missing.example.com/", "unresolvable"],
    ["https://localhost/", "blocked_name"],
    ["http://hooks.example.com/", "insecure_scheme"],
  ])("rejects %s (%s)", async (url, expected) => {
    expect(code(await resolveAndCheckTarget(url, resolver(), STRICT))).toBe(expected);
  });

  it("treats a temperror on one type as a temperror, not as ok", async () => {
    expect(code(await resolveAndCheckTarget("https://half.example.com/", resolver(), STRICT))).toBe("dns_temperror");
  });

  it("does not query DNS for IP literals or when private targets are allowed", async () => {
    const r = resolver();
    expect(code(await resolveAndCheckTarget("https://8.8.8.8/", r, STRICT))).toBe("ok");
    expect(code(await resolveAndCheckTarget("https://private.example.com/", r, { allowInsecure: false, allowPrivate: true }))).toBe("ok");
    expect(r.queriesSent).toBe(0);
  });
});
