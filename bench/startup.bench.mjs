// Issue 14 item 6: Worker bundle size (what `wrangler deploy` would upload, with the bytes each large
// package contributes, from esbuild's metafile) and the time to start a fresh isolate: a new
// `wrangler dev` (port 8872) from spawn to its first answer, repeated, then that first answer's own
// latency against a warm one. Loopback only; nothing is deployed.
import { spawn, spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gzipSync } from "node:zlib";

const PORT = 8872;
const STARTS = 3;
const QUIET = { ...process.env, WRANGLER_SEND_METRICS: "false", CLOUDFLARE_CF_FETCH_ENABLED: "false", WRANGLER_HIDE_BANNER: "true" };
const kb = (n) => `${(n / 1024).toFixed(0)} KB`.padStart(9);
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

const GROUPS = [
  ["@modelcontextprotocol/sdk", /node_modules\/@modelcontextprotocol\//],
  ["@cloudflare/workers-oauth-provider", /node_modules\/@cloudflare\/workers-oauth-provider\//],
  ["zod", /node_modules\/zod\//],
  ["hono + @hono/zod-openapi", /node_modules\/(hono|@hono|@asteasolutions)\//],
  ["drizzle-orm", /node_modules\/drizzle-orm\//],
  ["disposable list (packed, D52)", /src\/services\/intel\/disposable-list\.ts$/],
  ["disposable-email-domains JSON", /node_modules\/disposable-email-domains\//],
  ["other node_modules", /node_modules\//],
  ["src/", /^src\//],
];

function bundle(extra = []) {
  const dir = mkdtempSync(join(tmpdir(), "startup-bench-"));
  try {
    const r = spawnSync("npx", ["wrangler", "deploy", "--dry-run", "--outdir", dir, "--metafile", join(dir, "meta.json"), ...extra], {
      env: QUIET,
      encoding: "utf8",
    });
    if (r.status !== 0) throw new Error(`wrangler deploy --dry-run failed:\n${r.stderr}`);
    const file = join(dir, "index.js");
    const size = statSync(file).size;
    const gz = gzipSync(readFileSync(file)).length;
    const meta = JSON.parse(readFileSync(join(dir, "meta.json"), "utf8"));
    const inputs = Object.values(meta.outputs).flatMap((o) => Object.entries(o.inputs));
    const groups = new Map();
    for (const [path, { bytesInOutput }] of inputs) {
      const g = GROUPS.find(([, re]) => re.test(path))?.[0] ?? "other";
      groups.set(g, (groups.get(g) ?? 0) + bytesInOutput);
    }
    return { size, gz, groups };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function startOnce(persist) {
  const t0 = performance.now();
  const child = spawn(
    "npx",
    ["wrangler", "dev", "--port", String(PORT), "--inspector-port", String(PORT + 1000), "--ip", "127.0.0.1", "--persist-to", persist],
    {
      env: QUIET,
      stdio: "ignore",
      detached: true,
    },
  );
  try {
    for (;;) {
      try {
        const s = performance.now();
        const res = await fetch(`http://127.0.0.1:${PORT}/`);
        await res.arrayBuffer();
        if (res.ok) {
          const first = performance.now() - s;
          const ready = performance.now() - t0;
          const warm = [];
          for (let i = 0; i < 20; i++) {
            const w = performance.now();
            await (await fetch(`http://127.0.0.1:${PORT}/`)).arrayBuffer();
            warm.push(performance.now() - w);
          }
          return { ready, first, warm: median(warm) };
        }
      } catch {
        /* not up yet */
      }
      if (performance.now() - t0 > 60_000) throw new Error("wrangler dev did not start");
      await new Promise((r) => setTimeout(r, 50));
    }
  } finally {
    const exited = new Promise((r) => child.once("exit", r));
    process.kill(-child.pid, "SIGTERM");
    await exited;
  }
}

export default async function run() {
  const b = bundle();
  console.log(`bundle (wrangler deploy --dry-run): ${kb(b.size)} (${kb(b.gz)} gzipped); target under 1,536 KB`);
  const mcp = (b.groups.get(GROUPS[0][0]) ?? 0) + (b.groups.get(GROUPS[1][0]) ?? 0);
  console.log(`  without the MCP SDK and the OAuth provider it would be ${kb(b.size - mcp)}`);
  for (const [g] of [...GROUPS, ["other"]]) if (b.groups.get(g)) console.log(`  ${g.padEnd(40)}${kb(b.groups.get(g))}`);
  const min = bundle(["--minify"]);
  const minMcp = (min.groups.get(GROUPS[0][0]) ?? 0) + (min.groups.get(GROUPS[1][0]) ?? 0);
  console.log(
    `minified (--minify, i.e. minify = true in wrangler.toml): ${kb(min.size)} (${kb(min.gz)} gzipped); without MCP SDK + OAuth provider ${kb(min.size - minMcp)}`,
  );

  const persist = mkdtempSync(join(tmpdir(), "startup-state-"));
  try {
    const runs = [];
    for (let i = 0; i < STARTS; i++) runs.push(await startOnce(persist));
    console.log(`\nfresh isolate (wrangler dev on :${PORT}, ${STARTS} starts; GET /):`);
    for (const [i, r] of runs.entries())
      console.log(
        `  start ${i + 1}: spawn to first answer ${r.ready.toFixed(0)} ms; first answer ${r.first.toFixed(1)} ms; warm answer ${r.warm.toFixed(1)} ms`,
      );
    console.log(
      `  median: spawn to first answer ${median(runs.map((r) => r.ready)).toFixed(0)} ms, first answer ${median(runs.map((r) => r.first)).toFixed(1)} ms vs warm ${median(runs.map((r) => r.warm)).toFixed(1)} ms`,
    );
  } finally {
    rmSync(persist, { recursive: true, force: true });
  }
}
