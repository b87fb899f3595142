// Hostile and broken reports through HTTP: each a 4xx with nothing stored, and the service still ingests afterwards.
import { Gzip, gzipSync, zipSync } from "fflate";
import { describe, expect, it } from "vitest";
import { json, makeTeam } from "../../support/api";
import { day0, enc, makeDomain, post, postJson, reportXml, signature, stored, type TestDomain } from "../../support/reports";

const good = (d: TestDomain, count = 1) => reportXml({ domain: d.name, begin: day0(1), end: day0(0) - 1, records: [{ ip: "192.0.2.1", count }] });

async function refused(body: Uint8Array | string, status: number, code?: string, contentType?: string) {
  const res = await post(body, { contentType });
  expect(res.status).toBe(status);
  const b = await json<{ code: string; errors?: { body?: string[] } }>(res);
  if (code) expect(b.errors?.body ?? [b.code]).toContain(code);
}

function concat(parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((a, p) => a + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

/** gzip of a report whose body is ~`mb` MB of well-formed "<x/>" elements: concatenated gzip members
 *  (RFC 1952 §2.2) repeat one 16 MB member, so the bomb is small and cheap to build. */
function xmlBomb(d: TestDomain, mb: number): Uint8Array {
  const [head, tail] = good(d).split("</feedback>");
  const parts: Uint8Array[] = [];
  const gz = new Gzip({ level: 6 }, (c) => parts.push(c));
  const block = enc("<x/>".repeat(1 << 18)); // 1 MB
  for (let i = 0; i < 16; i++) gz.push(block, i === 15);
  const member = concat(parts);
  return concat([gzipSync(enc(head ?? "")), ...Array.from({ length: Math.ceil(mb / 16) }, () => member), gzipSync(enc(`</feedback>${tail ?? ""}`))]);
}

describe("hostile input via HTTP", () => {
  it("XXE, billion laughs, numeric-reference flood and malformed XML are 422; nothing stored", async () => {
    const team = await makeTeam();
    const d = await makeDomain(team.id);
    const xml = good(d);
    await refused(
      xml
        .replace("<feedback>", `<!DOCTYPE feedback [<!ENTITY xxe SYSTEM "file:///etc/passwd">]><feedback>`)
        .replace("google.com</org_name>", "&xxe;</org_name>"),
      422,
      "forbidden_dtd",
    );
    const laughs = `<!DOCTYPE lolz [<!ENTITY lol "lol">${Array.from({ length: 8 }, (_, i) => `<!ENTITY lol${i + 2} "${`&lol${i === 0 ? "" : i + 1};`.repeat(10)}">`).join("")}]>`;
    await refused(xml.replace("<feedback>", `${laughs}<feedback>`), 422, "forbidden_dtd");
    await refused(gzipSync(enc(xml.replace("<feedback>", "<!doctype feedback><feedback>"))), 422, "forbidden_dtd");
    await refused(xml.replace("google.com</org_name>", `${"&#65;".repeat(200_000)}</org_name>`), 422, "malformed_xml");
    await refused(xml.replace("</feedback>", ""), 422, "malformed_xml");
    await refused(xml.replace("<count>1</count>", "<count>lots</count>"), 422);
    await refused("<html><body>not a report</body></html>", 422, "not_a_report");
    await refused("hello", 422, "not_a_report");
    await refused(new Uint8Array(0), 422, "not_a_report");
    expect((await stored(d.id)).reports).toHaveLength(0);
  });

  it("zip-slip, nested archives, two files and corrupt archives are 422; nothing stored", async () => {
    const team = await makeTeam();
    const d = await makeDomain(team.id);
    const x = enc(good(d));
    await refused(zipSync({ "../../evil.xml": x }), 422, "malformed_archive");
    await refused(zipSync({ "/etc/report.xml": x }), 422, "malformed_archive");
    await refused(zipSync({ "inner.zip": zipSync({ "r.xml": x }) }), 422, "malformed_archive");
    await refused(gzipSync(gzipSync(x)), 422, "malformed_archive");
    await refused(zipSync({ "a.xml": x, "b.xml": x }), 422, "multiple_files");
    await refused(gzipSync(x).slice(0, 40), 422, "malformed_archive");
    expect((await stored(d.id)).reports).toHaveLength(0);
  });

  it("an 11 MB body is 413 (declared and streamed without a length); so is 11 MB of JSON", async () => {
    const team = await makeTeam();
    const d = await makeDomain(team.id);
    const big = enc(good(d).replace("<feedback>", `<feedback>${"<x/>".repeat((11 << 20) / 4)}`));
    await refused(big, 413);
    // Streamed: no Content-Length, counted while reading.
    const sig = await signature(big);
    const stream = new ReadableStream<Uint8Array>({
      start(c) {
        for (let i = 0; i < big.length; i += 1 << 20) c.enqueue(big.slice(i, i + (1 << 20)));
        c.close();
      },
    });
    const { exports } = await import("cloudflare:workers");
    const res = await exports.default.fetch(
      new Request("https://api.test/api/webhooks/dmarc", { method: "POST", body: stream, headers: { "x-signature": sig }, duplex: "half" } as RequestInit),
    );
    expect(res.status).toBe(413);
    const jsonRes = await postJson({ content_base64: "A".repeat(11 << 20) });
    expect(jsonRes.status).toBe(413);
    expect((await stored(d.id)).reports).toHaveLength(0);
  });

  it("a gzip bomb past 100 MB of XML is 413, nothing stored, and the next report still ingests", async () => {
    const team = await makeTeam();
    const d = await makeDomain(team.id);
    const bomb = xmlBomb(d, 112);
    expect(bomb.length).toBeLessThan(1 << 20);
    await refused(bomb, 413, "payload_too_large");
    expect((await stored(d.id)).reports).toHaveLength(0);
    expect((await post(good(d, 2))).status).toBe(202);
    expect((await stored(d.id)).messages).toBe(2);
  }, 120_000);

  it("the JSON form: invalid base64, a missing field and malformed JSON", async () => {
    expect((await postJson({ content_base64: "***" })).status).toBe(422);
    expect(await json(await postJson({ filename: "x.xml" }))).toMatchObject({ code: "validation_failed", errors: { content_base64: expect.any(Array) } });
    expect((await post("{not json", { contentType: "application/json" })).status).toBe(400);
  });
});
