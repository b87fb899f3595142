// Tells the report kinds apart in a parsed report mail (docs/decisions.md D101): SMTP TLS reports by
// their RFC 8460 §5.3 media type or file name, everything else goes to the DMARC aggregate path. No I/O.
import type { Attachment } from "postal-mime";

const TLS_TYPE = /^application\/tlsrpt\+(gzip|json)$/i;
// RFC 8460 §5.3 file name: sender!policy-domain!begin!end[!unique-id].json[.gz]
const TLS_NAME = /![^!]*!\d+!\d+(![^!]*)?\.json(\.gz)?$/i;

const bytesOf = (content: Attachment["content"]): Uint8Array =>
  typeof content === "string" ? new TextEncoder().encode(content) : content instanceof Uint8Array ? content : new Uint8Array(content);

/** The TLS report attachment, or null when the mail carries none. */
export function tlsReportPart(email: { attachments: Attachment[] }): Uint8Array | null {
  const pick = email.attachments.find((a) => TLS_TYPE.test(a.mimeType)) ?? email.attachments.find((a) => TLS_NAME.test(a.filename ?? ""));
  return pick ? bytesOf(pick.content) : null;
}
