// Test-only reference: the saxes-based report parser and aggregator as they were before the byte scanner
// (docs/decisions.md D90), kept as the oracle of the differential test. Never imported by src/.
import { ok, type Result } from "../../../src/core/types";
import { Aggregator, type AggregateOptions } from "./aggregate";
import { decompress, DEFAULT_MAX_XML_BYTES } from "../../../src/core/reports/decompress";
import { ReportParser } from "./saxes-parser";
import type { ParsedReport, ReportError } from "../../../src/core/reports/types";

export interface ParseReportOptions extends AggregateOptions {
  /** Cap on XML bytes after decompression; docs/decisions.md D17 sets 100 MB (→ 413). */
  maxXmlBytes?: number;
  /** Cap on <record> elements (MAX_RECORDS_PER_REPORT unless given). */
  maxRecords?: number;
}

/**
 * Detects the container (detect.ts), decompresses with a cap on real output (decompress.ts),
 * refuses DTDs and parses streaming (parse.ts), and aggregates each record as it is parsed
 * (aggregate.ts): no stage holds the whole report, so a 100,000-record report fits in 128 MB.
 */
export async function referenceParseReport(
  input: Uint8Array | ReadableStream<Uint8Array>,
  opts: ParseReportOptions = {},
): Promise<Result<ParsedReport, ReportError>> {
  const agg = new Aggregator(opts);
  const parser = new ReportParser((r) => agg.add(r), opts.maxRecords);
  const unpacked = await decompress(input, (chunk) => parser.write(chunk), {
    maxXmlBytes: opts.maxXmlBytes ?? DEFAULT_MAX_XML_BYTES,
  });
  if (!unpacked.ok) return unpacked;
  // A parser error stops decompression early (the sink returned false): end() reports its reason.
  const doc = parser.end();
  if (!doc.ok) return doc;
  const { version, metadata, policy } = doc.value;
  const { rows, selectors, totals, warnings } = agg.finish(metadata.begin, metadata.end);
  return ok({ version, metadata, policy, rows, selectors, totals, warnings });
}
