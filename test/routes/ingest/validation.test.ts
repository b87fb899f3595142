// Strict report validation: a source address is parsed as an address, and text is decoded in its
// declared encoding with malformed bytes a fatal error (XML 1.0 §4.3.3). Refused reports store nothing.
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { json, makeTeam } from "../../support/api";
import { base64, day0, enc, makeDomain, objectRows, post, postJson, reportXml, stored as storedIn } from "../../support/reports";

const send = (address: string, bytes: Uint8Array) => postJson({ recipient: address, content_base64: base64(bytes) });
const stored = async (domainId: number) => (await storedIn(domainId)).reports.length;
const sources = async (domainId: number) =>
  (await objectRows<{ ip: string }>(domainId, "SELECT DISTINCT source_ip AS ip FROM rows ORDER BY ip")).map((r) => r.ip);

describe("source addresses", () => {
  it("refuses a report with an invalid source IP (422 naming the record), nothing stored", async () => {
    const team = await makeTeam();
    const d = await makeDomain(team.id);
    for (const ip of ["999.192.0.2.1", "256.1.1.1", "192.0.2.01", "fe80::1%eth0", "1:2:3:4:5:6:7:8:9", "abc"]) {
      const res = await send(
        d.address,
        enc(
          reportXml({
            domain: d.name,
            begin: day0(1),
            end: day0(0) - 1,
            records: [
              { ip: "192.0.2.1", count: 1 },
              { ip, count: 2 },
            ],
          }),
        ),
      );
      expect(res.status, ip).toBe(422);
      expect((await json<{ message: string }>(res)).message, ip).toContain("record 2");
    }
    expect(await stored(d.id)).toBe(0);
  });

  it("stores IPv6 sources in canonical form (RFC 5952), so one address is one source", async () => {
    const team = await makeTeam();
    const d = await makeDomain(team.id);
    const res = await send(
      d.address,
      enc(
        reportXml({
          domain: d.name,
          begin: day0(1),
          end: day0(0) - 1,
          records: [
            { ip: "2001:DB8:0:0:0:0:0:1", count: 1 },
            { ip: "2001:db8::1", count: 2 },
          ],
        }),
      ),
    );
    expect(res.status).toBe(202);
    expect(await sources(d.id)).toEqual(["2001:db8::1"]);
  });
});

describe("text encodings", () => {
  const xml = (domain: string, decl = 'version="1.0" encoding="UTF-8"', org = "google.com") =>
    reportXml({ domain, org, begin: day0(1), end: day0(0) - 1, records: [{ ip: "192.0.2.1", count: 3 }] }).replace(
      'version="1.0" encoding="UTF-8" ',
      `${decl} `,
    );

  it("refuses invalid UTF-8 (a fatal error), nothing stored", async () => {
    const team = await makeTeam();
    const d = await makeDomain(team.id);
    const text = xml(d.name).replace("google.com", "goo\u0000gle.com");
    const bytes = enc(text);
    const at = bytes.indexOf(0);
    bytes[at] = 0xc3; // a lead byte followed by "g": malformed UTF-8
    const res = await send(d.address, bytes);
    expect(res.status).toBe(422);
    expect(await stored(d.id)).toBe(0);
  });

  it("accepts UTF-16 with a byte order mark and ISO-8859-1 as declared; refuses UTF-16 without a BOM and unknown encodings", async () => {
    const team = await makeTeam();
    const d = await makeDomain(team.id);
    const utf16le = (s: string) => {
      const out = new Uint8Array(2 + s.length * 2);
      out.set([0xff, 0xfe]);
      for (let i = 0; i < s.length; i++) {
        out[2 + 2 * i] = s.charCodeAt(i) & 0xff;
        out[3 + 2 * i] = s.charCodeAt(i) >> 8;
      }
      return out;
    };
    expect((await send(d.address, utf16le(xml(d.name, 'version="1.0" encoding="UTF-16"', "utf16.example")))).status).toBe(202);
    const latin = xml(d.name, 'version="1.0" encoding="ISO-8859-1"', "latin\u00e9.example");
    const latinBytes = Uint8Array.from([...latin].map((c) => c.charCodeAt(0)));
    expect((await send(d.address, latinBytes)).status, "é as the single byte 0xE9").toBe(202);
    const [org] = await objectRows<{ org_name: string }>(d.id, "SELECT org_name FROM reports WHERE org_name LIKE 'latin%'");
    expect(org?.org_name).toBe("latin\u00e9.example");
    const noBom = utf16le(xml(d.name, 'version="1.0" encoding="UTF-16"', "nobom.example")).subarray(2);
    expect((await send(d.address, noBom)).status).toBe(422);
    expect((await send(d.address, enc(xml(d.name, 'version="1.0" encoding="Shift_JIS"', "sjis.example")))).status).toBe(422);
    expect(await stored(d.id)).toBe(2);
  });
});

describe("a report without records", () => {
  // RFC 7489 Appendix C (and RFC 9990's schema): <record> occurs at least once in an aggregate report.
  const d1Rows = async (domainId: number) => {
    const q = (sql: string) => env.DB.prepare(sql).bind(domainId).first<{ n: number }>();
    return {
      daily: (await q("SELECT COUNT(*) AS n FROM dmarc_daily WHERE domain_id = ?"))?.n,
      reporterDays: (await q("SELECT COUNT(*) AS n FROM dmarc_reporter_days WHERE domain_id = ?"))?.n,
      events: (await q("SELECT COUNT(*) AS n FROM events WHERE domain_id = ?"))?.n,
    };
  };

  it("is refused with 422 naming the problem, by report address and by policy domain; nothing stored anywhere", async () => {
    const team = await makeTeam();
    const d = await makeDomain(team.id);
    const empty = reportXml({ domain: d.name, begin: day0(1), end: day0(0) - 1, records: [] });
    for (const res of [await send(d.address, enc(empty)), await post(empty)]) {
      expect(res.status).toBe(422);
      const body = await json<{ code: string; message: string; errors: { body: string[] } }>(res);
      expect(body.code).toBe("validation_failed");
      expect(body.errors.body).toEqual(["no_records"]);
      expect(body.message).toMatch(/no <record> element/);
    }
    expect(await stored(d.id)).toBe(0);
    expect(await d1Rows(d.id)).toEqual({ daily: 0, reporterDays: 0, events: 0 });
    // The same report with one record is taken: the refusal is about the missing record alone.
    const one = reportXml({ domain: d.name, begin: day0(1), end: day0(0) - 1, records: [{ ip: "192.0.2.9", count: 4 }] });
    expect((await send(d.address, enc(one))).status).toBe(202);
    expect(await stored(d.id)).toBe(1);
  });
});
