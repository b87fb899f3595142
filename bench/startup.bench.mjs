// Issue 14, "Worker bundle and cold start" (docs/decisions.md D57-D59). Prints:
// - the script `wrangler deploy` would upload, as wrangler reports it (Total Upload and gzip), built as
//   wrangler.toml says (minified) and not minified, with the bytes each large package contributes
//   (esbuild's metafile), and the static assets beside it (D59);
// - the cost of starting an isolate on that script, against a one-line Worker (the floor every Worker
//   pays) measured in the same run, alternating: (1) the script's module evaluation in a fresh Node
//   process (same V8: parse plus top-level code), (2) `wrangler dev --no-bundle` on the built script
//   with the wrangler.toml bindings (port 8970), from spawn to its first answer, that first answer, and
//   a warm one. wrangler's own start is the same for every script, so the difference to the floor is
//   what the script costs workerd. Loopback only; nothing is deployed.
import { spawn, spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

const PORT = 8970;
const ROUNDS = 5;
const QUIET = { ...process.env, WRANGLER_SEND_METRICS: "false", CLOUDFLARE_CF_FETCH_ENABLED: "false", WRANGLER_HIDE_BANNER: "true" };
const KIB = 1024;
const kib = (n) => `${(n / KIB).toFixed(0)} KiB`.padStart(10);
const ms = (n) => `${n.toFixed(1)} ms`.padStart(10);
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

const GROUPS = [
  ["@modelcontextprotocol/sdk", /node_modules\/@modelcontextprotocol\//],
  ["ajv (+ formats, fast-uri; MCP SDK)", /node_modules\/(ajv|ajv-formats|fast-uri|json-schema-traverse|fast-deep-equal)\//],
  ["@cloudflare/workers-oauth-provider", /node_modules\/@cloudflare\/workers-oauth-provider\//],
  ["zod v4", /node_modules\/zod\/v4\//],
  ["zod v3 + zod-to-json-schema (MCP SDK)", /node_modules\/(zod\/v3|zod-to-json-schema)\//],
  ["hono + @hono/zod-openapi", /node_modules\/(hono|@hono|@asteasolutions)\//],
  ["drizzle-orm", /node_modules\/drizzle-orm\//],
  ["postal-mime", /node_modules\/postal-mime\//],
  ["other node_modules", /node_modules\//],
  ["src/", /^src\//],
];

/** One `wrangler deploy --dry-run` into a temporary folder: wrangler's own figures, the script and its metafile. */
function bundle(extra, dir) {
  const r = spawnSync("npx", ["wrangler", "deploy", "--dry-run", "--outdir", dir, "--metafile", join(dir, "meta.json"), ...extra], {
    env: QUIET,
    encoding: "utf8",
  });
  if (r.status !== 0) throw new Error(`wrangler deploy --dry-run failed:\n${r.stderr}`);
  const m = /Total Upload: ([\d.]+) KiB \/ gzip: ([\d.]+) KiB/.exec(r.stdout);
  if (!m) throw new Error(`no "Total Upload" line in wrangler's output:\n${r.stdout}`);
  const meta = JSON.parse(readFileSync(join(dir, "meta.json"), "utf8"));
  const groups = new Map();
  for (const [path, { bytesInOutput }] of Object.values(meta.outputs).flatMap((o) => Object.entries(o.inputs))) {
    const g = GROUPS.find(([, re]) => re.test(path))?.[0] ?? "other";
    groups.set(g, (groups.get(g) ?? 0) + bytesInOutput);
  }
  return { upload: Number(m[1]) * KIB, gzip: Number(m[2]) * KIB, file: join(dir, "index.js"), groups };
}

/** Module evaluation of a script in a fresh Node process (`cloudflare:workers` stubbed as for the OpenAPI export). */
function evaluate(file) {
  const code = `const t = performance.now(); await import(${JSON.stringify(pathToFileURL(file).href)}); console.log(performance.now() - t);`;
  const r = spawnSync(process.execPath, ["--import", "./scripts/node-stubs/register.mjs", "--input-type=module", "-e", code], { encoding: "utf8" });
  if (r.status !== 0) throw new Error(`evaluating ${file} failed:\n${r.stderr}`);
  return Number(r.stdout.trim());
}

/** `wrangler dev --no-bundle` on a built script: spawn to first answer, that answer, then a warm one. */
async function devStart(script, persist) {
  const t0 = performance.now();
  const args = ["wrangler", "dev", "--no-bundle", script, "--port", String(PORT), "--inspector-port", String(PORT + 1), "--ip", "127.0.0.1"];
  const child = spawn("npx", [...args, "--persist-to", persist], { env: QUIET, stdio: "ignore", detached: true });
  try {
    for (;;) {
      try {
        const s = performance.now();
        const res = await fetch(`http://127.0.0.1:${PORT}/`);
        await res.arrayBuffer();
        if (res.ok) {
          const ready = performance.now() - t0;
          const first = performance.now() - s;
          const warm = [];
          for (let i = 0; i < 11; i++) {
            const w = performance.now();
            await (await fetch(`http://127.0.0.1:${PORT}/`)).arrayBuffer();
            warm.push(performance.now() - w);
          }
          return { ready, first, warm: median(warm) };
        }
      } catch {
        /* not up yet */
      }
      if (performance.now() - t0 > 60_000) throw new Error(`wrangler dev did not start on ${script}`);
      await new Promise((r) => setTimeout(r, 25));
    }
  } finally {
    const exited = new Promise((r) => child.once("exit", r));
    process.kill(-child.pid, "SIGTERM");
    await exited;
  }
}

export default async function run() {
  const tmp = mkdtempSync(join(tmpdir(), "startup-bench-"));
  try {
    const built = bundle([], join(tmp, "deployed"));
    const plain = bundle(["--no-minify"], join(tmp, "plain"));
    const assets = readdirSync("data").map((f) => [f, statSync(join("data", f)).size]);
    console.log("script (wrangler deploy --dry-run, Total Upload as wrangler prints it; target under 1,536 KiB):");
    console.log(`  as deployed (minified, D57-D59): ${kib(built.upload)} (${kib(built.gzip)} gzip)`);
    console.log(`  not minified (--no-minify):      ${kib(plain.upload)} (${kib(plain.gzip)} gzip)`);
    console.log(`  target ${built.upload < 1536 * KIB ? "met" : "NOT met"} by the deployed script`);
    console.log(`  ${"by package".padEnd(40)}${"deployed".padStart(10)}${"plain".padStart(10)}`);
    for (const [g] of [...GROUPS, ["other"]])
      if (plain.groups.get(g)) console.log(`  ${g.padEnd(40)}${kib(built.groups.get(g) ?? 0)}${kib(plain.groups.get(g))}`);
    for (const [f, size] of assets) console.log(`static asset data/${f} (not in the script, read on first use):${kib(size)}`);

    // Each script alone in its folder, the dev state elsewhere: without bundling, wrangler dev takes the
    // script's folder as its module root and watches it.
    mkdirSync(join(tmp, "floor"));
    const floor = join(tmp, "floor", "index.js");
    // The Durable Object classes wrangler.toml binds must exist, or workerd refuses the script.
    const classes = [...readFileSync("wrangler.toml", "utf8").matchAll(/^class_name = "(\w+)"/gm)].map((m) => m[1]);
    writeFileSync(
      floor,
      `import { DurableObject } from "cloudflare:workers";\n${classes.map((c) => `export class ${c} extends DurableObject {}\n`).join("")}export default { fetch() { return new Response("ok"); } };\n`,
    );
    const scripts = [
      ["one-line Worker (floor)", floor],
      ["this Worker, deployed", built.file],
      ["this Worker, not minified", plain.file],
    ];
    const state = mkdtempSync(join(tmpdir(), "startup-bench-state-"));
    const evals = new Map(scripts.map(([n]) => [n, []]));
    const starts = new Map(scripts.map(([n]) => [n, []]));
    for (let round = 0; round < ROUNDS; round++)
      for (const [name, file] of scripts) {
        evals.get(name).push(evaluate(file));
        starts.get(name).push(await devStart(file, state));
      }
    const floorEval = median(evals.get(scripts[0][0]));
    const floorReady = median(starts.get(scripts[0][0]).map((r) => r.ready));
    console.log(`\nisolate start, median of ${ROUNDS} alternating rounds (module evaluation in Node; wrangler dev --no-bundle, GET /):`);
    console.log(
      `  ${"".padEnd(28)}${"evaluate".padStart(10)}${"- floor".padStart(10)}${"to ready".padStart(10)}${"- floor".padStart(10)}${"1st GET /".padStart(10)}${"warm".padStart(10)}`,
    );
    for (const [name] of scripts) {
      const e = median(evals.get(name));
      const s = starts.get(name);
      const ready = median(s.map((r) => r.ready));
      console.log(
        `  ${name.padEnd(28)}${ms(e)}${ms(e - floorEval)}${ms(ready)}${ms(ready - floorReady)}${ms(median(s.map((r) => r.first)))}${ms(median(s.map((r) => r.warm)))}`,
      );
    }
    rmSync(state, { recursive: true, force: true });
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}
