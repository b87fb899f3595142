// The DKIM tag=value grammar shared by signatures and key records (RFC 6376 §3.2), read by the one
// tag-list reader. No I/O.
import { DKIM_TAG_NAME, describeIssue, readTagList, type TagGrammar } from "../records/tag-list";
import { err, ok, type Result } from "../types";

/**
 * tag-list = tag-spec *( ";" tag-spec ) [ ";" ]; tag-spec = [FWS] tag-name [FWS] "=" [FWS] tag-value [FWS].
 * Tag names are case-sensitive; duplicates invalidate the list (§3.2: "Tags with duplicate names MUST
 * NOT occur within a single tag-list; if a tag name does occur more than once, the entire tag-list is
 * invalid."); unknown tags are ignored ("Unrecognized tags MUST be ignored"). Values are checked by
 * the signature and key-record readers.
 */
export const DKIM_TAG_LIST: TagGrammar = {
  record: "DKIM tag list",
  section: "RFC 6376 §3.2",
  name: DKIM_TAG_NAME,
  caseSensitive: true,
  spaceAroundEquals: true,
  duplicate: "record",
  malformed: "record",
  emptySpec: "trailing-only",
  tags: {},
};

/** Tag names in order of appearance, values unfolded and trimmed (internal whitespace kept). */
export function parseTagList(input: string): Result<Map<string, string>> {
  const read = readTagList(input, DKIM_TAG_LIST);
  return read.ok ? ok(read.value.tags) : err(describeIssue(read.error));
}

/** Remove all FWS, for base64 values (b=, bh=, p=) which may be folded anywhere (§3.5). */
export const stripFws = (v: string): string => v.replace(/[ \t\r\n]+/g, "");
