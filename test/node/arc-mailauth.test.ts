// mailauth (an independent ARC implementation, Node only) on the shared ARC suite's validation
// messages, with a resolver answering the same TXT records as test/arc/arc-suite.test.ts. It
// records where mailauth's lenient and strict modes agree with the suite, so a difference between
// the project's validateArc() and mailauth can be traced to one of them; the project itself must
// give the suite's cv (test/arc/arc-suite.test.ts). Provenance: test/fixtures/arc/README.md.
import { arc } from "mailauth/lib/arc";
import { dkimVerify } from "mailauth/lib/dkim/verify";
import { describe, expect, it } from "vitest";
import suite from "../fixtures/arc/validation-tests.json";

interface SuiteCase {
  name: string;
  message: string;
  cv: string;
}
interface Scenario {
  txt_records: Record<string, string>;
  tests: SuiteCase[];
}
const scenarios = (suite as unknown as { scenarios: Scenario[] }).scenarios;

/** The suite leaves these cv empty; RFC 8617 §5.2 gives fail (docs/decisions.md D201). */
const UNSPECIFIED = new Set(["cv_fail_i1_as_cv_fail", "cv_fail_i2_as2_fail", "cv_fail_i2_as1_fail"]);
const expected = (t: SuiteCase) => (t.cv === "" && UNSPECIFIED.has(t.name) ? "fail" : t.cv.toLowerCase());

/**
 * Where mailauth 7.1.0 answers differently from the suite, per mode, found by this test and kept
 * here so a new mailauth release that changes any of them fails it. Empty means full agreement.
 */
const MAILAUTH_DIFFERS: Record<"lenient" | "strict", Record<string, string>> = {
  lenient: {
    // RFC 6376 §3.5 ABNF: sig-h-tag needs at least one hdr-name; mailauth refuses an empty h= in
    // both modes. The suite (and dkimpy) accept it for an AMS, and so does validateArc (D201).
    ams_fields_h_empty: "suite pass, mailauth fail",
    // Seals whose tag-list breaks RFC 6376 §3.2 (a bad tag name, a duplicate tag, a tag name in the
    // wrong case so a required tag is missing, an empty tag-spec): the signature itself verifies,
    // and lenient mailauth reads the tags loosely; the suite, strict mailauth and validateArc refuse.
    as_format_inv_tag_key: "suite fail, mailauth pass",
    as_format_tags_dup: "suite fail, mailauth pass",
    as_format_tags_key_case: "suite fail, mailauth pass",
    as_format_tags_sc: "suite fail, mailauth pass",
  },
  strict: {
    // Strict mailauth reads a missing c= as simple/simple (RFC 6376 §3.5); the suite, dkimpy and
    // validateArc also try relaxed/relaxed, as ARC signers canonicalize (D201).
    ams_fields_c_na: "suite pass, mailauth fail",
    ams_fields_h_empty: "suite pass, mailauth fail",
  },
};

function resolverFor(records: Record<string, string>) {
  const zone = new Map(Object.entries(records).map(([k, v]) => [k.toLowerCase(), v]));
  return async (name: string, type: string): Promise<string[][]> => {
    const txt = type === "TXT" ? zone.get(name.toLowerCase().replace(/\.$/, "")) : undefined;
    if (txt === undefined) throw Object.assign(new Error(`${name} not found`), { code: "ENOTFOUND" });
    return [[txt]];
  };
}

async function mailauthCv(message: string, records: Record<string, string>, strict: boolean): Promise<string> {
  const resolver = resolverFor(records);
  const verified = await dkimVerify(Buffer.from(message.replace(/\r?\n/g, "\r\n")), { resolver, strict });
  const result = await arc((verified.arc ?? {}) as Parameters<typeof arc>[0], { resolver, strict });
  return result.status.result;
}

describe("mailauth on the shared ARC suite", () => {
  for (const mode of ["lenient", "strict"] as const) {
    it(`${mode} mode: the cases where mailauth differs from the suite are exactly the recorded ones`, async () => {
      const differs: Record<string, string> = {};
      let agreed = 0;
      for (const s of scenarios) {
        for (const t of s.tests) {
          const got = await mailauthCv(t.message, s.txt_records, mode === "strict");
          if (got === expected(t)) agreed++;
          else differs[t.name] = `suite ${expected(t)}, mailauth ${got}`;
        }
      }
      console.log(`mailauth ${mode}: ${agreed} of 171 agree with the suite`, differs);
      expect(differs).toEqual(MAILAUTH_DIFFERS[mode]);
      expect(agreed + Object.keys(differs).length).toBe(171);
    });
  }
});
