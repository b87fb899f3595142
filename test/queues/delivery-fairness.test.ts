// Tenant fairness in the deliveries consumer, through the Worker's exported queue handler: one
// endpoint gets at most 2 attempts per batch, the rest wait a few seconds (acked and sent again, no
// retry counted), and another team's delivery in the same batch is attempted at once.
import { createExecutionContext, createMessageBatch, getQueueResult } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import worker from "../../src/index";
import { createServices } from "../../src/services";
import { createEndpoint } from "../../src/services/webhooks/create-endpoint";
import { fanOutEvent } from "../../src/services/webhooks/fanout";
import { DEFER_SECONDS, PER_ENDPOINT } from "../../src/services/webhooks/fairness";
import { makeTeam } from "../support/api";
import { teamContext } from "../support/context";
import { deliveriesOf, insertEvent, installReceiver } from "../support/webhooks";

let r: ReturnType<typeof installReceiver>;
beforeEach(() => {
  r = installReceiver();
});
afterEach(() => {
  r.stub.restore();
  vi.restoreAllMocks();
});

describe("deliveries batch fairness", () => {
  it("a busy endpoint gets 2 attempts now and the rest later; another team's endpoint is not starved", async () => {
    const svc = createServices(env);
    const noisy = await makeTeam();
    const quiet = await makeTeam();
    const noisyHook = await createEndpoint(svc, teamContext(noisy.id), "enterprise", { url: "https://hooks.example.com/noisy", events: ["*"] });
    const quietHook = await createEndpoint(svc, teamContext(quiet.id), "enterprise", { url: "https://other.example.com/quiet", events: ["*"] });
    const sends = vi.spyOn(env.DELIVERIES_QUEUE, "sendBatch");
    const noisyIds: number[] = [];
    for (let i = 0; i < 6; i++) noisyIds.push(...(await fanOutEvent(svc, (await insertEvent(svc, noisy.id, "alert.created")).id)).created);
    const [quietId] = (await fanOutEvent(svc, (await insertEvent(svc, quiet.id, "alert.created")).id)).created;
    sends.mockClear();
    r.received.length = 0;

    const batch = createMessageBatch(
      "emailauth-deliveries",
      [
        ...noisyIds.map((id) => ({ kind: "deliver", team_id: noisy.id, endpoint_id: noisyHook.id, delivery_id: id })),
        { kind: "deliver", team_id: quiet.id, endpoint_id: quietHook.id, delivery_id: quietId },
      ].map((body, i) => ({ id: `m${i}`, timestamp: new Date(), attempts: 1, body })),
    );
    const ctx = createExecutionContext();
    await worker.queue(batch, env, ctx);
    const result = await getQueueResult(batch, ctx);
    expect(result.retryMessages, "nothing is retried through the queue's counter").toEqual([]);
    expect(result.explicitAcks).toHaveLength(7);

    const hits = (path: string) => r.received.filter((x) => x.url.endsWith(path)).length;
    expect(hits("/noisy")).toBe(PER_ENDPOINT);
    expect(hits("/quiet")).toBe(1);
    const rows = await deliveriesOf(noisy.id, { ids: noisyIds });
    expect(rows.filter((d) => d.status === "delivered")).toHaveLength(PER_ENDPOINT);
    expect(rows.filter((d) => d.status === "pending" && d.attempts === 0)).toHaveLength(6 - PER_ENDPOINT);
    const resent = sends.mock.calls.flatMap(([msgs]) => [...msgs]).filter((m) => (m.body as { kind: string }).kind === "deliver");
    expect(resent).toHaveLength(6 - PER_ENDPOINT);
    expect(resent.every((m) => m.delaySeconds === DEFER_SECONDS)).toBe(true);
    const quietRow = await deliveriesOf(quiet.id, { ids: [quietId ?? 0] });
    expect(quietRow[0]?.status).toBe("delivered");
  });
});
