// Test-only fixture builders: realistic reporter styles and streams of generated records. Pure, no I/O.

export const enc = (s: string): Uint8Array => new TextEncoder().encode(s);
export const BEGIN = Date.UTC(2023, 10, 15) / 1000; // 2023-11-15T00:00:00Z

export interface RecordSpec {
  ip: string;
  count: number;
  disposition?: string;
  dkim?: string;
  spf?: string;
  from?: string;
  envFrom?: string;
  reason?: string;
  sigs?: Array<{ d: string; s?: string; r: string }>;
  spfRes?: { d: string; r: string; scope?: string };
}

export function record(r: RecordSpec): string {
  const sigs = (r.sigs ?? [{ d: "example.com", s: "s1", r: "pass" }])
    .map((s) => `<dkim><domain>${s.d}</domain>${s.s ? `<selector>${s.s}</selector>` : ""}<result>${s.r}</result></dkim>`)
    .join("");
  const spf = r.spfRes ?? { d: "example.com", r: "pass", scope: "mfrom" };
  return `
  <record>
    <row>
      <source_ip>${r.ip}</source_ip>
      <count>${r.count}</count>
      <policy_evaluated>
        <disposition>${r.disposition ?? "none"}</disposition>
        <dkim>${r.dkim ?? "pass"}</dkim>
        <spf>${r.spf ?? "pass"}</spf>${r.reason ? `<reason><type>${r.reason}</type><comment></comment></reason>` : ""}
      </policy_evaluated>
    </row>
    <identifiers>${r.envFrom ? `<envelope_from>${r.envFrom}</envelope_from>` : ""}<header_from>${r.from ?? "example.com"}</header_from></identifiers>
    <auth_results>${sigs}<spf><domain>${spf.d}</domain>${spf.scope ? `<scope>${spf.scope}</scope>` : ""}<result>${spf.r}</result></spf></auth_results>
  </record>`;
}

export interface ReportSpec {
  root?: string; // the opening <feedback ...> tag
  org?: string;
  reportId?: string;
  begin?: string | number;
  end?: string | number;
  policy?: string;
  extraMeta?: string;
  records?: RecordSpec[];
}

export function report(s: ReportSpec = {}): string {
  const begin = s.begin ?? BEGIN;
  const end = s.end ?? BEGIN + 86_399;
  return `<?xml version="1.0" encoding="UTF-8" ?>
${s.root ?? "<feedback>"}
  <report_metadata>
    <org_name>${s.org ?? "google.com"}</org_name>
    <email>noreply-dmarc-support@google.com</email>
    <extra_contact_info>https://support.google.com/a/answer/2466580</extra_contact_info>
    <report_id>${s.reportId ?? "17000064001234567890"}</report_id>
    <date_range><begin>${begin}</begin><end>${end}</end></date_range>${s.extraMeta ?? ""}
  </report_metadata>
  <policy_published>${s.policy ?? "<domain>example.com</domain><adkim>r</adkim><aspf>r</aspf><p>none</p><sp>none</sp><pct>100</pct>"}</policy_published>
${(s.records ?? [{ ip: "209.85.220.41", count: 3 }]).map(record).join("")}
</feedback>
`;
}

/** Google: no namespace, epoch dates ending at 23:59:59, one DKIM signature per record. */
export const google = (): string =>
  report({
    records: [
      { ip: "209.85.220.41", count: 12, sigs: [{ d: "example.com", s: "google", r: "pass" }] },
      {
        ip: "203.0.113.9",
        count: 2,
        disposition: "none",
        dkim: "fail",
        spf: "fail",
        sigs: [{ d: "spoof.test", s: "x", r: "fail" }],
        spfRes: { d: "spoof.test", r: "softfail", scope: "mfrom" },
      },
    ],
  });

/** outlook.com: xsd/xsi declarations but no DMARC namespace, <version>, envelope_to, dates with whitespace. */
export const microsoft = (): string =>
  report({
    root: `<feedback xmlns:xsd="http://www.w3.org/2001/XMLSchema" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">\n<version>1.0</version>`,
    org: "Enterprise Outlook",
    reportId: "f7d1b6c4e8a94c2c9a0d6a2f0c3e5b11",
    begin: `\n      ${BEGIN}\n    `,
    end: ` ${BEGIN + 86_400} `,
    policy: "<domain>Example.COM.</domain><adkim>r</adkim><aspf>r</aspf><p>reject</p><sp>reject</sp><pct>100</pct><fo>0</fo>",
    records: [{ ip: "2a01:111:f400:7e8b::20C", count: 5, envFrom: "example.com", sigs: [{ d: "example.com", s: "selector1", r: "pass" }] }],
  }).replace("<identifiers>", "<identifiers><envelope_to>outlook.com</envelope_to>");

/** Yahoo: capitalised results, an override reason, report ids with dots, no extra_contact_info. */
export const yahoo = (): string =>
  report({
    org: "Yahoo",
    reportId: "1700006400.846211",
    policy: "<domain>example.com</domain><adkim>r</adkim><aspf>r</aspf><p>quarantine</p><pct>100</pct>",
    records: [
      {
        ip: "192.0.2.7",
        count: 4,
        disposition: "None",
        dkim: "FAIL",
        spf: "Fail",
        reason: "Forwarded",
        sigs: [{ d: "example.com", s: "s2048", r: "Fail" }],
        spfRes: { d: "list.example.org", r: "SoftFail" },
      },
    ],
  }).replace(/\s*<extra_contact_info>.*<\/extra_contact_info>/, "");

/** RFC 9990: dmarc-2.0 namespace, generator, np, testing, discovery_method, policy_test_mode. */
export const rfc9990 = (): string =>
  report({
    root: `<feedback xmlns="urn:ietf:params:xml:ns:dmarc-2.0">\n<version>1.0</version>`,
    org: "Sample Reporter",
    extraMeta: "<generator>Example DMARC 2.1</generator><error>one</error>",
    policy:
      "<domain>example.com</domain><discovery_method>treewalk</discovery_method><adkim>s</adkim><aspf>r</aspf><p>reject</p><sp>quarantine</sp><np>reject</np><testing>y</testing><fo>1</fo>",
    records: [
      {
        ip: "192.0.2.10",
        count: 9,
        disposition: "quarantine",
        dkim: "fail",
        spf: "fail",
        reason: "policy_test_mode",
        sigs: [
          { d: "example.com", s: "sel-2024", r: "fail" },
          { d: "esp.test", s: "k1", r: "pass" },
        ],
      },
    ],
  });

/** A ReadableStream of an n-record report, generated on demand (the report never exists whole). */
export function generatedReport(n: number, batch = 500): { stream: ReadableStream<Uint8Array>; bytes: () => number } {
  const [head, tail] = report({ records: [] }).split("\n</feedback>");
  let i = 0;
  let sent = 0;
  let stage = 0;
  const stream = new ReadableStream<Uint8Array>({
    pull(c) {
      let s: string;
      if (stage === 0) {
        s = head ?? "";
        stage = 1;
      } else if (i < n) {
        const parts: string[] = [];
        for (const stop = Math.min(n, i + batch); i < stop; i++) {
          parts.push(
            record({
              ip: `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`,
              count: (i % 7) + 1,
              sigs: [{ d: "example.com", s: `s${i % 3}`, r: i % 5 === 0 ? "fail" : "pass" }],
            }),
          );
        }
        s = parts.join("");
      } else if (stage === 1) {
        s = `\n</feedback>${tail ?? ""}`;
        stage = 2;
      } else return c.close();
      const b = enc(s);
      sent += b.length;
      c.enqueue(b);
    },
  });
  return { stream, bytes: () => sent };
}

/** Expected message total of generatedReport(n). */
export const generatedMessages = (n: number): number => {
  let t = 0;
  for (let i = 0; i < n; i++) t += (i % 7) + 1;
  return t;
};

/** A stream that delivers `bytes` in pieces of `size` (to cross every boundary). */
export function chunked(bytes: Uint8Array, size: number): ReadableStream<Uint8Array> {
  let at = 0;
  return new ReadableStream<Uint8Array>({
    pull(c) {
      if (at >= bytes.length) return c.close();
      c.enqueue(bytes.slice(at, at + size));
      at += size;
    },
  });
}
