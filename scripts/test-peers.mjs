// Installs what the peer comparisons of `npm test` need outside npm, when it is missing, so a fresh
// machine runs `npm install && npm test` as the README says (docs/testing.md "Peers"):
// - the openssl CLI, which test/node/support/mark-certs.ts uses to make broken mark certificates;
// - for checkdmarc's own code (test/peers/checkdmarc): python3 with cryptography>=50 (checkdmarc's floor,
//   x509.verification), dnspython, requests and xmltodict (imported by the modules it loads), and Debian's
//   Public Suffix List.
// Debian packages need root (apt-get); pip reads whatever indexes the machine's pip is set to use.
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";

const run = (cmd, args) => spawnSync(cmd, args, { stdio: "inherit" }).status === 0;
const quiet = (cmd, args) => spawnSync(cmd, args, { stdio: "ignore" }).status === 0;
const root = process.getuid?.() === 0;

function apt(pkg, why) {
  if (!root) throw new Error(`${why}: install the Debian package ${pkg} (sudo apt-get install ${pkg})`);
  console.log(`test-peers: installing ${pkg} (${why})`);
  if (!(run("apt-get", ["update", "-qq"]) && run("apt-get", ["install", "-y", "-qq", pkg]))) throw new Error(`apt-get install ${pkg} failed`);
}

if (!quiet("openssl", ["version"])) apt("openssl", "the mark-certificate tests make certificates with openssl");
if (!quiet("python3", ["--version"])) apt("python3", "checkdmarc runs on Python");
// Module to the pip requirement that provides it (requests and xmltodict come with this machine image's
// Python; its local pip indexes carry cryptography and dnspython).
const MODULES = { cryptography: "cryptography>=50", dns: "dnspython", requests: "requests", xmltodict: "xmltodict" };
const usable = (mod) =>
  quiet("python3", ["-c", mod === "cryptography" ? "import sys, cryptography; sys.exit(int(cryptography.__version__.split('.')[0]) < 50)" : `import ${mod}`]);
const missing = Object.keys(MODULES).filter((m) => !usable(m));
if (missing.length > 0) {
  const wanted = missing.map((m) => MODULES[m]);
  console.log(`test-peers: installing ${wanted.join(", ")} for checkdmarc (pip)`);
  // One at a time: pip installs nothing of a list when one of its items cannot be found.
  for (const req of wanted) run("python3", ["-m", "pip", "install", "-q", "--retries", "0", req]);
  const still = missing.filter((m) => !usable(m));
  if (still.length > 0) throw new Error(`checkdmarc needs python3 -m pip install ${still.map((m) => `'${MODULES[m]}'`).join(" ")}, which failed here`);
}
if (!existsSync("/usr/share/publicsuffix/public_suffix_list.dat")) apt("publicsuffix", "checkdmarc's domain match reads the Public Suffix List");
