// The AD bit (RFC 6840 §5.7) through the wire codec and the resolver, and TLSA RDATA (RFC 6698 §2.1).
import { describe, expect, it } from "vitest";
import { installDohStub, type StubZone } from "../../../test/support/doh-stub";
import { DohResolver, globalFetch } from "./doh-resolver";
import { CLASS_IN, decodeResponse, encodeQuery, encodeResponse, TYPE } from "./wire";

const EP = "https://a.test/dns-query";
const HASH = "8cb0fc6c527506a053f4f14c8464bebbd6dede2738d11468dd953d7d6a3021f1";
const zone: StubZone = {
  "_25._tcp.mx.signed.example": { TLSA: [{ usage: 3, selector: 1, matchingType: 1, data: HASH }], ad: true },
  "_25._tcp.mx.plain.example": { TLSA: [{ usage: 3, selector: 1, matchingType: 1, data: HASH }] },
  "_25._tcp.alias.signed.example": { CNAME: "_25._tcp.mx.plain.example", ad: true },
  "_25._tcp.none.signed.example": { ad: true },
};
const resolver = () => new DohResolver({ endpoints: [EP], fetch: globalFetch, timeoutMs: 50 });

describe("AD bit and TLSA", () => {
  it("queries ask for the AD bit (RFC 6840 §5.7) and keep RD", () => {
    const q = encodeQuery("example.com", "TLSA");
    const d = q.ok ? decodeResponse(q.value) : null;
    expect(d?.ok && d.value.header.flags).toMatchObject({ rd: true, ad: true, cd: false });
    expect(d?.ok && d.value.question[0]?.type).toBe(TYPE.TLSA);
  });
  it("TLSA RDATA round-trips; a record shorter than its three fields is malformed", () => {
    const rr = {
      name: "_25._tcp.mx.example",
      type: TYPE.TLSA,
      class: CLASS_IN,
      ttl: 60,
      data: { kind: "TLSA" as const, usage: 2, selector: 0, matchingType: 2, data: "00ff" },
    };
    const bytes = encodeResponse({ header: { id: 0, rcode: 0 }, question: [{ name: rr.name, type: TYPE.TLSA, class: CLASS_IN }], answer: [rr] });
    const back = bytes.ok ? decodeResponse(bytes.value) : null;
    expect(back?.ok && back.value.answer[0]?.data).toEqual(rr.data);
    const short = { ...rr, data: { kind: "raw" as const, bytes: new Uint8Array([3, 1]) } };
    const bad = encodeResponse({ header: { id: 0, rcode: 0 }, question: [{ name: rr.name, type: TYPE.TLSA, class: CLASS_IN }], answer: [short] });
    expect(bad.ok && decodeResponse(bad.value).ok).toBe(false);
  });
  it("an answer with AD=1 is authenticated; without it, the same records are not", async () => {
    installDohStub(zone);
    const r = resolver();
    const signed = await r.query("_25._tcp.mx.signed.example", "TLSA");
    expect(signed).toMatchObject({ kind: "records", authenticated: true, records: [{ usage: 3, selector: 1, matchingType: 1, data: HASH }] });
    const plain = await r.query("_25._tcp.mx.plain.example", "TLSA");
    expect(plain.kind).toBe("records");
    expect(plain.kind === "records" && plain.authenticated).toBeFalsy();
  });
  it("a denial with AD=1 is authenticated; one unsigned hop of a CNAME chain makes the whole answer unauthenticated", async () => {
    installDohStub(zone, { followCnames: false });
    const r = resolver();
    expect(await r.query("_25._tcp.none.signed.example", "TLSA")).toMatchObject({ kind: "nodata", authenticated: true });
    const chained = await r.query("_25._tcp.alias.signed.example", "TLSA");
    expect(chained).toMatchObject({ kind: "records", chain: ["_25._tcp.mx.plain.example"] });
    expect(chained.kind === "records" && chained.authenticated).toBeFalsy();
  });
});
