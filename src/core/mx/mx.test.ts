import { describe, expect, it } from "vitest";
import { FakeResolver } from "../../../test/support/fake-resolver";
import { analyzeMx } from "./analyze";

const rules = (fs: { rule: string }[]) => fs.map((x) => x.rule);

describe("analyzeMx", () => {
  it("resolves hosts in preference order and collects IPs", async () => {
    const r = await analyzeMx(
      "example.com",
      new FakeResolver({
        "example.com": {
          MX: [
            { preference: 20, exchange: "mx2.example.com" },
            { preference: 10, exchange: "mx1.example.com" },
          ],
        },
        "mx1.example.com": { A: ["192.0.2.1"], AAAA: ["2001:db8::1"] },
        "mx2.example.com": { A: ["192.0.2.2", "192.0.2.1"] },
      }),
    );
    expect(r.status).toBe("present");
    expect(r.hosts.map((h) => h.host)).toEqual(["mx1.example.com", "mx2.example.com"]);
    expect(r.ips).toEqual(["192.0.2.1", "2001:db8::1", "192.0.2.2"]);
    expect(r.findings).toEqual([]);
  });
  it("null MX (RFC 7505)", async () => {
    const r = await analyzeMx("parked.example", new FakeResolver({ "parked.example": { MX: [{ preference: 0, exchange: "" }] } }));
    expect(r).toMatchObject({ status: "present", nullMx: true, hosts: [], ips: [] });
    expect(rules(r.findings)).toEqual(["mx.null-mx"]);
  });
  it("null MX mixed with real MX is invalid", async () => {
    const r = await analyzeMx(
      "x.example",
      new FakeResolver({
        "x.example": {
          MX: [
            { preference: 0, exchange: "" },
            { preference: 10, exchange: "mx.x.example" },
          ],
        },
        "mx.x.example": { A: ["192.0.2.9"] },
      }),
    );
    expect(r.status).toBe("invalid");
    expect(r.nullMx).toBe(false);
    expect(rules(r.findings)).toContain("mx.null-mx-mixed");
  });
  it("MX pointing at a CNAME is flagged (RFC 2181 §10.3)", async () => {
    const r = await analyzeMx(
      "example.com",
      new FakeResolver({
        "example.com": { MX: [{ preference: 10, exchange: "mail.example.com" }] },
        "mail.example.com": { CNAME: ["real.host.example"] },
        "real.host.example": { A: ["192.0.2.5"] },
      }),
    );
    expect(r.hosts[0]).toMatchObject({ status: "ok", cname: ["real.host.example"], ipv4: ["192.0.2.5"] });
    expect(rules(r.findings)).toEqual(["mx.cname"]);
  });
  it("IP literal, unresolvable host, duplicates", async () => {
    const r = await analyzeMx(
      "example.com",
      new FakeResolver({
        "example.com": {
          MX: [
            { preference: 10, exchange: "192.0.2.7" },
            { preference: 20, exchange: "gone.example.com" },
            { preference: 30, exchange: "gone.example.com" },
          ],
        },
      }),
    );
    expect(rules(r.findings)).toEqual(["mx.duplicate", "mx.ip-literal", "mx.unresolvable", "mx.no-reachable-host"]);
  });
  it("a host temperror is unknown, not unresolvable", async () => {
    const res = new FakeResolver({ "example.com": { MX: [{ preference: 10, exchange: "mx.example.com" }] }, "mx.example.com": "temperror" });
    const r = await analyzeMx("example.com", res);
    expect(r.hosts[0]?.status).toBe("temperror");
    expect(r.findings).toEqual([]);
  });
  it("no MX, NXDOMAIN, temperror", async () => {
    expect((await analyzeMx("example.com", new FakeResolver({ "example.com": { A: ["192.0.2.1"] } }))).findings[0]?.rule).toBe("mx.missing");
    expect(await analyzeMx("nope.example", new FakeResolver({}))).toMatchObject({ status: "missing", nxdomain: true });
    expect((await analyzeMx("example.com", new FakeResolver({ "example.com": "temperror" }))).status).toBe("temperror");
  });
});
