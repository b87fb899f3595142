// Generated reports parsed streaming (never materialised), asserting exact totals. Pure, no I/O.
// The 100,000-record case and throughput figures live in bench/dmarc.bench.mjs, not in the suite.
import { gzipSync } from "fflate";
import { describe, expect, it } from "vitest";
import { parseReport } from "./index";
import { generatedMessages, generatedReport } from "./test-fixtures";

describe("large reports", () => {
  it("parses a 30,000-record report streaming with exact totals", async () => {
    const n = 30_000;
    const { stream, bytes } = generatedReport(n);
    const r = await parseReport(stream);
    if (!r.ok) throw new Error(r.error.message);
    expect(r.value.totals).toEqual({ records: n, messages: generatedMessages(n), overflowRecords: 0, overflowMessages: 0 });
    expect(r.value.rows.reduce((a, x) => a + x.messages, 0)).toBe(generatedMessages(n));
    expect(r.value.selectors.map((s) => s.selector).sort()).toEqual(["s0", "s1", "s2"]);
    expect(bytes()).toBeGreaterThan(10_000_000);
  }, 60_000);

  it("parses a gzipped 20,000-record report", async () => {
    const n = 20_000;
    const { stream } = generatedReport(n);
    const raw = new Uint8Array(await new Response(stream).arrayBuffer());
    const gz = gzipSync(raw);
    const r = await parseReport(gz);
    if (!r.ok) throw new Error(r.error.message);
    expect(r.value.totals.messages).toBe(generatedMessages(n));
  }, 60_000);
});
