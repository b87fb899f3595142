import { createExecutionContext, createScheduledController, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { eq } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { handleScheduled } from "../../src/cron";
import { runDkimAudit } from "../../src/services/dkim-inventory/audit";
import { dkimSelectors } from "../../src/db/schema";
import { makeTeam } from "../support/api";
import { eventsOf, insertDomain, services } from "../support/dkim-inventory";

const DAY = 86_400_000;
let teamId: number;
beforeAll(async () => {
  teamId = (await makeTeam()).id;
});

const selector = (domainId: number, name: string, o: Partial<typeof dkimSelectors.$inferInsert>) => ({
  domainId,
  selector: name,
  source: "discovered" as const,
  status: "active" as const,
  keyType: "rsa",
  keyBits: 2048,
  keyFingerprint: `fp-${name}`,
  keyFirstSeenAt: new Date(Date.now() - 200 * DAY),
  ...o,
});

describe("daily DKIM key audit", () => {
  it("emits dkim.key.stale once per stale active key, again only after 30 days", async () => {
    let now = new Date();
    const svc = services(() => now);
    const domain = await insertDomain(svc, teamId);
    await svc.db
      .insert(dkimSelectors)
      .values([
        selector(domain.id, "old", { keyFirstSeenAt: new Date(now.getTime() - 200 * DAY) }),
        selector(domain.id, "exactly180", { keyFirstSeenAt: new Date(now.getTime() - 180 * DAY) }),
        selector(domain.id, "young", { keyFirstSeenAt: new Date(now.getTime() - 100 * DAY) }),
        selector(domain.id, "revoked", { status: "revoked", keyFingerprint: null }),
        selector(domain.id, "gone", { status: "missing", keyFingerprint: null }),
      ]);

    await runDkimAudit(svc);
    let evs = (await eventsOf(svc, domain.id)).filter((e) => e.type === "dkim.key.stale");
    expect(evs.map((e) => e.data.selector).sort()).toEqual(["exactly180", "old"]);
    expect(evs.find((e) => e.data.selector === "old")?.data).toMatchObject({
      domain: { id: domain.id, name: domain.name },
      fingerprint: "fp-old",
      age_days: 200,
      threshold_days: 180,
    });
    const [old] = await svc.db
      .select()
      .from(dkimSelectors)
      .where(eq(dkimSelectors.selector, "old"))
      .then((r) => r.filter((x) => x.domainId === domain.id));
    expect(old?.staleNotifiedAt).toEqual(now);

    await runDkimAudit(svc);
    now = new Date(now.getTime() + 29 * DAY);
    await runDkimAudit(svc);
    expect((await eventsOf(svc, domain.id)).filter((e) => e.type === "dkim.key.stale")).toHaveLength(2);

    now = new Date(now.getTime() + 2 * DAY);
    await runDkimAudit(svc);
    evs = (await eventsOf(svc, domain.id)).filter((e) => e.type === "dkim.key.stale");
    expect(
      evs
        .map((e) => e.data.selector)
        .slice(2)
        .sort(),
      "re-notified after 30 days",
    ).toEqual(["exactly180", "old"]);
  });

  it("stops at the per-run cap and continues on the next run", async () => {
    const svc = services();
    const domain = await insertDomain(svc, teamId);
    await svc.db.insert(dkimSelectors).values(Array.from({ length: 5 }, (_, i) => selector(domain.id, `s${i}`, {})));
    const first = await runDkimAudit(svc, { maxPerRun: 3 });
    expect(first.capped).toBe(true);
    await runDkimAudit(svc, { maxPerRun: 3 });
    await runDkimAudit(svc, { maxPerRun: 3 });
    const evs = (await eventsOf(svc, domain.id)).filter((e) => e.type === "dkim.key.stale");
    expect(evs.map((e) => e.data.selector).sort()).toEqual(["s0", "s1", "s2", "s3", "s4"]);
  });

  it("runs from the daily cron trigger", async () => {
    const svc = services();
    const domain = await insertDomain(svc, teamId);
    await svc.db.insert(dkimSelectors).values(selector(domain.id, "cron", {}));
    const ctx = createExecutionContext();
    await handleScheduled(createScheduledController({ cron: "17 3 * * *", scheduledTime: Date.now() }), env, ctx);
    await waitOnExecutionContext(ctx);
    expect((await eventsOf(svc, domain.id)).map((e) => [e.type, e.data.selector])).toEqual([["dkim.key.stale", "cron"]]);
  });
});
