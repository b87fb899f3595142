#!/usr/bin/env node
// `npm run test:browser [files...]`: the browser suite (test/browser/*.browser.mjs) in Debian's Chromium,
// one file at a time (each starts its own wrangler dev). Installs Chromium with apt when it is missing
// and this runs as root (CI on a fresh machine); otherwise says how. Screenshots: test-output/screenshots.
import { spawnSync } from "node:child_process";
import { existsSync, readdirSync } from "node:fs";

const chromium = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
if (!existsSync(chromium)) {
  if (process.getuid?.() === 0) {
    console.log("Chromium is missing: installing Debian's chromium package (apt-get).");
    for (const args of [
      ["update", "-qq"],
      ["install", "-y", "-qq", "--no-install-recommends", "chromium", "fonts-dejavu-core"],
    ]) {
      const r = spawnSync("apt-get", args, { stdio: "inherit", env: { ...process.env, DEBIAN_FRONTEND: "noninteractive" } });
      if (r.status !== 0) process.exit(r.status ?? 1);
    }
  } else {
    console.error(`No Chromium at ${chromium}. Install it (sudo apt-get install chromium) or set CHROMIUM_PATH.`);
    process.exit(1);
  }
}
const named = process.argv.slice(2);
const files =
  named.length > 0
    ? named
    : readdirSync("test/browser")
        .filter((f) => f.endsWith(".browser.mjs"))
        .sort()
        .map((f) => `test/browser/${f}`);
const r = spawnSync(process.execPath, ["--import", "tsx", "--test", "--test-concurrency=1", ...files], { stdio: "inherit" });
process.exit(r.status ?? 1);
