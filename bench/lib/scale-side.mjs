// The scale benchmarks measure two trees with the same script: this one ("after") and the commit
// before per-domain report storage ("before", a git worktree, SCALE_BEFORE_TREE, default
// /tmp/hcap-before, made with `git worktree add --detach /tmp/hcap-before 824d32c` and its
// node_modules symlinked). The before side is this same bench file run as a child process whose
// working directory is that tree, so `wrangler dev` serves that tree's Worker; it prints one JSON
// line the parent reads. Sides run one after the other, never together (2 cores).
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { startDevServer } from "./dev-server.mjs";
import { INGEST_SECRET } from "./scale-data.mjs";

const QUIET = { ...process.env, WRANGLER_SEND_METRICS: "false", CLOUDFLARE_CF_FETCH_ENABLED: "false", WRANGLER_HIDE_BANNER: "true" };
export const BEFORE_TREE = process.env.SCALE_BEFORE_TREE ?? "/tmp/hcap-before";
const MARK = "SCALE-SIDE-RESULT ";

/** In the child: print the side's result for the parent. */
export function reportSide(result) {
  console.log(MARK + JSON.stringify(result));
}

/** True when this process is the before side's child. */
export const isChildSide = () => process.env.SCALE_SIDE_CHILD === "1";

/** Runs `file` (this bench) in the before tree; its result, or null with the reason printed. */
export function runBeforeSide(file, env = {}) {
  if (!existsSync(`${BEFORE_TREE}/wrangler.toml`)) {
    console.log(`(no before tree at ${BEFORE_TREE}: only this tree is measured)`);
    return null;
  }
  const child = spawnSync(process.execPath, ["--import", "tsx", file], {
    cwd: BEFORE_TREE,
    env: { ...process.env, ...env, SCALE_SIDE_CHILD: "1" },
    encoding: "utf8",
    maxBuffer: 64 * 1024 * 1024,
  });
  const lines = child.stdout.split("\n");
  for (const l of lines) if (l.startsWith("  ")) console.log(l);
  const line = lines.find((l) => l.startsWith(MARK));
  if (!line) {
    console.log(`before side failed (exit ${child.status}):\n${(child.stdout + child.stderr).slice(-3000)}`);
    return null;
  }
  return JSON.parse(line.slice(MARK.length));
}

/** SQL against the local D1 of a running bench server (same state folder). */
export function d1(persist, sqlText) {
  const r = spawnSync("npx", ["wrangler", "d1", "execute", "DB", "--local", "--persist-to", persist, "--json", "--command", sqlText], {
    env: QUIET,
    encoding: "utf8",
  });
  if (r.status !== 0) throw new Error(`d1: ${r.stderr.slice(0, 400)}`);
  return JSON.parse(r.stdout)[0].results;
}

/**
 * A bench server with an enterprise team and `count` verified domains, each with its report address.
 * Domains are added through the API; their ownership is marked verified in D1 directly (the bench
 * has no DNS: resolvers refuse at once, so analytics name no sender).
 */
export async function serverWithDomains(port, count, prefix = "scale") {
  const server = await startDevServer({
    port,
    vars: { DMARC_INGEST_SECRET: INGEST_SECRET, REPORT_DOMAIN: "reports.bench", DOH_RESOLVERS: "http://127.0.0.1:9/dns-query" },
  });
  try {
    const team = await server.createTeam("enterprise");
    const token = team.tokens.full.token;
    const domains = [];
    for (let i = 0; i < count; i++) {
      const res = await fetch(`${server.url}/api/v1/domains`, {
        method: "POST",
        headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
        body: JSON.stringify({ name: `${prefix}-${i}.example` }),
      });
      const d = (await res.json()).data;
      if (!d?.dmarc_report_address) throw new Error(`domain ${i}: HTTP ${res.status}`);
      domains.push({ id: d.id, name: d.name, address: d.dmarc_report_address });
    }
    d1(server.persist, `UPDATE domains SET verified = 1, verified_at = ${Date.now()} WHERE team_id = ${team.team.id}`);
    return { server, token, domains };
  } catch (e) {
    await server.stop();
    throw e;
  }
}

/** Median and the answer of `rounds` GETs of `path` (authenticated). */
export async function timeGet(url, token, path, rounds = 5) {
  const times = [];
  let body = null;
  for (let i = 0; i < rounds; i++) {
    const t0 = performance.now();
    const res = await fetch(`${url}${path}`, { headers: { authorization: `Bearer ${token}` } });
    body = await res.json();
    times.push(performance.now() - t0);
    if (res.status !== 200) throw new Error(`GET ${path}: HTTP ${res.status} ${JSON.stringify(body).slice(0, 300)}`);
  }
  times.sort((a, b) => a - b);
  return { ms: times[Math.floor(times.length / 2)], body };
}
