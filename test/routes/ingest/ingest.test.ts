import { and, eq } from "drizzle-orm";
import { gzipSync, zipSync } from "fflate";
import { describe, expect, it } from "vitest";
import { alerts, dkimSelectors } from "../../../src/db/schema";
import { json, makeTeam } from "../../support/api";
import { base64, day0, db, enc, makeDomain, objectRows, post, postJson, reportXml, signature, stored } from "../../support/reports";
import { installDohStub } from "../../support/doh-stub";
import { dkimRecord } from "../../support/monitoring";
import { outboxAndLogEvents } from "../../support/webhooks";

type Ingested = { data: { report_id: string; domain: string; records: number; duplicate: boolean } };

describe("POST /api/webhooks/dmarc: report shapes", () => {
  it("ingests Google, Microsoft, Yahoo and RFC 9990-shaped reports with exact totals", async () => {
    const team = await makeTeam();
    const cases = [
      {
        style: "google" as const,
        org: "google.com",
        records: [
          { ip: "209.85.220.41", count: 12 },
          { ip: "203.0.113.9", count: 2, dkim: "fail", spf: "fail", sigs: [{ d: "spoof.test", s: "x", r: "fail" }] },
        ],
      },
      { style: "microsoft" as const, org: "Enterprise Outlook", records: [{ ip: "2a01:111:f400:7e8b::20c", count: 5, envTo: "outlook.com" }] },
      { style: "yahoo" as const, org: "Yahoo", records: [{ ip: "192.0.2.7", count: 4, dkim: "fail", spf: "fail", disposition: "quarantine" }] },
      {
        style: "rfc9990" as const,
        org: "Sample Reporter",
        records: [
          {
            ip: "192.0.2.10",
            count: 9,
            sigs: [
              { d: "x", s: "sel-2024", r: "fail" },
              { d: "esp.test", s: "k1", r: "pass" },
            ],
          },
        ],
      },
    ];
    for (const c of cases) {
      const d = await makeDomain(team.id);
      const xml = reportXml({ domain: d.name, org: c.org, style: c.style, begin: day0(2), end: day0(1) - 1, records: c.records });
      const res = await post(xml);
      expect(res.status, c.style).toBe(202);
      const body = await json<Ingested>(res);
      expect(body.data).toMatchObject({ domain: d.name, records: c.records.length, duplicate: false });
      const s = await stored(d.id);
      expect(s.reports).toHaveLength(1);
      expect(s.reports[0]).toMatchObject({ status: "complete", orgName: c.org, records: c.records.length, version: c.style === "rfc9990" ? "2.0" : "1.0" });
      expect(s.messages).toBe(c.records.reduce((n, r) => n + r.count, 0));
    }
  });

  it("stores aligned flags from policy_evaluated and spreads a multi-day report over its days", async () => {
    const team = await makeTeam();
    const d = await makeDomain(team.id);
    // Three whole UTC days; 30 messages from one source split 10/10/10, 3 failing split 1/1/1.
    const xml = reportXml({
      domain: d.name,
      begin: day0(5),
      end: day0(2) - 1,
      records: [
        { ip: "198.51.100.1", count: 30 },
        { ip: "198.51.100.2", count: 3, dkim: "fail", spf: "fail", sigs: [{ d: d.name, s: "s1", r: "fail" }], spfRes: { d: "other.test", r: "pass" } },
      ],
    });
    expect((await post(xml)).status).toBe(202);
    const rows = {
      results: await objectRows(d.id, "SELECT day, source_ip, messages, dkim_aligned, spf_aligned, spf_result FROM rows ORDER BY source_ip, day"),
    };
    const days = [5, 4, 3].map((n) => new Date(day0(n) * 1000).toISOString().slice(0, 10));
    expect(rows.results).toEqual([
      ...days.map((day) => ({ day, source_ip: "198.51.100.1", messages: 10, dkim_aligned: 1, spf_aligned: 1, spf_result: "pass" })),
      ...days.map((day) => ({ day, source_ip: "198.51.100.2", messages: 1, dkim_aligned: 0, spf_aligned: 0, spf_result: "pass" })),
    ]);
  });

  it("accepts gzip, zip and the JSON form (base64, with and without recipient)", async () => {
    const team = await makeTeam();
    const d = await makeDomain(team.id);
    const mk = (count: number) => enc(reportXml({ domain: d.name, begin: day0(1), end: day0(0) - 1, records: [{ ip: "192.0.2.1", count }] }));
    expect((await post(gzipSync(mk(1)), { contentType: "application/gzip" })).status).toBe(202);
    expect((await post(zipSync({ "google.com!x!1!2.xml": mk(2) }), { contentType: "application/zip" })).status).toBe(202);
    expect((await postJson({ recipient: d.address, filename: "r.xml.gz", content_base64: base64(gzipSync(mk(4))) })).status).toBe(202);
    expect((await postJson({ filename: "r.xml", content_base64: base64(mk(8)) })).status).toBe(202);
    const s = await stored(d.id);
    expect(s.reports).toHaveLength(4);
    expect(s.messages).toBe(15);
  });

  it("emits dmarc.report.received in the completing batch and learns only DKIM selectors of the domain whose key DNS confirms", async () => {
    const team = await makeTeam();
    const d = await makeDomain(team.id);
    const key = await dkimRecord(d.name);
    const stub = installDohStub({ [`sel2024._domainkey.${d.name}`]: { TXT: [key.record] } });
    const xml = reportXml({
      domain: d.name,
      org: "Yahoo",
      reportId: "evt-1",
      begin: day0(1),
      end: day0(0) - 1,
      records: [
        {
          ip: "192.0.2.1",
          count: 6,
          sigs: [
            { d: d.name, s: "Sel2024", r: "pass" },
            { d: "esp.test", s: "esp1", r: "pass" },
            { d: d.name, s: "forged", r: "fail" },
          ],
        },
        { ip: "192.0.2.2", count: 1, sigs: [{ d: `mail.${d.name}`, s: "sub", r: "pass" }] },
      ],
    });
    expect((await post(xml)).status).toBe(202);
    stub.restore();
    const ev = (await outboxAndLogEvents({ domainId: d.id })).filter((e) => e.type === "dmarc.report.received");
    expect(ev).toHaveLength(1);
    expect(ev[0]?.payload).toMatchObject({
      type: "dmarc.report.received",
      data: {
        domain: { id: d.id, name: d.name },
        report: { org_name: "Yahoo", report_id: "evt-1", messages: 7, records: 2, begin: new Date(day0(1) * 1000).toISOString() },
      },
    });
    const sels = await db.select().from(dkimSelectors).where(eq(dkimSelectors.domainId, d.id));
    expect(sels.map((s) => [s.selector, s.source, s.status])).toEqual([["sel2024", "dmarc", "pending"]]);
    expect(sels[0]?.lastReportAt?.getTime()).toBe((day0(0) - 1) * 1000);
  });

  it("learns at most 20 selectors per domain from reports, whatever a report lists", async () => {
    const team = await makeTeam();
    const d = await makeDomain(team.id);
    const key = await dkimRecord(d.name);
    const names = Array.from({ length: 30 }, (_, i) => `s${i}`);
    const stub = installDohStub(Object.fromEntries(names.map((n) => [`${n}._domainkey.${d.name}`, { TXT: [key.record] }])));
    for (let r = 0; r < 6; r++) {
      const sigs = names.slice(r * 5, r * 5 + 5).map((s) => ({ d: d.name, s, r: "pass" }));
      expect(
        (await post(reportXml({ domain: d.name, org: `org${r}.example`, begin: day0(1), end: day0(0) - 1, records: [{ ip: "192.0.2.1", count: 1, sigs }] })))
          .status,
      ).toBe(202);
    }
    stub.restore();
    const learned = await db
      .select()
      .from(dkimSelectors)
      .where(and(eq(dkimSelectors.domainId, d.id), eq(dkimSelectors.source, "dmarc")));
    expect(learned).toHaveLength(20);
  });
});

describe("POST /api/webhooks/dmarc: signature and routing", () => {
  it("401 for a missing, malformed or wrong signature; nothing stored", async () => {
    const team = await makeTeam();
    const d = await makeDomain(team.id);
    const xml = enc(reportXml({ domain: d.name, begin: day0(1), end: day0(0) - 1, records: [{ ip: "192.0.2.1", count: 1 }] }));
    expect((await post(xml, { signature: null })).status).toBe(401);
    expect((await post(xml, { signature: "sha256=xyz" })).status).toBe(401);
    expect((await post(xml, { signature: await signature(xml, "another-secret") })).status).toBe(401);
    expect((await post(xml, { signature: await signature(enc("other body")) })).status).toBe(401);
    const bad = await post(xml, { signature: (await signature(xml)).replace("sha256=", "sha1=") });
    expect(bad.status).toBe(401);
    expect(await json(bad)).toMatchObject({ code: "unauthenticated" });
    expect((await stored(d.id)).reports).toHaveLength(0);
    const ok = await post(xml, { signature: (await signature(xml)).toUpperCase().replace("SHA256=", "sha256=") });
    expect(ok.status).toBe(202);
  });

  it("routes by recipient; unknown recipient, other report domain, mismatched domain and unknown domain are 422", async () => {
    const team = await makeTeam();
    const d = await makeDomain(team.id);
    const pending = await makeDomain(team.id, { verified: false });
    const xml = reportXml({ domain: d.name, begin: day0(1), end: day0(0) - 1, records: [{ ip: "192.0.2.1", count: 3 }] });
    const content = base64(enc(xml));
    // A pending domain takes no reports, not even through its own report address.
    const toPending = await postJson({
      recipient: pending.address,
      content_base64: base64(enc(reportXml({ domain: pending.name, begin: day0(1), end: day0(0) - 1, records: [{ ip: "192.0.2.1", count: 3 }] }))),
    });
    expect(toPending.status).toBe(422);
    expect(await json(toPending)).toMatchObject({ errors: { body: ["domain_not_verified"] } });
    expect((await postJson({ recipient: `${d.reportToken}@elsewhere.test`, content_base64: content })).status).toBe(422);
    const unknown = await postJson({ recipient: "nobody@reports.test", content_base64: content });
    expect(unknown.status).toBe(422);
    expect(await json(unknown)).toMatchObject({ code: "validation_failed", errors: { body: ["unknown_recipient"] } });
    const other = await makeDomain(team.id);
    const mismatch = await postJson({ recipient: other.address, content_base64: content });
    expect(await json(mismatch)).toMatchObject({ errors: { body: ["domain_mismatch"] } });
    const res = await postJson({ recipient: d.address.toUpperCase(), content_base64: content });
    expect(res.status).toBe(202);
    expect((await json<Ingested>(res)).data.domain).toBe(d.name);
    expect((await stored(d.id)).messages).toBe(3);
    expect((await stored(other.id)).reports).toHaveLength(0);
  });

  it("without a recipient, ingests into every verified domain of that name (one per team)", async () => {
    const [a, b, c] = [await makeTeam(), await makeTeam(), await makeTeam()];
    const da = await makeDomain(a.id);
    const db2 = await makeDomain(b.id, { name: da.name });
    const dc = await makeDomain(c.id, { name: da.name, verified: false });
    const xml = reportXml({ domain: da.name, begin: day0(1), end: day0(0) - 1, records: [{ ip: "192.0.2.1", count: 5 }] });
    expect((await post(xml)).status).toBe(202);
    expect((await stored(da.id)).messages).toBe(5);
    expect((await stored(db2.id)).messages).toBe(5);
    expect((await stored(dc.id)).reports).toHaveLength(0);
  });

  it("a duplicate (same reporter and report id) is 200 duplicate:true and counts nothing twice", async () => {
    const team = await makeTeam();
    const d = await makeDomain(team.id);
    const xml = reportXml({ domain: d.name, reportId: "dup-1", begin: day0(3), end: day0(1) - 1, records: [{ ip: "192.0.2.1", count: 7 }] });
    expect((await post(xml)).status).toBe(202);
    const before = await stored(d.id);
    const again = await post(gzipSync(enc(xml)));
    expect(again.status).toBe(200);
    expect((await json<Ingested>(again)).data).toMatchObject({ report_id: "dup-1", duplicate: true });
    const after = await stored(d.id);
    expect(after.rows).toBe(before.rows);
    expect(after.messages).toBe(7);
    const ev = (await outboxAndLogEvents({ domainId: d.id })).filter((e) => e.type === "dmarc.report.received");
    expect(ev).toHaveLength(1);
    // Another reporter with the same report id is a different report.
    expect((await post(xml.replace("google.com</org_name>", "Yahoo</org_name>"))).status).toBe(202);
  });
});

describe("failure spike alert", () => {
  it("raises dmarc_failure_spike when a report fails far above the 14-day baseline", async () => {
    const team = await makeTeam();
    const d = await makeDomain(team.id);
    // Baseline: 5 days ago, 1,000 messages with 2% failing.
    await post(
      reportXml({
        domain: d.name,
        begin: day0(5),
        end: day0(4) - 1,
        records: [
          { ip: "192.0.2.1", count: 980 },
          { ip: "192.0.2.9", count: 20, dkim: "fail", spf: "fail" },
        ],
      }),
    );
    // Small report with every message failing: under 100 messages, no alert.
    await post(reportXml({ domain: d.name, begin: day0(2), end: day0(1) - 1, records: [{ ip: "203.0.113.1", count: 50, dkim: "fail", spf: "fail" }] }));
    // (The new addresses failing DMARC raise new_sender alerts: docs/decisions.md D103; only the spike is looked at here.)
    const spikes = () =>
      db
        .select()
        .from(alerts)
        .where(and(eq(alerts.domainId, d.id), eq(alerts.kind, "dmarc_failure_spike")));
    expect(await spikes()).toHaveLength(0);
    // 40% failing of 200: ≥ 3x 2% and ≥ 10 points above it.
    await post(
      reportXml({
        domain: d.name,
        begin: day0(1),
        end: day0(0) - 1,
        records: [
          { ip: "192.0.2.1", count: 120 },
          { ip: "203.0.113.1", count: 80, dkim: "fail", spf: "fail" },
        ],
      }),
    );
    const open = await spikes();
    expect(open).toHaveLength(1);
    expect(open[0]).toMatchObject({ kind: "dmarc_failure_spike", subject: "dmarc:failures", occurrences: 1, resolvedAt: null });
    const created = (await outboxAndLogEvents({ domainId: d.id }))
      .filter((e) => e.type === "alert.created")
      .filter((e) => (e.payload as { data: { alert: { kind: string } } }).data.alert.kind === "dmarc_failure_spike");
    expect(created).toHaveLength(1);
  });

  it("a report about days more than 17 days ago is history: no spike however far above its baseline (docs/decisions.md D137)", async () => {
    const team = await makeTeam();
    /** A domain with a 2%-failing baseline `baselineAgo` days ago, then a 60%-failing report `reportAgo` days ago: its spike alerts. */
    const spikesFor = async (baselineAgo: number, reportAgo: number) => {
      const d = await makeDomain(team.id);
      for (const [daysAgo, failing] of [
        [baselineAgo, 20],
        [reportAgo, 600],
      ] as const) {
        const res = await post(
          reportXml({
            domain: d.name,
            begin: day0(daysAgo),
            end: day0(daysAgo - 1) - 1,
            records: [
              { ip: "192.0.2.1", count: 1000 - failing },
              { ip: "192.0.2.9", count: failing, dkim: "fail", spf: "fail" },
            ],
          }),
        );
        expect(res.status).toBe(202);
      }
      return db
        .select()
        .from(alerts)
        .where(and(eq(alerts.domainId, d.id), eq(alerts.kind, "dmarc_failure_spike")));
    };
    expect(await spikesFor(22, 18), "18 days ago: stored, not judged").toHaveLength(0);
    expect(await spikesFor(21, 17), "17 days ago: judged against days 31 to 18").toHaveLength(1);
  });
});
