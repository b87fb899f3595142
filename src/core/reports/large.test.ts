// A generated 100,000-record report parsed streaming (never materialised), asserting totals and throughput. Pure, no I/O.
import { gzipSync } from "fflate";
import { describe, expect, it } from "vitest";
import { parseReport } from "./index";
import { generatedMessages, generatedReport } from "./test-fixtures";

describe("large reports", () => {
  it("parses a 100,000-record report streaming with exact totals", async () => {
    const n = 100_000;
    const { stream, bytes } = generatedReport(n);
    const t0 = Date.now();
    const r = await parseReport(stream);
    const ms = Date.now() - t0;
    if (!r.ok) throw new Error(r.error.message);
    expect(r.value.totals).toEqual({ records: n, messages: generatedMessages(n), overflowRecords: 0, overflowMessages: 0 });
    expect(r.value.rows.reduce((a, x) => a + x.messages, 0)).toBe(generatedMessages(n));
    expect(r.value.selectors.map((s) => s.selector).sort()).toEqual(["s0", "s1", "s2"]);
    const mb = bytes() / 1e6;
    console.log(`100k records: ${mb.toFixed(1)} MB of XML in ${ms} ms = ${(mb / (ms / 1000)).toFixed(1)} MB/s (incl. generation)`);
  }, 120_000);

  it("parses a gzipped 20,000-record report", async () => {
    const n = 20_000;
    const { stream } = generatedReport(n);
    const raw = new Uint8Array(await new Response(stream).arrayBuffer());
    const gz = gzipSync(raw);
    const t0 = Date.now();
    const r = await parseReport(gz);
    const ms = Date.now() - t0;
    if (!r.ok) throw new Error(r.error.message);
    expect(r.value.totals.messages).toBe(generatedMessages(n));
    console.log(`20k records gzipped: ${(raw.length / 1e6).toFixed(1)} MB XML (${(gz.length / 1e6).toFixed(2)} MB gz) in ${ms} ms`);
  }, 60_000);
});
