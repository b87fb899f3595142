// Differential fuzzing: the byte scanner (src/core/reports) against the saxes-based parser it
// replaced (test/core-reports/reference), on generated reports with the XML constructs reporters
// and attackers use. Same result, or the same refusal code, every time (docs/decisions.md D90).
import fc from "fast-check";
import { gzipSync } from "fflate";
import { describe, expect, it } from "vitest";
import { parseReport } from "../../src/core/reports";
import { chunked, enc } from "../../src/core/reports/test-fixtures";
import { referenceParseReport } from "./reference";

type Out = { ok: true; value: unknown } | { ok: false; code: string; message?: string };

async function both(bytes: Uint8Array, chunk: number): Promise<[Out, Out]> {
  const norm = (r: Awaited<ReturnType<typeof parseReport>>): Out =>
    r.ok
      ? { ok: true, value: r.value }
      : // Syntax messages are worded by each parser; report-level messages must match too.
        { ok: false, code: r.error.code, ...(r.error.code === "malformed_xml" ? {} : { message: r.error.message }) };
  const input = () => (chunk > 0 ? chunked(bytes, chunk) : bytes);
  // The intended differences: the old parser's decoding refusal escaped as an exception, which
  // came out as malformed_archive ("corrupt xml: Error: ...") mid-stream and was thrown out of
  // parseReport (a 500) at the very end; it was always meant as malformed_xml.
  let ref: Out;
  try {
    ref = norm(await referenceParseReport(input()));
  } catch (e) {
    if (!/not valid text in its encoding/.test(String(e))) throw e;
    ref = { ok: false, code: "malformed_archive", message: `corrupt xml: ${String(e)}` };
  }
  const escaped = !ref.ok && ref.code === "malformed_archive" && /^corrupt \w+: Error: /.test(ref.message ?? "");
  return [norm(await parseReport(input())), escaped ? { ok: false, code: "malformed_xml" } : ref];
}

// Text pieces: plain, references, CDATA, comments, PIs, line ends, non-ASCII, white space.
const piece = fc.oneof(
  fc.constantFrom("example.com", "pass", "fail", "none", "Example.COM.", "s1", "mfrom", " ", "\n  ", "\r\n", "\r", "\t"),
  fc.constantFrom("&amp;", "&lt;", "&gt;", "&quot;", "&apos;", "&#x41;", "&#65;", "&#X41;", "&#x0;", "&bogus;", "&#xD800;", "&#1114111;", "& "),
  fc.constantFrom("<![CDATA[pa]]>", "<![CDATA[a]]b]]>", "<!-- c -->", "<!-- a -- b -->", "<?pi body?>", "<?xml x?>", "<x/>", "<unknown>z</unknown>"),
  fc.constantFrom("é", "Почта", "😀", "\u0085", "\u2028", "\uFFFE", "\u0001", "\u007f", "]]>", "]]", ">", "<", "&"),
  fc.string({ maxLength: 6 }),
);
const text = fc.array(piece, { maxLength: 4 }).map((p) => p.join(""));
const ipText = fc.oneof(
  fc.constantFrom("192.0.2.1", " 198.51.100.7 ", "2001:DB8::1", "::ffff:192.0.2.1", "256.1.1.1", "01.2.3.4", "fe80::1%eth0", "", "1.2.3.4\n"),
  fc.tuple(fc.nat(255), fc.nat(255), fc.nat(255), fc.nat(255)).map((a) => a.join(".")),
);
const count = fc.oneof(fc.constantFrom("1", " 12 ", "3.0", "-1", "x", "1000000001", "0"), fc.nat(100).map(String));
const name = (n: string) => fc.constantFrom(n, n.toUpperCase(), `d:${n}`, n === "dkim" ? "d\u212Aim" : n);

const record = fc
  .record({
    ip: ipText,
    count,
    disp: text,
    from: text,
    dkimName: name("dkim"),
    sel: fc.option(text),
    res: fc.constantFrom("pass", "Fail", "SoftFail", "unknown", "error", "neutral"),
    reason: fc.option(fc.constantFrom("forwarded", "Local Policy", "policy_test_mode", "x")),
    idents: fc.constantFrom("identifiers", "identities"),
    extra: fc.constantFrom("", "<ext a='1'>x</ext>", '<row2 a="1" b="2"/>', "<a b='1' b='2'/>", " "),
  })
  .map(
    (r) =>
      `<record><row><source_ip>${r.ip}</source_ip><count>${r.count}</count><policy_evaluated><disposition>${r.disp}</disposition><dkim>pass</dkim><spf>fail</spf>${
        r.reason ? `<reason><type>${r.reason}</type><comment>c</comment></reason>` : ""
      }</policy_evaluated></row><${r.idents}><header_from>${r.from}</header_from></${r.idents}>${r.extra}<auth_results><${r.dkimName}><domain>${r.from}</domain>${
        r.sel === null ? "" : `<selector>${r.sel}</selector>`
      }<result>${r.res}</result></${r.dkimName}><spf><domain>x.example</domain><scope>mfrom</scope><result>${r.res}</result></spf></auth_results></record>`,
  );

const doc = fc
  .record({
    decl: fc.constantFrom(
      '<?xml version="1.0" encoding="UTF-8"?>',
      "<?xml version='1.0'?>",
      "",
      '<?xml version="1.1"?>',
      '<?xml version="1.0" standalone="yes" ?>',
      '<?xml version="2.0"?>',
      '<?xml encoding="UTF-8"?>',
      '<?XML version="1.0"?>',
      "<!-- lead -->",
    ),
    root: fc.constantFrom(
      "<feedback>",
      '<feedback xmlns="urn:ietf:params:xml:ns:dmarc-2.0">',
      '<d:feedback xmlns:d="urn:ietf:params:xml:ns:dmarc-2.0 ">',
      '<feedback xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xmlns:xsd="http://www.w3.org/2001/XMLSchema">',
      "<report>",
      "<feedback a=1>",
    ),
    org: text,
    reportId: fc.oneof(fc.constantFrom("r-1", "", " 17000064001234567890 "), text),
    begin: fc.constantFrom("1700000000", " 1700000000 ", "2023-11-15T00:00:00Z", "1700000000000", "x", "5"),
    end: fc.constantFrom("1700086399", "1700172799", "1699999999", "1702000000"),
    policy: fc.constantFrom(
      "<domain>example.com</domain><p>none</p><pct>100</pct>",
      "<domain>Example.COM.</domain><p>Reject</p><np>reject</np><testing>n</testing>",
      "<p>none</p>",
      "<domain>example.com</domain><discovery_method>treewalk</discovery_method>",
    ),
    extraMeta: fc.constantFrom("", "<generator>g</generator>", "<error>one</error><error> </error>", "<version>2.0</version>"),
    records: fc.array(record, { maxLength: 4 }),
    tail: fc.constantFrom("", "\n", "<!-- end -->", "<?pi x?>", "junk", "<feedback/>", "</x>"),
    closer: fc.constantFrom("</feedback>", "</feedback >", "</Feedback>", ""),
  })
  .map((d) => {
    const close = d.root.startsWith("<d:") ? d.closer.replace("</", "</d:") : d.closer;
    return `${d.decl}\n${d.root}<report_metadata><org_name>${d.org}</org_name><report_id>${d.reportId}</report_id><date_range><begin>${d.begin}</begin><end>${d.end}</end></date_range>${d.extraMeta}</report_metadata><policy_published>${d.policy}</policy_published>${d.records.join("\n")}${close}${d.tail}`;
  });

describe("byte scanner ≡ saxes-based parser (differential)", () => {
  it("generated reports, whole and in small chunks", async () => {
    await fc.assert(
      fc.asyncProperty(doc, fc.constantFrom(0, 1, 7, 64), async (xml, chunk) => {
        const [mine, ref] = await both(enc(xml), chunk);
        expect(mine).toEqual(ref);
      }),
      { numRuns: 600 },
    );
  }, 120_000);

  it("generated reports with hostile edits (DTDs, bad bytes, caps, depth)", async () => {
    const edit = fc.constantFrom(
      (x: string) => x.replace("<report_metadata>", '<!DOCTYPE feedback [<!ENTITY x "y">]><report_metadata>'),
      (x: string) => x.replace("<report_metadata>", "<report_metadata><!-- <!entity -->"),
      (x: string) => x.replace("</org_name>", `${"&#65;".repeat(300)}</org_name>`),
      (x: string) => x.replace("<report_metadata>", `<report_metadata>${" ".repeat(70_000)}`),
      (x: string) => x.replace("<report_metadata>", `<report_metadata><!--${"x".repeat(70_000)}-->`),
      (x: string) => x.replace("<report_metadata>", `<report_metadata a="${"v".repeat(9_000)}">`),
      (x: string) => x.replace("<report_metadata>", `<report_metadata>${"<a>".repeat(40)}${"</a>".repeat(40)}`),
      (x: string) => x.replace("<org_name>", "<org_name><![CDATA[x]]>"),
      (x: string) => x,
    );
    const bytes = fc.constantFrom(
      (b: Uint8Array) => b,
      (b: Uint8Array) => Uint8Array.from([0xef, 0xbb, 0xbf, ...b]),
      (b: Uint8Array) => {
        const c = b.slice();
        c[Math.floor(c.length / 2)] = 0xc3;
        return c;
      },
      (b: Uint8Array) => Uint8Array.from([...b, 0xe2, 0x82]),
    );
    await fc.assert(
      fc.asyncProperty(doc, edit, bytes, fc.constantFrom(0, 13, 4096), async (xml, e, b, chunk) => {
        const [mine, ref] = await both(b(enc(e(xml))), chunk);
        expect(mine).toEqual(ref);
      }),
      { numRuns: 300 },
    );
  }, 120_000);

  it("UTF-16 with a byte order mark, ISO-8859-1 and gzip give the same answers", async () => {
    await fc.assert(
      fc.asyncProperty(doc, async (xml) => {
        const latin = Uint8Array.from([...xml.replace('encoding="UTF-8"', 'encoding="ISO-8859-1"')].map((c) => c.charCodeAt(0) & 0xff));
        const u16 = new Uint8Array(2 + xml.length * 2);
        u16.set([0xff, 0xfe]);
        for (let i = 0; i < xml.length; i++) {
          u16[2 + 2 * i] = xml.charCodeAt(i) & 0xff;
          u16[3 + 2 * i] = xml.charCodeAt(i) >> 8;
        }
        for (const input of [latin, u16, gzipSync(enc(xml))]) {
          const [mine, ref] = await both(input, 0);
          expect(mine).toEqual(ref);
        }
      }),
      { numRuns: 150 },
    );
  }, 120_000);
});
