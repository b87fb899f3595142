// Rows travel to D1 as one JSON parameter per INSERT ... SELECT FROM json_each(?): a few bound
// parameters per statement (D1 allows 100) and each parameter well under D1's 2 MB value cap.
// Shared by every store that writes many rows of a report (DMARC rows, TLS-RPT policies and failures). No I/O.
import { sql } from "drizzle-orm";

const CHUNK_JSON_BYTES = 192 * 1024;

/** Yields the tuples as JSON arrays of at most about 192 KB, lazily, so only one chunk is built at a time. */
export function* jsonChunks(tuples: Iterable<unknown[]>): Generator<string> {
  let parts: string[] = [];
  let size = 0;
  for (const t of tuples) {
    const j = JSON.stringify(t);
    if (size + j.length > CHUNK_JSON_BYTES && parts.length > 0) {
      yield `[${parts.join(",")}]`;
      parts = [];
      size = 0;
    }
    parts.push(j);
    size += j.length + 1;
  }
  if (parts.length > 0) yield `[${parts.join(",")}]`;
}

/** Column i of the current json_each row. */
export const jsonCol = (i: number) => sql.raw(`json_extract(value, '$[${i}]')`);
