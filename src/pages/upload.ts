// The report upload form's body: read through the one capped reader with the ingestion cap plus room
// for the multipart envelope, then parsed as FormData; the file itself is held to the cap (413).
import type { Context } from "hono";
import type { AppEnv } from "../context";
import { readBodyCapped } from "../lib/body";
import { badRequest, payloadTooLarge, validationFailed } from "../lib/errors";
import { UPLOAD_MAX_REPORT_BYTES } from "../services/dmarc/upload";
import { checkCsrf } from "./guard";

/** Room for the boundaries, the part headers and the CSRF field around the file. */
const ENVELOPE_BYTES = 64 * 1024;

export async function readReportUpload(c: Context<AppEnv>): Promise<Uint8Array> {
  const type = c.req.header("content-type") ?? "";
  if (!/^multipart\/form-data\s*;/i.test(type)) throw badRequest("Send the report with the upload form (multipart/form-data).");
  const bytes = await readBodyCapped(c.req.raw, UPLOAD_MAX_REPORT_BYTES + ENVELOPE_BYTES);
  let form: FormData;
  try {
    form = await new Response(bytes, { headers: { "content-type": type } }).formData();
  } catch {
    throw badRequest("The upload form could not be read.");
  }
  const csrf = form.get("_csrf");
  checkCsrf(c, typeof csrf === "string" ? csrf : null);
  const file = form.get("report");
  if (file === null || typeof file === "string" || file.size === 0)
    throw validationFailed({ report: ["choose a report file (XML, gzip or zip)"] }, "Choose a report file to upload.");
  if (file.size > UPLOAD_MAX_REPORT_BYTES) throw payloadTooLarge(`The report must be at most ${UPLOAD_MAX_REPORT_BYTES} bytes.`);
  return new Uint8Array(await file.arrayBuffer());
}
