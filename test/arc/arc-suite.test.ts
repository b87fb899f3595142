// The ARC test suite that ARC implementations share (ValiMail/arc_test_suite, the validation half,
// written alongside the ARC drafts that became RFC 8617) against the project's validateArc().
//
// Data: test/fixtures/arc/validation-tests.json, converted once from
// tests/arc-draft-validation-tests.yml of https://github.com/ValiMail/arc_test_suite (commit
// f137dcb9d6d5baeef1310024ce9ccca94a9a92c8), Copyright 2017 ValiMail Inc., MIT licence
// (test/fixtures/arc/arc-test-suite.LICENSE); provenance in test/fixtures/arc/README.md.
//
// Each scenario's txt-records are served the way the suite's harness (testarc.py, arcdns.py) serves
// them: every listed name answers its one TXT record; any other name does not exist.
import { describe, expect, it } from "vitest";
import { validateArc } from "../../src/core/arc";
import suite from "../fixtures/arc/validation-tests.json";
import { FakeResolver, type Zone } from "../support/fake-resolver";

interface SuiteCase {
  name: string;
  description: string;
  spec?: string;
  message: string;
  cv: string;
}

interface Scenario {
  description: string;
  txt_records: Record<string, string>;
  tests: SuiteCase[];
}

/**
 * The suite's t= values are 1 to 12349 (seconds after 1970), so any present-day clock sees none of
 * them in the future; the suite's last commit date is used so the run never depends on the day.
 */
const NOW = new Date("2018-11-23T00:00:00Z");

/**
 * Cases whose expected cv the suite leaves empty: its harness compares the validator's output with
 * "", which is what dkimpy printed when it returned no cv at all. RFC 8617 §5.2 decides them: the
 * answer is "fail" (docs/decisions.md D201).
 */
const UNSPECIFIED: Record<string, { cv: "fail"; why: string }> = {
  cv_fail_i1_as_cv_fail: {
    cv: "fail",
    why: "the only seal (i=1) says cv=fail: §5.2 step 2 (the newest set's status is fail) and step 3 (i=1 must say none) both give fail",
  },
  cv_fail_i2_as2_fail: { cv: "fail", why: "the newest seal (i=2) says cv=fail: §5.2 step 2 gives fail" },
  cv_fail_i2_as1_fail: { cv: "fail", why: "seal i=1 says cv=fail where §5.2 step 3 requires none: the structure is invalid, fail" },
};

const scenarios = (suite as unknown as { scenarios: Scenario[] }).scenarios;

function resolverFor(records: Record<string, string>): FakeResolver {
  const zone: Zone = {};
  for (const [owner, txt] of Object.entries(records)) zone[owner.toLowerCase().replace(/\.$/, "")] = { TXT: [txt] };
  return new FakeResolver(zone);
}

describe("ARC validation test suite (ValiMail/arc_test_suite)", () => {
  it("holds every case of the suite", () => {
    expect(scenarios).toHaveLength(10);
    expect(scenarios.reduce((n, s) => n + s.tests.length, 0)).toBe(171);
    // Only the documented cases lack an expected cv.
    const empty = scenarios.flatMap((s) => s.tests.filter((t) => t.cv === "").map((t) => t.name));
    expect(empty.sort()).toEqual(Object.keys(UNSPECIFIED).sort());
  });

  for (const scenario of scenarios) {
    describe(scenario.description, () => {
      for (const t of scenario.tests) {
        const expected = t.cv === "" ? (UNSPECIFIED[t.name]?.cv ?? "(unspecified)") : t.cv.toLowerCase();
        it(`${t.name}: ${t.description} → cv=${expected}`, async () => {
          const r = await validateArc(t.message, { resolver: resolverFor(scenario.txt_records), now: NOW });
          expect(r.cv, `${t.name}: ${r.reason ?? ""}`).toBe(expected);
          expect(r.result).toBe(expected);
          if (expected === "fail") expect(r.reason).not.toBeNull();
          if (expected === "pass") expect(r.oldest_pass).not.toBeNull();
        });
      }
    });
  }
});
