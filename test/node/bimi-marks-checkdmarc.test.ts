// validateMarkCertificate (src/core/bimi/mark) against checkdmarc's own mark-certificate check,
// get_certificate_metadata of checkdmarc/bimi.py, run unchanged in Python (test/peers/checkdmarc/README.md):
// a path to a Mark Verifying Authority root with cryptography's verifier, the dates, the SAN against the
// domain, the subject fields of each mark type, the forbidden extensions and the embedded logo. On the real
// certificates of test/fixtures/bimi-marks and on variants made with openssl (test/node/support/mark-certs.ts).
// Both are asked the same question; every rule both implement must agree, or be named in DIFFERS with why.
import { spawnSync } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type MarkReport, validateMarkCertificate } from "../../src/core/bimi/mark";
import { CertWorkshop, FIXTURE_NOW, FIXTURES, LEAF_SUBJ, leafExt, OTHER_LOGO } from "./support/mark-certs";

const RUN = new URL("../peers/checkdmarc/run.py", import.meta.url).pathname;
const INSTALL = "python3 -m pip install 'cryptography>=50' dnspython requests xmltodict (and Debian's publicsuffix package)";

interface Request {
  pem: string;
  domain: string;
  now: string;
  roots?: string[];
}
interface Checkdmarc {
  valid: boolean;
  validation_errors: string[];
  warnings: string[];
  subject: Record<string, string> | null;
  domains: string[] | null;
  logotype_sha256: string | null;
  /** What cryptography's verifier said, which checkdmarc logs but reports only as "not issued by a recognized MVA". */
  chain_error: string | null;
}

/** One Python process for a batch: cryptography and the Public Suffix List load once. */
function checkdmarc(requests: Request[]): Checkdmarc[] {
  const r = spawnSync("python3", [RUN], { input: JSON.stringify(requests), encoding: "utf8", maxBuffer: 64 * 1024 * 1024 });
  if (r.error !== undefined || r.status !== 0) {
    throw new Error(`checkdmarc's harness (test/peers/checkdmarc/run.py) failed; it needs python3 with: ${INSTALL}.\n${r.error?.message ?? r.stderr}`);
  }
  return JSON.parse(r.stdout) as Checkdmarc[];
}

/** The rules both implement, named by our check ids. */
type Rule = "chain" | "validity" | "san" | "logotype" | "mark-type" | "subject-fields" | "extensions";
const RULES: Rule[] = ["chain", "validity", "san", "logotype", "mark-type", "subject-fields", "extensions"];

const OURS: Record<Rule, string[]> = {
  chain: ["not-self-signed", "chain", "trusted-root"],
  validity: ["validity"],
  san: ["san"],
  logotype: ["logotype"],
  "mark-type": ["mark-type"],
  "subject-fields": ["subject-fields"],
  extensions: ["extensions"],
};

/** checkdmarc 5.17.5's validation_errors, each to the rule it applies; a message not listed fails the test. */
const THEIRS: [RegExp, Rule][] = [
  [/not issued by a recognized Mark Verifying Authority/, "chain"],
  [/is not valid until|expired on/, "validity"],
  [/does not match the certificate domain/, "san"],
  [/required extension: serviceAlternativeName/, "san"],
  [/required extension: logotype/, "logotype"],
  [/forbidden extension|Pilot identifier/, "extensions"],
  [/is not a valid subject markType/, "mark-type"],
  [
    /markType is missing|missing the required field|At least one of|is required in the certificate subject when|certificates, not|must have a priorUseMarkSourceURL/,
    "subject-fields",
  ],
];

const ourRules = (r: MarkReport) =>
  new Set(
    RULES.filter((rule) =>
      // mark-type: checkdmarc's "not a valid subject markType"; a missing markType is a missing subject field.
      rule === "mark-type" && r.subject.markType === undefined ? false : OURS[rule].some((id) => r.checks.find((c) => c.id === id)?.ok !== true),
    ),
  );
function theirRules(a: Checkdmarc): Set<Rule> {
  const out = new Set<Rule>();
  for (const e of a.validation_errors) {
    const rule = THEIRS.find(([re]) => re.test(e))?.[1];
    expect(rule, `a checkdmarc message this test does not map: "${e}"`).toBeDefined();
    if (rule) out.add(rule);
  }
  return out;
}

/**
 * Where checkdmarc and ours differ, by case: the rules (and "valid", the overall verdict) on which they
 * disagree, each with why. The test fails on a difference not listed here and on one listed that did not occur.
 */
const ROOT_ALONE =
  "a root alone: cryptography refuses it for the SAN it lacks, which checkdmarc logs without reporting (it reports the missing SAN instead); we refuse a self-signed certificate";
const OUT_OF_DATES =
  "the intermediate, made with the leaf, is out of its dates too: we refuse the chain as well; checkdmarc reports the leaf's dates and only logs cryptography's refusal";
const UNREPORTED = (what: string) =>
  `cryptography's verifier refuses the path (${what}), but checkdmarc reports a refusal only when the message is "all candidates exhausted with no interior errors"; this one it logs, and calls the certificate valid`;
const DIFFERS: Record<string, Partial<Record<Rule | "valid", string>>> = {
  "cnn.pem": {
    valid:
      "no markType (issued in 2021, before the attribute existed): checkdmarc refuses it; we report the missing field (subject-fields, informational, D261) and honour it as receivers did",
  },
  "redshift.pem": {
    chain: "Entrust's VMC root: checkdmarc's MVACAs.pem no longer has it; roots.ts keeps it until the certificates it issued expire",
    valid: "the Entrust root (above); the missing markType alone would not refuse it here (D261)",
  },
  "digicert.pem": { chain: ROOT_ALONE },
  "entrust_vmc_specific.pem": { chain: ROOT_ALONE },
  "globalsign-root.pem": { chain: ROOT_ALONE },
  "postal_vmc.pem": {
    chain:
      "a self-signed X.509 v1 certificate: cryptography refuses it as not v3, which checkdmarc logs without reporting; we refuse a self-signed certificate",
  },
  "catchall.delivery.pem": {},
  "expired (judged after notAfter)": { chain: OUT_OF_DATES },
  "not yet valid": { chain: OUT_OF_DATES },
  "wrong EKU (a TLS server certificate)": {
    valid:
      "checkdmarc's verifier permits any extended key usage (ExtensionPolicy may_be_present(ExtendedKeyUsage, None)); a receiver requires id-kp-BrandIndicatorforMessageIdentification",
  },
  "a logotype hash that does not match the embedded logo": {
    valid: "checkdmarc hashes the embedded logo but does not compare it with the hash the logotype extension carries (RFC 3709 §4.1)",
  },
  "a chain ending at a self-signed root no BIMI issuer uses": {
    chain: UNREPORTED("chain construction exceeds max depth"),
    valid: "the unreported refusal (above)",
  },
  "issued by a certificate that is not a CA": { chain: UNREPORTED("basicConstraints.cA must be asserted"), valid: "the unreported refusal (above)" },
  "a forged leaf signature": { chain: UNREPORTED("signature does not match"), valid: "the unreported refusal (above)" },
  "a SAN naming the selector's record (default._bimi.brand.example)": {
    san: "checkdmarc matches the domain or its registrable domain only; the VMC guidelines allow <selector>._bimi.<domain> in the SAN (D210)",
    valid: "the SAN rule (above)",
  },
  "no SAN at all": {
    valid: "checkdmarc lists the missing subjectAltName but leaves valid true (it compares names only when there are some)",
  },
  "no logotype extension": {
    valid: "checkdmarc lists the missing logotype extension but leaves valid true; without a logo there is nothing to show",
  },
  "Registered Mark without trademarkIdentifier": { valid: "a subject field the CA left out: informational for us (D261), refused by checkdmarc" },
  "Registered Mark without trademarkCountryOrRegionName": { valid: "a subject field the CA left out: informational for us (D261), refused by checkdmarc" },
  "Government Mark without statuteCitation": { valid: "a subject field the CA left out: informational for us (D261), refused by checkdmarc" },
  "Government Mark with statuteLocalityName and no statuteStateOrProvinceName": {
    valid: "a subject field the CA left out: informational for us (D261), refused by checkdmarc",
  },
  "Registered Mark carrying priorUseMarkSourceURL (a Prior Use Mark field)": {
    valid: "a subject field of another mark type: informational for us (D261), refused by checkdmarc",
  },
  "Prior Use Mark carrying trademarkIdentifier (a Registered Mark field)": {
    valid: "a subject field of another mark type: informational for us (D261), refused by checkdmarc",
  },
  "no markType (the trademark fields still there)": {
    valid: "markType missing: informational for us (D261; read as a VMC from its trademark fields, as mailauth does), refused by checkdmarc",
  },
  "an unknown markType": { valid: "an unknown mark type: informational for us (mark-type cannot tell), refused by checkdmarc" },
  "neither localityName nor stateOrProvinceName": { valid: "a subject field the CA left out: informational for us (D261), refused by checkdmarc" },
  "a critical extension nobody recognises": {
    extensions:
      'RFC 5280 §4.2: an unrecognised critical extension MUST be rejected. cryptography\'s verifier does refuse it ("unaccounted-for critical extensions"), but checkdmarc only logs that refusal',
    valid: "the unreported refusal (above)",
  },
  "jurisdictionLocalityName without jurisdictionStateOrProvinceName": {
    valid: "a subject field the CA left out: informational for us (D261), refused by checkdmarc",
  },
};

async function compare(name: string, theirs: Checkdmarc, ours: MarkReport) {
  const expected = DIFFERS[name] ?? {};
  const mine = ourRules(ours);
  const their = theirRules(theirs);
  const differ: Partial<Record<Rule | "valid", true>> = {};
  for (const rule of RULES) if (mine.has(rule) !== their.has(rule)) differ[rule] = true;
  if (ours.valid !== theirs.valid) differ.valid = true;
  const detail = JSON.stringify({ ours: [...mine], valid: ours.valid, theirs: theirs.validation_errors, theirValid: theirs.valid, chain: theirs.chain_error });
  expect(Object.keys(differ).sort(), `${name}: the differences, against DIFFERS (${detail})`).toEqual(Object.keys(expected).sort());
  // A chain difference where checkdmarc reports nothing: its verifier did refuse, and the log says so.
  if (expected.chain !== undefined && !their.has("chain")) expect(theirs.chain_error, `${name}: cryptography's refusal`).toMatch(/validation failed/);
  // What both read from the certificate: the names it covers, the logo it embeds, the subject.
  // checkdmarc returns the SAN list joined with ". " when it does not match the domain (it reuses the variable).
  const domains = typeof theirs.domains === "string" ? (theirs.domains as string).split(". ") : (theirs.domains ?? []);
  expect(domains.map((d) => d.toLowerCase())).toEqual(ours.sans);
  expect(theirs.logotype_sha256).toBe(ours.embeddedSvgSha256);
  const s = theirs.subject ?? {};
  expect(ours.subject).toEqual(
    Object.fromEntries(
      Object.entries({
        organization: s.organizationName,
        commonName: s.commonName,
        trademarkCountry: s.trademarkCountryOrRegionName,
        trademarkRegistration: s.trademarkIdentifier,
        markType: s.markType,
      }).filter(([, v]) => v !== undefined),
    ),
  );
}

// ---------------------------------------------------------------------------------------------------------

/** The domain each is judged for: the one its SAN names (a name of its own for the roots, which have none). */
const DOMAIN: Record<string, string> = {
  "cnn.pem": "cnn.com",
  "redshift.pem": "redsift.com",
  "paypal_vmc.pem": "paypal.com",
  "xometry_cmc.pem": "xometry.com",
  "globalsign-vmc.pem": "globalsign.com",
  "catchall.delivery.pem": "catchall.delivery",
  "postal_vmc.pem": "postalsys.com",
  "digicert.pem": "digicert.com",
  "entrust_vmc_specific.pem": "entrust.com",
  "globalsign-root.pem": "globalsign.com",
};

describe("real VMC/CMC fixtures: ours and checkdmarc", () => {
  const files = readdirSync(FIXTURES).filter((f) => f.endsWith(".pem"));
  let answers: Checkdmarc[] = [];
  const requests = files.map((f) => ({ pem: readFileSync(join(FIXTURES, f), "utf8"), domain: DOMAIN[f] ?? "none.example", now: FIXTURE_NOW[f] ?? "" }));
  beforeAll(() => {
    answers = checkdmarc(requests);
  });
  it("covers every fixture", () => expect(files.sort()).toEqual(Object.keys(FIXTURE_NOW).sort()));
  files.forEach((file, i) => {
    it(file, async () => {
      const req = requests[i] as Request;
      const ours = await validateMarkCertificate(req.pem, { domain: req.domain, selector: "default", now: new Date(req.now) });
      await compare(file, answers[i] as Checkdmarc, ours);
    });
  });
  it("the Pilot identifier before 2025-03-15 (Xometry's CMC, 2024) is allowed by both", async () => {
    const i = files.indexOf("xometry_cmc.pem");
    expect(answers[i]?.validation_errors).toEqual([]);
    // cryptography refuses its critical Pilot identifier; checkdmarc logs that and goes on (its issue 161).
    expect(answers[i]?.chain_error).toMatch(/1\.3\.6\.1\.4\.1\.53087\.4\.1/);
    const { pem, now } = requests[i] as Request;
    const ours = await validateMarkCertificate(pem, { domain: "xometry.com", selector: "default", now: new Date(now) });
    expect(ours.checks.find((c) => c.id === "extensions")?.ok).toBe(true);
  });
});

// ---------------------------------------------------------------------------------------------------------
// Variants made with openssl, judged now (the generated certificates are valid for a year from now).

const SUBJ = {
  base: "/C=US/ST=California/L=San Jose/street=1 Main St/O=Brand Inc/CN=Brand Inc/businessCategory=Private Organization/serialNumber=1234567/jurisdictionC=US",
  registered: "/markType=Registered Mark/trademarkCountry=US/trademarkRegistration=1234567",
  government: "/markType=Government Mark/statuteCountryName=US/statuteCitation=36 U.S.C. 300101",
};
const PILOT = "1.3.6.1.4.1.53087.4.1 = critical,DER:0C104D61726B204365727469666963617465"; // UTF8String "Mark Certificate", as Xometry's CMC

interface Variant {
  pem: string;
  now: Date;
  domain?: string;
  /** The rules both flag (a rule only one flags is named in DIFFERS); empty: neither flags any. */
  flagged: Rule[];
}

let ws: CertWorkshop;
let trusted: string[] = [];
const variants: Record<string, Variant> = {};
let answers: Record<string, Checkdmarc> = {};

beforeAll(() => {
  ws = new CertWorkshop();
  trusted = ws.testCas();

  const leaf = (name: string, subj: string, ext = leafExt()) => {
    ws.issue(name, "int", subj, ext);
    return ws.bundle(name, "int");
  };
  // Judged ten minutes on: every certificate below is made (notBefore = the time openssl signs it) well within.
  const now = new Date(Date.now() + 10 * 60_000);
  const v = (pem: string, flagged: Rule[], more: Partial<Variant> = {}): Variant => ({ pem, now, flagged, ...more });
  ws.issue("good", "int", LEAF_SUBJ, leafExt());
  ws.issue("ecgood", "ecint", LEAF_SUBJ, leafExt(), "p256");
  ws.issue("rogueleaf", "rogueint", LEAF_SUBJ, leafExt());
  ws.issue("notca", "good", LEAF_SUBJ.replace("Brand Inc", "Sub Brand"), leafExt());
  ws.selfSigned("self", LEAF_SUBJ, leafExt());
  const noLogo = leafExt()
    .split("\n")
    .filter((l) => !l.startsWith("1.3.6.1.5.5.7.1.12"));
  const noSan = leafExt()
    .split("\n")
    .filter((l) => !l.startsWith("subjectAltName"));

  Object.assign(variants, {
    "a good RSA chain": v(ws.bundle("good", "int"), []),
    "a good ECDSA chain (P-256 leaf under a P-384 root)": v(ws.bundle("ecgood", "ecint"), []),
    "the chain with its root included": v(ws.bundle("good", "int", "root"), []),
    "a subdomain of the certified domain": v(ws.bundle("good", "int"), [], { domain: "mail.brand.example" }),
    "wrong EKU (a TLS server certificate)": v(leaf("tls", LEAF_SUBJ, leafExt({ eku: "serverAuth" })), []),
    "expired (judged after notAfter)": v(ws.bundle("good", "int"), ["validity"], { now: new Date(now.getTime() + 400 * 86_400_000) }),
    "not yet valid": v(ws.bundle("good", "int"), ["validity"], { now: new Date(now.getTime() - 2 * 86_400_000) }),
    "a logotype hash that does not match the embedded logo": v(leaf("badhash", LEAF_SUBJ, leafExt({ hashOver: OTHER_LOGO })), []),
    "a SAN for another domain": v(leaf("othersan", LEAF_SUBJ, leafExt({ san: "other.example" })), ["san"]),
    "a SAN for another selector only": v(leaf("selsan", LEAF_SUBJ, leafExt({ san: "news._bimi.brand.example" })), ["san"]),
    "a SAN naming the selector's record (default._bimi.brand.example)": v(leaf("defsan", LEAF_SUBJ, leafExt({ san: "default._bimi.brand.example" })), []),
    "no SAN at all": v(leaf("nosan", LEAF_SUBJ, noSan.join("\n")), ["san"]),
    "no logotype extension": v(leaf("nologo", LEAF_SUBJ, noLogo.join("\n")), ["logotype"]),
    "a self-signed leaf": v(ws.bundle("self"), ["chain"]),
    "a chain ending at a self-signed root no BIMI issuer uses": v(ws.bundle("rogueleaf", "rogueint", "rogue"), []),
    "a chain to an unknown root (root not in the file)": v(ws.bundle("rogueleaf", "rogueint"), ["chain"]),
    "an intermediate missing from the file": v(ws.bundle("good"), ["chain"]),
    "issued by a certificate that is not a CA": v(ws.bundle("notca", "good", "int"), []),
    "a forged leaf signature": v(ws.forged("good") + ws.read("int"), []),
    // The subject fields of the MC Requirements §7.1.4.2.2, one rule at a time.
    "Registered Mark without trademarkIdentifier": v(leaf("notmid", LEAF_SUBJ.replace("/trademarkRegistration=1234567", "")), ["subject-fields"]),
    "Registered Mark without trademarkCountryOrRegionName": v(leaf("notmc", LEAF_SUBJ.replace("/trademarkCountry=US", "")), ["subject-fields"]),
    "Modified Registered Mark with its trademark fields": v(
      leaf("modified", LEAF_SUBJ.replace("markType=Registered Mark", "markType=Modified Registered Mark")),
      [],
    ),
    "Government Mark with its statute fields": v(leaf("gov", SUBJ.base + SUBJ.government), []),
    "Government Mark without statuteCitation": v(leaf("govnocite", SUBJ.base + SUBJ.government.replace("/statuteCitation=36 U.S.C. 300101", "")), [
      "subject-fields",
    ]),
    "Government Mark with statuteLocalityName and no statuteStateOrProvinceName": v(
      leaf("govloc", `${SUBJ.base}${SUBJ.government}/statuteLocalityName=Washington`),
      ["subject-fields"],
    ),
    "Registered Mark carrying priorUseMarkSourceURL (a Prior Use Mark field)": v(
      leaf("regpum", `${LEAF_SUBJ}/priorUseMarkSourceURL=https:\\/\\/brand.example\\/logo`),
      ["subject-fields"],
    ),
    "Prior Use Mark carrying trademarkIdentifier (a Registered Mark field)": v(
      leaf("pumtm", `${SUBJ.base}/markType=Prior Use Mark/priorUseMarkSourceURL=https:\\/\\/brand.example\\/logo/trademarkRegistration=1234567`),
      ["subject-fields"],
    ),
    "Prior Use Mark issued after 2025-04-15 without priorUseMarkSourceURL": v(leaf("pumnourl", `${SUBJ.base}/markType=Prior Use Mark`), ["subject-fields"]),
    "Prior Use Mark with its priorUseMarkSourceURL": v(
      leaf("pum", `${SUBJ.base}/markType=Prior Use Mark/priorUseMarkSourceURL=https:\\/\\/brand.example\\/logo`),
      [],
    ),
    "no markType (the trademark fields still there)": v(leaf("nomt", LEAF_SUBJ.replace("/markType=Registered Mark", "")), ["subject-fields"]),
    "an unknown markType": v(leaf("badmt", LEAF_SUBJ.replace("markType=Registered Mark", "markType=Certification Mark")), ["mark-type"]),
    "neither localityName nor stateOrProvinceName": v(leaf("noloc", LEAF_SUBJ.replace("/ST=California/L=San Jose", "")), ["subject-fields"]),
    "a locality without a state or province": v(leaf("lonly", LEAF_SUBJ.replace("/ST=California", "")), []),
    "jurisdictionLocalityName without jurisdictionStateOrProvinceName": v(leaf("jloc", `${LEAF_SUBJ}/jurisdictionL=San Jose`), ["subject-fields"]),
    // Extensions a Mark Certificate must not carry (MC Requirements §7.1.5, §7.1.2.3).
    "a nameConstraints extension in the leaf": v(leaf("nc", LEAF_SUBJ, leafExt({ extra: ["nameConstraints = permitted;DNS:brand.example"] })), ["extensions"]),
    "the Pilot identifier in a certificate issued after 2025-03-15": v(leaf("pilot", LEAF_SUBJ, leafExt({ extra: [PILOT] })), ["extensions"]),
    "a critical extension nobody recognises": v(leaf("crit", LEAF_SUBJ, leafExt({ extra: ["1.3.6.1.4.1.99999.7 = critical,ASN1:NULL"] })), []),
  } satisfies Record<string, Variant>);

  const names = Object.keys(variants);
  const got = checkdmarc(
    names.map((n) => {
      const x = variants[n] as Variant;
      return { pem: x.pem, domain: x.domain ?? "brand.example", now: x.now.toISOString(), roots: trusted };
    }),
  );
  answers = Object.fromEntries(names.map((n, i) => [n, got[i] as Checkdmarc]));
}, 120_000);

afterAll(() => ws?.cleanup());

describe("generated variants: ours and checkdmarc", () => {
  it("every variant was generated", () => expect(Object.keys(variants).length).toBe(37));
  for (const name of [
    "a good RSA chain",
    "a good ECDSA chain (P-256 leaf under a P-384 root)",
    "the chain with its root included",
    "a subdomain of the certified domain",
    "wrong EKU (a TLS server certificate)",
    "expired (judged after notAfter)",
    "not yet valid",
    "a logotype hash that does not match the embedded logo",
    "a SAN for another domain",
    "a SAN for another selector only",
    "a SAN naming the selector's record (default._bimi.brand.example)",
    "no SAN at all",
    "no logotype extension",
    "a self-signed leaf",
    "a chain ending at a self-signed root no BIMI issuer uses",
    "a chain to an unknown root (root not in the file)",
    "an intermediate missing from the file",
    "issued by a certificate that is not a CA",
    "a forged leaf signature",
    "Registered Mark without trademarkIdentifier",
    "Registered Mark without trademarkCountryOrRegionName",
    "Modified Registered Mark with its trademark fields",
    "Government Mark with its statute fields",
    "Government Mark without statuteCitation",
    "Government Mark with statuteLocalityName and no statuteStateOrProvinceName",
    "Registered Mark carrying priorUseMarkSourceURL (a Prior Use Mark field)",
    "Prior Use Mark carrying trademarkIdentifier (a Registered Mark field)",
    "Prior Use Mark issued after 2025-04-15 without priorUseMarkSourceURL",
    "Prior Use Mark with its priorUseMarkSourceURL",
    "no markType (the trademark fields still there)",
    "an unknown markType",
    "neither localityName nor stateOrProvinceName",
    "a locality without a state or province",
    "jurisdictionLocalityName without jurisdictionStateOrProvinceName",
    "a nameConstraints extension in the leaf",
    "the Pilot identifier in a certificate issued after 2025-03-15",
    "a critical extension nobody recognises",
  ]) {
    it(name, async () => {
      const x = variants[name] as Variant;
      const ours = await validateMarkCertificate(x.pem, { domain: x.domain ?? "brand.example", selector: "default", now: x.now, roots: trusted });
      const theirs = answers[name] as Checkdmarc;
      await compare(name, theirs, ours);
      // The rules this variant breaks are flagged by both (a difference named in DIFFERS aside).
      const both = [...ourRules(ours)].filter((r) => theirRules(theirs).has(r));
      expect(both.sort(), `${name}: flagged by both`).toEqual([...x.flagged].sort());
      for (const c of ours.checks) if (c.ok === false) expect(c.fix, `${c.id} says what to do`).toBeTruthy();
    });
  }
});
