// bench/lib/doh-server.mjs in a child process: unlike a worker thread (bench/lib/doh-thread.mjs), its
// parsing and encoding do not count in the caller's process.cpuUsage(), so a bench that reports the CPU
// time of a check measures the check alone. Log times are the child's performance.now() (only counts are read).
import { fork } from "node:child_process";

if (process.argv[2] === "--doh-process" && process.send) {
  const { startDohServer } = await import("./doh-server.mjs");
  let server = null;
  process.on("message", async (m) => {
    if (m.start) {
      server = await startDohServer({ zone: m.start.zone, delayMs: m.start.delayMs });
      process.send({ url: server.url });
    }
    if (m === "log") process.send(server.log.map(({ name, type }) => ({ name, type })));
    if (m === "reset") process.send(server.reset().length);
    if (m === "stop") {
      await server.stop();
      process.send("stopped");
      process.disconnect();
    }
  });
}

/** startDohProcess({ zone, delayMs }) -> { url, log(), reset(), stop() }; log() entries are { name, type }. */
export async function startDohProcess({ zone, delayMs }) {
  // tsx is inherited through execArgv (`node --import tsx`), which the server needs for the project's DNS codec.
  const child = fork(new URL(import.meta.url), ["--doh-process"], { stdio: ["ignore", "inherit", "inherit", "ipc"] });
  const pending = [];
  child.on("message", (m) => pending.shift()?.resolve(m));
  child.on("exit", (code) => {
    for (const p of pending.splice(0)) p.reject(new Error(`DoH process exited (${code})`));
  });
  const ask = (m) =>
    new Promise((resolve, reject) => {
      pending.push({ resolve, reject });
      child.send(m);
    });
  const { url } = await ask({ start: { zone, delayMs } });
  return {
    url,
    log: () => ask("log"),
    reset: () => ask("reset"),
    stop: async () => {
      await ask("stop");
    },
  };
}
