// bench/lib/doh-server.mjs in a worker thread: a real resolver is another machine, so its parsing and
// encoding should not take turns with the check on the same event loop. Log times are converted to
// the caller's performance.now() through the shared wall clock (performance.timeOrigin).
import { isMainThread, parentPort, Worker, workerData } from "node:worker_threads";

if (!isMainThread && workerData?.dohThread) {
  const { startDohServer } = await import("./doh-server.mjs");
  const server = await startDohServer({ zone: workerData.zone, delayMs: workerData.delayMs });
  const abs = (t) => (t ? performance.timeOrigin + t : 0);
  parentPort.on("message", async (m) => {
    if (m === "log") parentPort.postMessage(server.log.map((e) => ({ ...e, received: abs(e.received), answered: abs(e.answered) })));
    if (m === "reset") parentPort.postMessage(server.reset().length);
    if (m === "stop") parentPort.postMessage(await server.stop());
  });
  parentPort.postMessage(server.url);
}

/** startDohThread({ zone, delayMs }) -> { url, log(), reset(), stop() }; log() entries as startDohServer's. */
export async function startDohThread({ zone, delayMs }) {
  const worker = new Worker(new URL(import.meta.url), { workerData: { dohThread: true, zone, delayMs } });
  const pending = [];
  worker.on("message", (m) => pending.shift()?.resolve(m));
  worker.on("error", (e) => {
    for (const p of pending.splice(0)) p.reject(e);
  });
  const next = () => new Promise((resolve, reject) => pending.push({ resolve, reject }));
  const url = await next();
  const ask = (m) => {
    const answer = next();
    worker.postMessage(m);
    return answer;
  };
  return {
    url,
    log: async () =>
      (await ask("log")).map((e) => ({
        ...e,
        received: e.received && e.received - performance.timeOrigin,
        answered: e.answered && e.answered - performance.timeOrigin,
      })),
    reset: () => ask("reset"),
    stop: async () => {
      await ask("stop");
      await worker.terminate();
    },
  };
}
