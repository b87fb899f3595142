// The hosted MTA-STS policy against mailauth's MTA-STS code (an independent sender-side implementation,
// Node only): every policy the editor accepts (validatePolicyInput) and the service serves (renderPolicy)
// must parse under mailauth's strict RFC 8461 §3.2 grammar to the same mode, max_age and mx patterns, and
// mailauth's MX matching (§4.1) must cover exactly the hosts our coverage rule covers.
import { parsePolicy, validateMx } from "mailauth/lib/mta-sts";
import { describe, expect, it } from "vitest";
import { renderPolicy, uncoveredMx, validatePolicyInput } from "../../src/core/mta-sts/hosting";

const hosts = ["mx1.example.com", "mx2.example.com", "a.mx.example.net", "example.com", "b.a.example.com", "mx-1.example.org", "MX3.Example.COM."];

describe("hosted policies under mailauth's strict parser", () => {
  const accepted: Array<{ mx: string[]; maxAge: number; live: string[] }> = [
    { mx: ["mx1.example.com", "mx2.example.com"], maxAge: 604_800, live: ["mx1.example.com", "mx2.example.com"] },
    { mx: ["*.example.com"], maxAge: 86_400, live: ["mx1.example.com"] },
    { mx: ["*.mx.example.net", "MX-1.Example.ORG."], maxAge: 31_557_600, live: ["a.mx.example.net", "mx-1.example.org"] },
    { mx: ["mx3.example.com"], maxAge: 1_209_600, live: ["MX3.Example.COM."] },
  ];
  for (const input of accepted) {
    it(`serves ${input.mx.join(", ")} as mailauth reads it, and covers what mailauth covers`, () => {
      const checked = validatePolicyInput(input, input.live);
      expect(checked.ok).toBe(true);
      if (!checked.ok) return;
      for (const mode of ["testing", "enforce", "none"] as const) {
        const text = renderPolicy({ mode, mx: checked.value.mx, maxAge: checked.value.maxAge });
        const theirs = parsePolicy(text, { strict: true });
        expect(theirs).toMatchObject({ version: "STSv1", mode, maxAge: checked.value.maxAge, mx: checked.value.mx });
        if (mode === "none") continue;
        const ours = new Set(uncoveredMx(checked.value.mx, hosts));
        for (const host of hosts) expect(validateMx(host, theirs).valid, `${host} under ${checked.value.mx.join(",")}`).toBe(!ours.has(host));
      }
    });
  }

  it("refuses a pattern that is not an RFC 5321 Domain (an underscore), which mailauth's strict parser refuses", () => {
    const text = renderPolicy({ mode: "enforce", mx: ["mx_1.example.com"], maxAge: 86_400 });
    expect(() => parsePolicy(text, { strict: true })).toThrow(/mx/i);
    const checked = validatePolicyInput({ mx: ["mx_1.example.com"], maxAge: 86_400 }, ["mx_1.example.com"]);
    expect(checked.ok).toBe(false);
    if (!checked.ok) expect(checked.error.mx?.join(" ")).toContain("RFC 5321");
  });
});
