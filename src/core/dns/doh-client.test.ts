// Tests of one DoH exchange: the request it sends and how each kind of answer is classified.
import { describe, expect, it } from "vitest";
import type { HttpFetch } from "../types";
import { dohExchange } from "./doh-client";
import { decodeResponse, encodeResponse, type ResponseInit, TYPE } from "./wire";

const EP = "https://doh.test/dns-query";
const DNS = { "content-type": "application/dns-message" };
const question = [{ name: "example.com", type: TYPE.TXT, class: 1 }];
const answer = (over: Partial<ResponseInit> = {}, rcode = 0): Uint8Array => {
  const r = encodeResponse({ header: { id: 0, rcode }, question, ...over });
  if (!r.ok) throw new Error(r.error);
  return r.value;
};
const serve =
  (body: () => Response): HttpFetch =>
  async () =>
    body();
const run = (f: HttpFetch, timeoutMs = 1000) => dohExchange(EP, "example.com", "TXT", { fetch: f, timeoutMs });

describe("dohExchange request", () => {
  it("POSTs a wire-format query with id 0, RD and a timeout signal (RFC 8484 §4.1)", async () => {
    let seen: { url: string; init: RequestInit | undefined } | undefined;
    const f: HttpFetch = async (url, init) => {
      seen = { url: String(url), init };
      return new Response(answer(), { headers: DNS });
    };
    await run(f);
    expect(seen?.url).toBe(EP);
    expect(seen?.init?.method).toBe("POST");
    const headers = new Headers(seen?.init?.headers);
    expect(headers.get("content-type")).toBe("application/dns-message");
    expect(headers.get("accept")).toBe("application/dns-message");
    expect(seen?.init?.signal, "every request carries AbortSignal.timeout").toBeInstanceOf(AbortSignal);
    const body = seen?.init?.body;
    const sent = decodeResponse(body instanceof Uint8Array ? body : new Uint8Array());
    expect(sent.ok && sent.value.header.id).toBe(0);
    expect(sent.ok && sent.value.header.flags.rd).toBe(true);
    expect(sent.ok && sent.value.question).toEqual(question);
  });
});

describe("dohExchange classification", () => {
  it("NOERROR with records, NOERROR without (NODATA) and NXDOMAIN are definitive", async () => {
    const rec = { name: "example.com", type: TYPE.TXT, class: 1, ttl: 60, data: { kind: "TXT" as const, strings: ["x"] } };
    expect((await run(serve(() => new Response(answer({ answer: [rec] }), { headers: DNS })))).kind).toBe("records");
    expect((await run(serve(() => new Response(answer(), { headers: DNS })))).kind).toBe("nodata");
    expect((await run(serve(() => new Response(answer({}, 3), { headers: DNS })))).kind).toBe("nxdomain");
  });

  const failures: Array<[string, () => Response, RegExp]> = [
    ["HTTP 503", () => new Response("busy", { status: 503 }), /HTTP 503/],
    ["HTTP 200 as JSON", () => new Response("{}", { headers: { "content-type": "application/dns-json" } }), /content-type/],
    ["garbage", () => new Response(new Uint8Array([1, 2, 3]), { headers: DNS }), /malformed/],
    ["truncated (TC)", () => new Response(answer({ header: { id: 0, rcode: 0, flags: { tc: true } } }), { headers: DNS }), /truncated/],
    ["wrong id", () => new Response(answer({ header: { id: 99, rcode: 0 } }), { headers: DNS }), /id 99/],
    ["not a response", () => new Response(answer({ header: { id: 0, rcode: 0, flags: { qr: false } } }), { headers: DNS }), /QR=0/],
    ["other question", () => new Response(answer({ question: [{ name: "example.org", type: TYPE.TXT, class: 1 }] }), { headers: DNS }), /example\.org/],
    ["other type", () => new Response(answer({ question: [{ name: "example.com", type: TYPE.A, class: 1 }] }), { headers: DNS }), /not example\.com TXT/],
    ["no question", () => new Response(answer({ question: [] }), { headers: DNS }), /no question/],
    ["SERVFAIL", () => new Response(answer({}, 2), { headers: DNS }), /SERVFAIL/],
    ["REFUSED", () => new Response(answer({}, 5), { headers: DNS }), /REFUSED/],
    ["FORMERR", () => new Response(answer({}, 1), { headers: DNS }), /FORMERR/],
    ["NOTIMP", () => new Response(answer({}, 4), { headers: DNS }), /NOTIMP/],
    ["oversized body", () => new Response(new Uint8Array(70_000), { headers: DNS }), /oversized/],
    ["oversized stream", () => new Response(new Blob([new Uint8Array(40_000), new Uint8Array(40_000)]).stream(), { headers: DNS }), /oversized/],
  ];
  for (const [label, body, reason] of failures) {
    it(`${label} is a temperror, never an absence`, async () => {
      const r = await run(serve(body));
      expect(r.kind, label).toBe("temperror");
      expect(r.kind === "temperror" && r.reason, label).toMatch(reason);
    });
  }

  it("a timeout or network failure is a temperror with cause network", async () => {
    const hang: HttpFetch = (_u, init) => new Promise((_, reject) => init?.signal?.addEventListener("abort", () => reject(init.signal?.reason)));
    const t = await run(hang, 20);
    expect(t).toMatchObject({ kind: "temperror", cause: "network" });
    expect(t.kind === "temperror" && t.reason).toMatch(/timeout after 20 ms/);
    const down = await run(async () => Promise.reject(new TypeError("connection refused")));
    expect(down).toMatchObject({ kind: "temperror", cause: "network" });
  });

  it("a name that cannot be encoded sends nothing", async () => {
    let calls = 0;
    const r = await dohExchange(EP, `${"a".repeat(64)}.example`, "A", {
      fetch: async () => {
        calls++;
        return new Response();
      },
      timeoutMs: 100,
    });
    expect(r).toMatchObject({ kind: "temperror", cause: "query" });
    expect(calls).toBe(0);
  });
});
