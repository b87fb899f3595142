#!/usr/bin/env node
// `npm start`: local secrets (.dev.vars), local D1 migrations, an idempotent dev team whose tokens
// are printed, then `wrangler dev`. Everything stays local: no Cloudflare account is needed.
import { spawn, spawnSync } from "node:child_process";
import { createHash, randomBytes, randomInt } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";

const PORT = process.env.PORT ?? "8787";
const INSPECTOR_PORT = process.env.INSPECTOR_PORT ?? "9329";
const QUIET = { ...process.env, WRANGLER_SEND_METRICS: "false", CLOUDFLARE_CF_FETCH_ENABLED: "false", WRANGLER_HIDE_BANNER: "true" };
const TOKENS_FILE = ".wrangler/dev-tokens.json";
const DEV_TEAM = "Local development team";
// The dev team's owner: signing in with this address in the dashboard claims the team (docs/decisions.md D32).
const DEV_OWNER = "dev@example.com";

const base62 = (n) => Array.from({ length: n }, () => "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"[randomInt(62)]).join("");
const sql = (s) => `'${String(s).replaceAll("'", "''")}'`;

function wrangler(args, { capture = false } = {}) {
  const r = spawnSync("npx", ["wrangler", ...args], { env: QUIET, encoding: "utf8", stdio: capture ? "pipe" : "inherit" });
  if (r.status !== 0) {
    if (capture) process.stderr.write(r.stdout + r.stderr);
    throw new Error(`wrangler ${args.join(" ")} failed`);
  }
  return r.stdout;
}

function d1(command) {
  const out = wrangler(["d1", "execute", "DB", "--local", "--json", "--command", command], { capture: true });
  return JSON.parse(out)[0]?.results ?? [];
}

if (!existsSync(".dev.vars")) {
  writeFileSync(
    ".dev.vars",
    [
      `ADMIN_TOKEN=${base62(32)}`,
      `DMARC_INGEST_SECRET=${base62(32)}`,
      `WEBHOOK_SECRET_KEY=${randomBytes(32).toString("base64")}`,
      "# Local receivers on 127.0.0.1 over http are allowed in development only.",
      "WEBHOOK_ALLOW_PRIVATE=true",
      "WEBHOOK_ALLOW_INSECURE=true",
      "",
    ].join("\n"),
  );
  console.log("Created .dev.vars with fresh local secrets.");
}
// Local development (docs/decisions.md D148): mail is kept at /dev/outbox, and without SITE_URL links
// are made from the loopback address the dev server answers on. Deployments set SITE_URL instead.
const devVars = readFileSync(".dev.vars", "utf8");
if (!/^DEV_OUTBOX=/m.test(devVars)) {
  writeFileSync(
    ".dev.vars",
    `${devVars}${devVars === "" || devVars.endsWith("\n") ? "" : "\n"}# Local development only: never set in production.\nDEV_OUTBOX=true\n`,
  );
  console.log("Added DEV_OUTBOX=true to .dev.vars (local development).");
}

wrangler(["d1", "migrations", "apply", "DB", "--local"], { capture: true });
console.log("Local D1 migrated.");

// Teams seeded before the dashboard existed named an owner address that cannot sign in.
d1(`UPDATE teams SET owner_email = ${sql(DEV_OWNER)} WHERE name = ${sql(DEV_TEAM)} AND owner_email = 'dev@localhost'`);
let saved = existsSync(TOKENS_FILE) ? JSON.parse(readFileSync(TOKENS_FILE, "utf8")) : null;
let team = d1(`SELECT id FROM teams WHERE name = ${sql(DEV_TEAM)} LIMIT 1`)[0];
const now = Date.now();
if (!team) {
  team = d1(`INSERT INTO teams (name, plan, owner_email, created_at) VALUES (${sql(DEV_TEAM)}, 'enterprise', ${sql(DEV_OWNER)}, ${now}) RETURNING id`)[0];
  saved = null;
}
const hashes = saved
  ? d1(
      `SELECT count(*) AS n FROM tokens WHERE team_id = ${team.id} AND revoked_at IS NULL AND token_hash IN (${[saved.full, saved.read_only].map((t) => sql(createHash("sha256").update(t).digest("hex"))).join(",")})`,
    )[0]
  : null;
if (!saved || saved.team_id !== team.id || hashes?.n !== 2) {
  saved = { team_id: team.id, full: `eam_${base62(40)}`, read_only: `eam_${base62(40)}` };
  for (const [scope, token] of [
    ["full", saved.full],
    ["read_only", saved.read_only],
  ]) {
    const hash = createHash("sha256").update(token).digest("hex");
    d1(
      `INSERT INTO tokens (team_id, name, scope, token_hash, prefix, created_at) VALUES (${team.id}, ${sql(`Local ${scope} token`)}, '${scope}', '${hash}', ${sql(token.slice(0, 12))}, ${now})`,
    );
  }
  mkdirSync(".wrangler", { recursive: true });
  writeFileSync(TOKENS_FILE, JSON.stringify(saved, null, 2));
}

const url = `http://127.0.0.1:${PORT}`;
console.log(`
Dev team #${team.id} (enterprise plan) is ready.
  Dashboard:       ${url}/  (sign in as ${DEV_OWNER}; the sign-in link is at ${url}/dev/outbox)
  Full token:      ${saved.full}
  Read-only token: ${saved.read_only}
  API:             ${url}/api/v1
  API reference:   ${url}/api/v1/docs
  Try:             curl -H "Authorization: Bearer ${saved.full}" ${url}/api/v1/me
  Cron locally:    curl "${url}/__scheduled?cron=*+*+*+*+*"
`);

const dev = spawn("npx", ["wrangler", "dev", "--port", PORT, "--inspector-port", INSPECTOR_PORT, "--ip", "127.0.0.1", "--test-scheduled"], {
  env: QUIET,
  stdio: "inherit",
});
for (const sig of ["SIGINT", "SIGTERM"]) process.on(sig, () => dev.kill(sig));
dev.on("exit", (code) => process.exit(code ?? 0));
