// Tests of the shared DoH test stub (test/support/doh-stub.ts) that route tests rely on.
import { describe, expect, it } from "vitest";
import { type DohStub, installDohStub } from "../../../test/support/doh-stub";
import { decodeResponse, encodeQuery, TYPE } from "./wire";

let stub: DohStub | undefined;

const query = (name: string, type: "A" | "TXT" | "MX"): Uint8Array => {
  const q = encodeQuery(name, type);
  if (!q.ok) throw new Error(q.error);
  return q.value;
};
const ask = async (name: string, type: "A" | "TXT" | "MX", url = "https://doh.test/dns-query") => {
  const res = await fetch(url, { method: "POST", headers: { "content-type": "application/dns-message" }, body: query(name, type) });
  const msg = decodeResponse(new Uint8Array(await res.arrayBuffer()));
  if (!msg.ok) throw new Error(msg.error);
  return msg.value;
};

describe("installDohStub", () => {
  it("answers a CNAME with the target's records in one answer, like a recursive resolver", async () => {
    stub = installDohStub({ "www.example.com": { CNAME: "example.com" }, "example.com": { A: ["192.0.2.1"] } });
    const msg = await ask("WWW.example.com", "A");
    expect(msg.answer.map((r) => [r.name, r.type])).toEqual([
      ["www.example.com", TYPE.CNAME],
      ["example.com", TYPE.A],
    ]);
    expect(stub.queries).toEqual([{ name: "www.example.com", type: "A", endpoint: "https://doh.test/dns-query" }]);
  });

  it("answers NXDOMAIN for unknown names and NODATA with an SOA for missing types", async () => {
    stub = installDohStub({ "example.com": { A: ["192.0.2.1"] } });
    expect((await ask("nope.example.com", "A")).header.rcode).toBe(3);
    const nodata = await ask("example.com", "MX");
    expect([nodata.header.rcode, nodata.answer.length, nodata.authority[0]?.type]).toEqual([0, 0, TYPE.SOA]);
  });

  it("passes other URLs to the passthrough handler, or answers 404", async () => {
    stub = installDohStub({});
    expect((await fetch("https://mta-sts.example.com/.well-known/mta-sts.txt")).status).toBe(404);
    stub.restore();
    stub = installDohStub({}, { passthrough: (req) => new Response(`policy for ${new URL(req.url).host}`) });
    expect(await (await fetch("https://mta-sts.example.com/.well-known/mta-sts.txt")).text()).toBe("policy for mta-sts.example.com");
  });

  it("fires a fault the given number of times, then answers normally", async () => {
    stub = installDohStub({ "example.com": { TXT: ["hello"] } });
    stub.setFault("example.com", "TXT", "servfail", { times: 1 });
    expect((await ask("example.com", "TXT")).header.rcode).toBe(2);
    expect((await ask("example.com", "TXT")).answer.length).toBe(1);
    stub.setFault("example.com", "TXT", "http-500");
    const res = await fetch("https://doh.test/dns-query", { method: "POST", body: query("example.com", "TXT") });
    expect(res.status).toBe(500);
    stub.setFault("example.com", "TXT", null);
    expect((await ask("example.com", "TXT")).answer.length).toBe(1);
  });

  it("delays answers by delayMs", async () => {
    stub = installDohStub({ "example.com": { A: ["192.0.2.1"] } }, { delayMs: 30 });
    const t0 = performance.now();
    await ask("example.com", "A");
    // workerd advances timers only across I/O, so measure with a generous lower bound.
    expect(performance.now() - t0).toBeGreaterThanOrEqual(25);
  });
});
