// The resolver's request queue (docs/decisions.md D63): bounded in flight, normal before leaf, first come
// first served within a priority, a slot handed over without overtaking; and the DohResolver through it.
import { describe, expect, it } from "vitest";
import { installDohStub } from "../../../test/support/doh-stub";
import { DohResolver, globalFetch, MAX_QUERIES_IN_FLIGHT } from "./doh-resolver";
import { QueryLimiter, withPriority } from "./limiter";
import type { QueryOptions, RecordType, Resolver } from "./types";

/** A task that finishes when the test says so, and notes when it started. */
function gate(log: string[], id: string) {
  let open: () => void = () => {};
  const done = new Promise<void>((resolve) => {
    open = resolve;
  });
  return {
    task: async () => {
      log.push(id);
      await done;
      return id;
    },
    open,
  };
}

const tick = () => new Promise((resolve) => setTimeout(resolve, 0));

describe("QueryLimiter", () => {
  it("runs at most `limit` tasks at once and starts the next as one finishes", async () => {
    const limiter = new QueryLimiter(2);
    const started: string[] = [];
    const gates = ["a", "b", "c", "d"].map((id) => gate(started, id));
    const results = gates.map((g) => limiter.run("normal", g.task));
    await tick();
    expect(started).toEqual(["a", "b"]);
    expect(limiter.inFlight).toBe(2);
    gates[1]?.open();
    await tick();
    expect(started).toEqual(["a", "b", "c"]);
    expect(limiter.inFlight).toBe(2);
    for (const g of gates) g.open();
    expect(await Promise.all(results)).toEqual(["a", "b", "c", "d"]);
    expect(limiter.inFlight).toBe(0);
  });

  it("sends waiting queries first, then normal, then leaf, each in arrival order", async () => {
    const limiter = new QueryLimiter(1);
    const started: string[] = [];
    const first = gate(started, "first");
    const order = [
      ["leaf1", "leaf"],
      ["n1", "normal"],
      ["leaf2", "leaf"],
      ["f1", "first"],
      ["n2", "normal"],
    ] as const;
    const gates = order.map(([id]) => gate(started, id));
    const all = [limiter.run("normal", first.task), ...order.map(([, p], i) => limiter.run(p, (gates[i] as ReturnType<typeof gate>).task))];
    first.open();
    for (const g of gates) g.open();
    await Promise.all(all);
    expect(started).toEqual(["first", "f1", "n1", "n2", "leaf1", "leaf2"]);
  });

  it("hands a freed slot to the next waiter, so a caller arriving later cannot overtake it", async () => {
    const limiter = new QueryLimiter(1);
    const started: string[] = [];
    const a = gate(started, "a");
    const b = gate(started, "b");
    const c = gate(started, "c");
    const runs = [limiter.run("normal", a.task), limiter.run("normal", b.task)];
    a.open();
    runs.push(limiter.run("normal", c.task)); // arrives while a's slot is being handed to b
    b.open();
    c.open();
    await Promise.all(runs);
    expect(started).toEqual(["a", "b", "c"]);
  });

  it("frees the slot when a task fails", async () => {
    const limiter = new QueryLimiter(1);
    await expect(limiter.run("normal", () => Promise.reject(new Error("boom")))).rejects.toThrow("boom");
    expect(await limiter.run("leaf", async () => "next")).toBe("next");
    expect(limiter.inFlight).toBe(0);
  });

  it("refuses a limit below 1", () => {
    expect(() => new QueryLimiter(0)).toThrow(RangeError);
    expect(() => new QueryLimiter(Number.NaN)).toThrow(RangeError);
  });
});

describe("withPriority", () => {
  it("gives every query the priority and keeps the count of the resolver it wraps", async () => {
    const seen: Array<[string, RecordType, QueryOptions | undefined]> = [];
    const inner: Resolver = {
      query: async (name, type, opts) => {
        seen.push([name, type, opts]);
        return { kind: "nxdomain", chain: [] };
      },
      queriesSent: 7,
    };
    const leaf = withPriority(inner, "leaf");
    await leaf.query("2.0.192.bl.example", "A");
    expect(seen).toEqual([["2.0.192.bl.example", "A", { priority: "leaf" }]]);
    expect(leaf.queriesSent).toBe(7);
  });
});

describe("DohResolver queue", () => {
  const zone = Object.fromEntries(Array.from({ length: 20 }, (_, i) => [`n${i}.example.com`, { A: [`192.0.2.${i + 1}`] }]));

  it(`has at most ${MAX_QUERIES_IN_FLIGHT} requests in flight and answers every query`, async () => {
    installDohStub(zone);
    let open = 0;
    let peak = 0;
    const counting: typeof globalFetch = async (input, init) => {
      open++;
      peak = Math.max(peak, open);
      try {
        return await globalFetch(input, init);
      } finally {
        open--;
      }
    };
    const resolver = new DohResolver({ endpoints: ["https://a.test/dns-query"], fetch: counting });
    const answers = await Promise.all(Object.keys(zone).map((n) => resolver.query(n, "A")));
    expect(answers.every((a) => a.kind === "records")).toBe(true);
    expect(resolver.queriesSent).toBe(20);
    expect(peak).toBe(MAX_QUERIES_IN_FLIGHT);
  });

  it("sends a normal query waiting for a slot before leaf queries asked earlier", async () => {
    const stub = installDohStub(zone);
    const resolver = new DohResolver({ endpoints: ["https://a.test/dns-query"], fetch: globalFetch, maxInFlight: 1 });
    const leaf = withPriority(resolver, "leaf");
    await Promise.all([
      resolver.query("n0.example.com", "A"),
      leaf.query("n1.example.com", "A"),
      leaf.query("n2.example.com", "A"),
      resolver.query("n3.example.com", "A"),
    ]);
    expect(stub.queries.map((q) => q.name)).toEqual(["n0.example.com", "n3.example.com", "n1.example.com", "n2.example.com"]);
  });
});
