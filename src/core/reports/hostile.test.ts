// Hostile and broken inputs: DTDs, floods, bombs, zip tricks, malformed and non-report XML. Pure, no I/O.
import { Gzip, gzipSync, zipSync } from "fflate";
import { describe, expect, it } from "vitest";
import { decompress } from "./decompress";
import { parseReport } from "./index";
import { chunked, enc, google, report } from "./test-fixtures";

async function code(input: Uint8Array | ReadableStream<Uint8Array>, maxXmlBytes?: number): Promise<string> {
  const r = await parseReport(input, maxXmlBytes ? { maxXmlBytes } : {});
  return r.ok ? "ok" : r.error.code;
}

/**
 * gzip of "<feedback>" + about `total` zero bytes. Gzip allows concatenated members (RFC 1952
 * §2.2), so one 64 MB member, compressed in 1 MB pushes, is repeated: the bomb never exists
 * uncompressed and building the 1 GB one costs a single 64 MB compression.
 */
let member: Uint8Array | null = null;
function zeroBomb(total: number): Uint8Array {
  if (member === null) {
    const parts: Uint8Array[] = [];
    const gz = new Gzip({ level: 6 }, (d) => parts.push(d));
    const mb = new Uint8Array(1 << 20);
    for (let i = 0; i < 64; i++) gz.push(mb, i === 63);
    member = concat(parts);
  }
  const m = member;
  return concat([gzipSync(enc("<feedback>")), ...Array.from({ length: Math.ceil(total / (64 << 20)) }, () => m)]);
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

const XXE = `<?xml version="1.0"?><!DOCTYPE feedback [<!ENTITY xxe SYSTEM "file:///etc/passwd">]><feedback><report_metadata><org_name>&xxe;</org_name></report_metadata></feedback>`;
const LAUGHS = `<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">${Array.from({ length: 7 }, (_, i) => `<!ENTITY lol${i + 3} "${`&lol${i + 2};`.repeat(10)}">`).join("")}]><feedback>&lol9;</feedback>`;

describe("DTD and entity refusal (platform-limits: refuse before parsing)", () => {
  it("XXE with a SYSTEM entity, billion laughs, lower-case doctype, ENTITY in a comment", async () => {
    expect(await code(enc(XXE))).toBe("forbidden_dtd");
    expect(await code(enc(LAUGHS))).toBe("forbidden_dtd");
    expect(await code(enc(google().replace("<feedback>", "<!doctype feedback><feedback>")))).toBe("forbidden_dtd");
    expect(await code(enc(google().replace("<feedback>", "<feedback><!-- <!ENTITY x 'y'> -->")))).toBe("forbidden_dtd");
    expect(await code(gzipSync(enc(XXE)))).toBe("forbidden_dtd");
  });

  it("a DOCTYPE split across two chunks (raw and inside gzip)", async () => {
    const x = enc(XXE);
    const at = XXE.indexOf("<!DOC") + 4; // "<!DO" | "CTYPE"
    const two = (): ReadableStream<Uint8Array> =>
      new ReadableStream({
        start(c) {
          c.enqueue(x.slice(0, at));
          c.enqueue(x.slice(at));
          c.close();
        },
      });
    expect(await code(two())).toBe("forbidden_dtd");
    expect(await code(chunked(x, 3))).toBe("forbidden_dtd");
    expect(await code(chunked(gzipSync(x), 5))).toBe("forbidden_dtd");
  });

  it("an undeclared entity is malformed, never expanded", async () => {
    expect(await code(enc(google().replace("google.com</org_name>", "&foo;</org_name>")))).toBe("malformed_xml");
  });
});

describe("floods and size caps", () => {
  it("numeric character reference floods: over the field cap, and over the text-node cap", async () => {
    expect(await code(enc(google().replace("google.com</org_name>", `${"&#65;".repeat(5_000)}</org_name>`)))).toBe("malformed_xml");
    expect(await code(enc(google().replace("google.com</org_name>", `${"&#x41;".repeat(200_000)}</org_name>`)))).toBe("malformed_xml");
  });

  it("a huge comment, a huge tag, a huge whitespace run and deep nesting are refused", async () => {
    expect(await code(enc(google().replace("<feedback>", `<feedback><!--${"<".repeat(100_000)}-->`)))).toBe("malformed_xml");
    expect(await code(enc(google().replace("<feedback>", `<feedback a="${">".repeat(20_000)}">`)))).toBe("malformed_xml");
    expect(await code(enc(google().replace("<feedback>", `<feedback>${" ".repeat(100_000)}`)))).toBe("malformed_xml");
    expect(await code(enc(google().replace("<feedback>", `<feedback>${"<a>".repeat(40)}${"</a>".repeat(40)}`)))).toBe("malformed_xml");
  });

  it("200 MB and 1 GB gzip bombs stop at the 100 MB cap quickly, in bounded chunks", async () => {
    for (const size of [200 << 20, 1 << 30]) await bombStops(size);
    // Through parseReport the zeros are refused even earlier: not well-formed XML.
    expect(await code(zeroBomb(200 << 20))).toBe("malformed_xml");
  }, 60_000);

  async function bombStops(size: number): Promise<void> {
    const bomb = zeroBomb(size);
    let biggest = 0;
    const t0 = Date.now();
    const r = await decompress(bomb, (c) => {
      biggest = Math.max(biggest, c.length);
      return true;
    });
    const ms = Date.now() - t0;
    expect(r.ok ? "ok" : r.error.code).toBe("too_large");
    expect(biggest).toBeLessThanOrEqual(9 << 20); // ≤ ~8 MB per push: memory stays bounded
    expect(ms).toBeLessThan(5_000);
    console.log(
      `${size >> 20} MB gzip bomb (${bomb.length} bytes, ${Math.ceil(size / (64 << 20))} gzip members): too_large after ${ms} ms, largest chunk ${biggest} bytes`,
    );
  }

  it("an XML-looking gzip bomb through parseReport fails with too_large at the cap", async () => {
    const big = enc(google().replace("<feedback>", `<feedback>${"<x/>".repeat(1_000_000)}`));
    expect(await code(gzipSync(big), 1 << 20)).toBe("too_large");
  });

  it("a zip bomb whose header declares a tiny size is measured on real output", async () => {
    const zip = zipSync({ "report.xml": enc(google().replace("<feedback>", `<feedback>${"<x/>".repeat(1_000_000)}`)) });
    const v = new DataView(zip.buffer, zip.byteOffset);
    v.setUint32(22, 100, true); // local header: uncompressed size → 100 bytes
    expect(await code(zip, 1 << 20)).toBe("too_large");
  });
});

describe("archive rules: one XML file, no tricks", () => {
  const x = enc(google());
  it("zip-slip and absolute names", async () => {
    expect(await code(zipSync({ "../x.xml": x }))).toBe("malformed_archive");
    expect(await code(zipSync({ "a/../../x.xml": x }))).toBe("malformed_archive");
    expect(await code(zipSync({ "/etc/x.xml": x }))).toBe("malformed_archive");
    expect(await code(zipSync({ "C:\\x.xml": x }))).toBe("malformed_archive");
  });

  it("nested zip and gzip inside a zip, gzip inside gzip", async () => {
    expect(await code(zipSync({ "inner.zip": zipSync({ "r.xml": x }) }))).toBe("malformed_archive");
    expect(await code(zipSync({ "r.xml.gz": gzipSync(x) }))).toBe("malformed_archive");
    expect(await code(gzipSync(gzipSync(x)))).toBe("malformed_archive");
  });

  it("two files in a zip; an empty zip; truncated gzip and zip", async () => {
    expect(await code(zipSync({ "a.xml": x, "b.xml": x }))).toBe("multiple_files");
    expect(await code(zipSync({}))).toBe("not_a_report");
    const gz = gzipSync(x);
    expect(await code(gz.slice(0, gz.length - 30))).toBe("malformed_archive");
    const zip = zipSync({ "r.xml": x });
    expect(await code(zip.slice(0, 200))).toBe("malformed_archive");
  });
});

describe("not XML, malformed XML, not a report", () => {
  it("empty, whitespace-only and binary input", async () => {
    expect(await code(new Uint8Array(0))).toBe("not_a_report");
    expect(await code(enc("   \n  "))).toBe("not_a_report");
    expect(await code(new Uint8Array([0, 1, 2, 3, 255]))).toBe("not_a_report");
  });

  it("malformed XML", async () => {
    expect(await code(enc(google().replace("</feedback>", "")))).toBe("malformed_xml");
    expect(await code(enc(google().replace("<count>12</count>", "<count>12</cnt>")))).toBe("malformed_xml");
    expect(await code(enc("<feedback><a b='1' b='2'/></feedback>"))).toBe("malformed_xml");
  });

  it("XML that is not an aggregate report", async () => {
    expect(await code(enc("<html><body>hi</body></html>"))).toBe("not_a_report");
    expect(await code(enc("<feedback><foo/></feedback>"))).toBe("not_a_report");
    expect(await code(enc(report().replace(/<report_id>.*<\/report_id>/, "")))).toBe("not_a_report");
    expect(await code(enc(report({ records: [{ ip: "not an ip", count: 1 }] })))).toBe("not_a_report");
    expect(await code(enc(report({ records: [{ ip: "192.0.2.1", count: -1 }] })))).toBe("not_a_report");
    expect(await code(enc(report({ end: 5 })))).toBe("not_a_report");
  });
});

describe("per-report caps (docs/limits.md)", () => {
  const rec = (i: number, extra = "") =>
    `<record><row><source_ip>192.0.2.${(i % 250) + 1}</source_ip><count>1</count><policy_evaluated><disposition>none</disposition><dkim>pass</dkim><spf>pass</spf></policy_evaluated></row><identifiers><header_from>example.com</header_from></identifiers><auth_results>${extra}<spf><domain>example.com</domain><result>pass</result></spf></auth_results></record>`;
  const doc = (records: string) =>
    `<?xml version="1.0"?><feedback><report_metadata><org_name>x</org_name><email>r@x.example</email><report_id>1</report_id><date_range><begin>1700000000</begin><end>1700086399</end></date_range></report_metadata><policy_published><domain>example.com</domain><p>none</p></policy_published>${records}</feedback>`;

  it("refuses more records than the cap, at cap + 1 and not at the cap", async () => {
    const enc = (s: string) => new TextEncoder().encode(s);
    const at = await parseReport(enc(doc(Array.from({ length: 5 }, (_, i) => rec(i)).join(""))), { maxRecords: 5 });
    expect(at.ok).toBe(true);
    const over = await parseReport(enc(doc(Array.from({ length: 6 }, (_, i) => rec(i)).join(""))), { maxRecords: 5 });
    expect(!over.ok && over.error.code).toBe("too_many_records");
  });

  it("keeps at most 8 DKIM results per record and cuts a domain field at 253 characters", async () => {
    const many = Array.from({ length: 20 }, (_, i) => `<dkim><domain>d${i}.example</domain><selector>s${i}</selector><result>pass</result></dkim>`).join("");
    const long = `<dkim><domain>${"a".repeat(900)}.example</domain><selector>${"s".repeat(900)}</selector><result>pass</result></dkim>`;
    const r = await parseReport(new TextEncoder().encode(doc(rec(1, many) + rec(2, long))));
    expect(r.ok ? null : r.error).toBeNull();
    if (!r.ok) return;
    expect(r.value.selectors.filter((s) => s.selector.length < 5).length).toBeLessThanOrEqual(8);
    for (const s of r.value.selectors) {
      expect(s.domain.length).toBeLessThanOrEqual(253);
      expect(s.selector.length).toBeLessThanOrEqual(253);
    }
  });
});
