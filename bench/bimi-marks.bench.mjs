// Issue 32: mark-certificate (VMC/CMC) validation, core validateMarkCertificate vs vmc() of @postalsys/vmc 1.1.5
// (the library mailauth uses), in the same process on the same PEM bundles (test/fixtures/bimi-marks), in
// alternating rounds, median ms per certificate and the ratio. Ours verifies every signature of the chain with
// WebCrypto, hashes and gunzips the logo and checks its SVG profile and the SAN; vmc() matches the chain by
// names (Node's checkIssued, no signature), checks dates and the EKU, and hashes the logo.
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { duel } from "./lib/duel.mjs";

const { validateMarkCertificate } = await import("../src/core/bimi/mark/index.ts");
const require = createRequire(import.meta.url);
const { vmc } = require("@postalsys/vmc");

const FIXTURES = new URL("../test/fixtures/bimi-marks/", import.meta.url);
/** Inside each certificate's validity (as in test/node/bimi-marks.test.ts). */
const CASES = [
  ["cnn.pem", "cnn.com", "2022-01-15T00:00:00Z"],
  ["paypal_vmc.pem", "paypal.com", "2024-11-05T06:50:13Z"],
  ["xometry_cmc.pem", "xometry.com", "2025-01-15T00:00:00Z"],
  ["globalsign-vmc.pem", "globalsign.com", "2025-06-01T00:00:00Z"],
  ["redshift.pem", "redsift.com", "2022-01-15T00:00:00Z"],
];

const pad = (s, n) => String(s).padEnd(n);
const num = (x, d = 3) => x.toFixed(d).padStart(10);

export default async function run() {
  console.log("Mark certificates: this service (core validateMarkCertificate) vs @postalsys/vmc 1.1.5 vmc(), same PEM text, median ms per certificate");
  console.log(`${pad("certificate", 22)}${pad("bytes", 8)}${"ours ms".padStart(10)}${"vmc ms".padStart(10)}${"  ratio".padStart(9)}  runs  verdict ours/vmc`);
  let ours = 0;
  let theirs = 0;
  for (const [file, domain, iso] of CASES) {
    const pem = readFileSync(new URL(file, FIXTURES), "utf8");
    const now = new Date(iso);
    const a = await validateMarkCertificate(pem, { domain, selector: "default", now });
    const b = await vmc(pem, { now });
    const { medians, runs } = await duel([() => validateMarkCertificate(pem, { domain, selector: "default", now }), () => vmc(pem, { now })], { maxReps: 500 });
    ours += medians[0];
    theirs += medians[1];
    console.log(
      `${pad(file, 22)}${pad(pem.length, 8)}${num(medians[0])}${num(medians[1])}${`${(medians[0] / medians[1]).toFixed(2)}x`.padStart(9)}  ${String(runs).padStart(4)}  ${a.kind}${a.valid ? " valid" : " INVALID"} / ${b.type}${b.validHash ? " valid" : " INVALID"}`,
    );
  }
  console.log(`${pad("mean", 30)}${num(ours / CASES.length)}${num(theirs / CASES.length)}${`${(ours / theirs).toFixed(2)}x`.padStart(9)}`);
}
