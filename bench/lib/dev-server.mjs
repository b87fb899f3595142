// Starts an isolated `wrangler dev` for a benchmark (own port and state folder), migrated, with an
// admin token, and stops it afterwards. Only loopback addresses are ever contacted.
import { spawn, spawnSync } from "node:child_process";
import { rmSync } from "node:fs";

const QUIET = { ...process.env, WRANGLER_SEND_METRICS: "false", CLOUDFLARE_CF_FETCH_ENABLED: "false", WRANGLER_HIDE_BANNER: "true" };

async function portInUse(port) {
  try {
    await fetch(`http://127.0.0.1:${port}/`, { signal: AbortSignal.timeout(1000) });
    return true;
  } catch {
    return false;
  }
}

/** `config`: another wrangler configuration (a benchmark's variant build); the default is wrangler.toml. */
export async function startDevServer({ port = 8799, vars = {}, keepState = false, config } = {}) {
  if (await portInUse(port)) throw new Error(`port ${port} is already in use; stop that server first`);
  const persist = `.wrangler/bench-state-${port}`;
  // keepState: restart on the state a previous (killed) server left, as after a crash.
  if (!keepState) rmSync(persist, { recursive: true, force: true });
  const mig = spawnSync("npx", ["wrangler", "d1", "migrations", "apply", "DB", "--local", "--persist-to", persist], { env: QUIET, encoding: "utf8" });
  if (mig.status !== 0) throw new Error(`migrations failed: ${mig.stderr}`);
  const adminToken = "bench-admin-token-0123456789abcdefghijk"; // at least 32 characters (docs/limits.md)
  const allVars = { ADMIN_TOKEN: adminToken, WEBHOOK_ALLOW_PRIVATE: "true", WEBHOOK_ALLOW_INSECURE: "true", ...vars };
  const args = [
    "wrangler",
    "dev",
    "--port",
    String(port),
    "--inspector-port",
    String(port + 1000),
    "--ip",
    "127.0.0.1",
    "--persist-to",
    persist,
    "--test-scheduled",
    ...(config ? ["--config", config] : []),
  ];
  for (const [k, v] of Object.entries(allVars)) args.push("--var", `${k}:${v}`);
  // Its own process group, so that stop() ends wrangler and workerd, not only npx.
  const child = spawn("npx", args, { env: QUIET, stdio: ["ignore", "pipe", "pipe"], detached: true });
  let log = "";
  child.stdout.on("data", (d) => (log += d));
  child.stderr.on("data", (d) => (log += d));
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 60_000;
  for (;;) {
    try {
      if ((await fetch(`${url}/`)).ok) break;
    } catch {
      /* not up yet */
    }
    if (Date.now() > deadline) {
      process.kill(-child.pid, "SIGTERM");
      throw new Error(`wrangler dev did not start:\n${log}`);
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  return {
    url,
    adminToken,
    log: () => log,
    async createTeam(plan = "enterprise") {
      const res = await fetch(`${url}/admin/teams`, {
        method: "POST",
        headers: { authorization: `Bearer ${adminToken}`, "content-type": "application/json" },
        body: JSON.stringify({ name: `bench-${Math.random()}`, plan, owner_email: "bench@example.com" }),
      });
      if (res.status !== 201) throw new Error(`team: ${res.status} ${await res.text()}\n--- server log ---\n${log.slice(-4000)}`);
      return (await res.json()).data;
    },
    persist,
    /** Runs SQL on the server's local D1 (`{ command }` or `{ file }`), as `wrangler d1 execute --local`. */
    d1({ command, file }) {
      const what = file === undefined ? ["--command", command] : ["--file", file];
      const r = spawnSync("npx", ["wrangler", "d1", "execute", "DB", "--local", "--persist-to", persist, ...what], { env: QUIET, encoding: "utf8" });
      if (r.status !== 0) throw new Error(`d1 execute: ${r.stderr}\n${r.stdout.slice(-2000)}`);
    },
    /** A domain added through the API with `token`, then marked verified in the local D1 (DNS proves it in real use). */
    async verifiedDomain(token, name) {
      const res = await fetch(`${url}/api/v1/domains`, {
        method: "POST",
        headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
        body: JSON.stringify({ name }),
      });
      if (res.status !== 201) throw new Error(`domain: ${res.status} ${await res.text()}`);
      const { data } = await res.json();
      this.d1({ command: `UPDATE domains SET verified = 1, verified_at = ${Date.now()} WHERE id = ${data.id}` });
      return data;
    },
    /** SIGKILL to the whole process group: no shutdown, nothing flushed, as a crash. */
    async kill() {
      const exited = new Promise((r) => child.once("exit", r));
      process.kill(-child.pid, "SIGKILL");
      await exited;
    },
    async stop() {
      const exited = new Promise((r) => child.once("exit", r));
      try {
        process.kill(-child.pid, "SIGTERM");
      } catch {
        child.kill("SIGTERM");
      }
      await exited;
      rmSync(persist, { recursive: true, force: true });
    },
  };
}
