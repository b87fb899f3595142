// The audit log over REST: filters, the cursor, the NDJSON export, verify (intact, an altered entry, a
// removed one, removed newest entries), retention keeps verify passing, and who may read it.
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { commit, type Statement } from "../../../src/services/commit";
import { type AuditInput, auditStatement } from "../../../src/services/audit/record";
import { listAuditEntries, verifyAuditChain } from "../../../src/services/audit/read";
import { pruneAuditLogs } from "../../../src/services/audit/retention";
import { sealTeam, sweepUnsealed } from "../../../src/services/audit/seal";
import type { ServiceContext } from "../../../src/services/context";
import { call, json, makeTeam } from "../../support/api";
import { testServices } from "../../support/webhooks";

const svc = testServices();
const DAY = 86_400_000;

const member = (teamId: number, email = "alice@example.com"): ServiceContext => ({
  teamId,
  scope: "full",
  actor: { kind: "session", id: "42" },
  origin: { face: "dashboard", label: email, ip: "203.0.113.9", userAgent: "Mozilla/5.0 (test)" },
});
const token = (teamId: number): ServiceContext => ({
  teamId,
  scope: "full",
  actor: { kind: "token", id: "7" },
  origin: { face: "api", label: "token ci (eam_abcd)", ip: "2001:db8::1", userAgent: "curl/8.5" },
});

/**
 * auditStatement made batchable: drizzle 0.45's D1 batch binds a raw statement through a prepared `stmt`
 * it never sets (the services do the same through src/services/audit-when.ts).
 */
function entry(ctx: ServiceContext, input: AuditInput, at?: Date): Statement {
  const statement = auditStatement(svc, ctx, input, at);
  const raw = statement as unknown as { getQuery(): { sql: string }; stmt?: D1PreparedStatement };
  raw.stmt = env.DB.prepare(raw.getQuery().sql);
  return statement;
}

/** Writes an entry as a change would (in its own commit, which seals it). */
async function write(ctx: ServiceContext, verb: string, target: { type: string; id: string | number } | null, summary: string, at?: Date) {
  await commit(svc, [entry(ctx, { verb, target, summary }, at)]);
}

interface Entry {
  seq: number;
  at: string;
  actor: { kind: string; id: string; label: string };
  face: string;
  verb: string;
  target: { type: string; id: string | null } | null;
  summary: string;
  ip: string | null;
  user_agent: string | null;
  hash: string | null;
}
type Page = { data: Entry[]; meta: { next_before: number | null } };
type Verify = { data: { ok: boolean; checked: number; unsealed: number; anchor: { seq: number }; problem: { seq: number; reason: string } | null } };

/** A team with four entries after whatever its creation recorded (seq base+1 to base+4). */
async function seeded() {
  const team = await makeTeam("pro");
  const base = await maxSeq(team.id);
  await write(member(team.id), "domain.create", { type: "domain", id: 13 }, "added example.com");
  await write(token(team.id), "webhook_endpoint.create", { type: "webhook_endpoint", id: 5 }, "endpoint https://hooks.example.com/… events: alert.*");
  await write(member(team.id, "bob@example.com"), "member.role_change", { type: "member", id: 9 }, "role viewer -> admin for carol@example.com");
  await write(token(team.id), "domain.delete", { type: "domain", id: 13 }, "deleted example.com");
  return { ...team, base, seq: (n: number) => base + n };
}

const maxSeq = async (teamId: number) =>
  Number(await env.DB.prepare("SELECT COALESCE(MAX(seq), 0) AS n FROM audit_entries WHERE team_id = ?").bind(teamId).first("n"));
const list = async (tok: string, query = "") => json<Page>(await call(`/api/v1/audit${query}`, { token: tok }));
const verify = async (tok: string) => json<Verify>(await call("/api/v1/audit/verify", { token: tok }));
/** Only the entries this file wrote (a team's creation records its own). */
const ours = (p: Page) => p.data.filter((e) => e.actor.id === "42" || e.actor.id === "7");

describe("GET /api/v1/audit", () => {
  it("lists newest first with who, face, address and the chain hash", async () => {
    const team = await seeded();
    const page = await list(team.full);
    expect(page.data.slice(0, 4).map((e) => e.verb)).toEqual(["domain.delete", "member.role_change", "webhook_endpoint.create", "domain.create"]);
    const first = page.data[3]!;
    expect(first).toMatchObject({
      seq: team.seq(1),
      actor: { kind: "member", id: "42", label: "alice@example.com" },
      face: "dashboard",
      target: { type: "domain", id: "13" },
      summary: "added example.com",
      ip: "203.0.113.9",
      user_agent: "Mozilla/5.0 (test)",
    });
    expect(first.hash).toMatch(/^[0-9a-f]{64}$/);
    expect(page.data[0]).toMatchObject({ actor: { kind: "token", label: "token ci (eam_abcd)" }, face: "api", ip: "2001:db8::1" });
    expect(page.data.map((e) => e.seq)).toEqual(Array.from({ length: team.seq(4) }, (_, i) => team.seq(4) - i));
    expect(page.meta.next_before).toBeNull();
  });

  it("filters by actor, verb family, target and time", async () => {
    const team = await seeded();
    const seqs = async (q: string) => (await list(team.full, q)).data.map((e) => e.seq);
    expect(await seqs("?actor=token%20ci%20(eam_abcd)")).toEqual([team.seq(4), team.seq(2)]);
    expect(await seqs("?actor=42")).toEqual([team.seq(3), team.seq(1)]);
    expect((await list(team.full, "?verb=domain.*")).data.map((e) => e.verb)).toEqual(["domain.delete", "domain.create"]);
    expect(await seqs("?verb=domain.create")).toEqual([team.seq(1)]);
    expect(await seqs("?target_type=domain&target_id=13")).toEqual([team.seq(4), team.seq(1)]);
    expect(await seqs("?face=dashboard&actor_kind=member")).toEqual([team.seq(3), team.seq(1)]);
    const past = new Date(Date.now() - 10 * DAY).toISOString();
    const future = new Date(Date.now() + DAY).toISOString();
    expect(await seqs(`?from=${encodeURIComponent(future)}`)).toEqual([]);
    expect(ours(await list(team.full, `?from=${encodeURIComponent(past)}&to=${encodeURIComponent(future)}`))).toHaveLength(4);
  });

  it("a verb family is an exact prefix: the underscore in mta_sts_hosting.* matches only itself", async () => {
    const team = await makeTeam("pro");
    await write(member(team.id), "mta_sts_hosting.enable", { type: "domain", id: 1 }, "hosting on");
    await write(member(team.id), "mtaXsts_hosting.enable", { type: "domain", id: 1 }, "a verb that differs where the family has _");
    expect((await list(team.full, "?verb=mta_sts_hosting.*")).data.map((e) => e.verb)).toEqual(["mta_sts_hosting.enable"]);
  });

  it("pages with a cursor that entries written meanwhile do not shift", async () => {
    const team = await seeded();
    const one = await list(team.full, "?limit=2");
    expect(one.data.map((e) => e.seq)).toEqual([team.seq(4), team.seq(3)]);
    expect(one.meta.next_before).toBe(team.seq(3));
    await write(member(team.id), "domain.create", { type: "domain", id: 14 }, "added example.org");
    const two = await list(team.full, `?limit=2&before=${one.meta.next_before}`);
    expect(two.data.map((e) => e.seq)).toEqual([team.seq(2), team.seq(1)]);
    let cursor = two.meta.next_before;
    const rest: number[] = [];
    while (cursor !== null) {
      const page = await list(team.full, `?limit=2&before=${cursor}`);
      rest.push(...page.data.map((e) => e.seq));
      cursor = page.meta.next_before;
    }
    expect(rest).toEqual(Array.from({ length: team.base }, (_, i) => team.base - i));
  });

  it("refuses bad filters with 422", async () => {
    const team = await makeTeam();
    for (const q of ["?verb=DROP%20TABLE", "?verb=domain.%25", "?from=yesterday", "?limit=0", "?limit=201", "?actor_kind=robot", "?before=0"]) {
      const res = await call(`/api/v1/audit${q}`, { token: team.full });
      expect(res.status, q).toBe(422);
    }
  });

  it("a read-only token gets 403 on every audit operation; another team's entries are never visible", async () => {
    const team = await seeded();
    for (const path of ["/api/v1/audit", "/api/v1/audit/export", "/api/v1/audit/verify"]) {
      const res = await call(path, { token: team.readOnly });
      expect(res.status, path).toBe(403);
      expect((await json<{ code: string }>(res)).code).toBe("forbidden");
    }
    const other = await makeTeam();
    expect(ours(await list(other.full))).toEqual([]);
    expect((await list(other.full, "?target_type=domain&target_id=13")).data).toEqual([]);
    const exported = await (await call("/api/v1/audit/export", { token: other.full })).text();
    expect(exported).not.toContain("alice@example.com");
  });
});

describe("GET /api/v1/audit/export", () => {
  it("streams NDJSON oldest first with the same filters, as an attachment", async () => {
    const team = await seeded();
    const res = await call("/api/v1/audit/export?verb=domain.*", { token: team.full });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("application/x-ndjson; charset=utf-8");
    expect(res.headers.get("content-disposition")).toMatch(new RegExp(`^attachment; filename="audit-${team.id}-\\d{4}-\\d{2}-\\d{2}\\.ndjson"$`));
    const text = await res.text();
    expect(text.endsWith("\n")).toBe(true);
    const lines = text
      .trimEnd()
      .split("\n")
      .map((l) => JSON.parse(l) as Entry);
    expect(lines.map((e) => [e.seq, e.verb])).toEqual([
      [team.seq(1), "domain.create"],
      [team.seq(4), "domain.delete"],
    ]);
    expect(lines[0]?.hash).toMatch(/^[0-9a-f]{64}$/);
  });

  it("pages through a log longer than one read", async () => {
    const team = await makeTeam();
    const base = await maxSeq(team.id);
    const ctx = token(team.id);
    for (let i = 0; i < 6; i++) {
      await commit(svc, [
        entry(ctx, { verb: "domain.create", target: null, summary: `batch ${i}` }),
        ...Array.from({ length: 99 }, (_, j) => entry(ctx, { verb: "domain.create", target: null, summary: `${i}-${j}` })),
      ]);
    }
    const lines = (await (await call("/api/v1/audit/export", { token: team.full })).text()).trimEnd().split("\n");
    expect(lines).toHaveLength(base + 600);
    expect(lines.map((l) => (JSON.parse(l) as Entry).seq)).toEqual(Array.from({ length: base + 600 }, (_, i) => i + 1));
    expect((await verify(team.full)).data).toMatchObject({ ok: true, checked: base + 600, unsealed: 0 });
  });
});

describe("GET /api/v1/audit/verify", () => {
  it("is ok for an intact chain and reports an unsealed tail", async () => {
    const team = await seeded();
    expect((await verify(team.full)).data).toMatchObject({ ok: true, checked: team.seq(4), unsealed: 0, problem: null });
    // An entry written without the commit path's seal waits in the tail until the sweep seals it.
    await svc.db.batch([entry(token(team.id), { verb: "domain.create", target: null, summary: "late" })]);
    expect((await verify(team.full)).data).toMatchObject({ ok: true, checked: team.seq(4), unsealed: 1 });
    await sweepUnsealed(svc);
    expect((await verify(team.full)).data).toMatchObject({ ok: true, checked: team.seq(5), unsealed: 0 });
  });

  it("sealers racing never fork the chain", async () => {
    const team = await seeded();
    await svc.db.batch(
      Array.from({ length: 30 }, (_, i) => entry(token(team.id), { verb: "domain.create", target: null, summary: `raced ${i}` })) as [
        Statement,
        ...Statement[],
      ],
    );
    const sealed = await Promise.all(Array.from({ length: 6 }, () => sealTeam(svc, team.id)));
    expect(sealed.reduce((a, n) => a + n, 0)).toBe(30);
    expect((await verify(team.full)).data).toMatchObject({ ok: true, checked: team.seq(4) + 30, unsealed: 0 });
  });

  it("names an entry altered with a raw UPDATE", async () => {
    const team = await seeded();
    await env.DB.prepare("UPDATE audit_entries SET summary = 'nothing to see' WHERE team_id = ? AND seq = ?").bind(team.id, team.seq(2)).run();
    expect((await verify(team.full)).data).toMatchObject({ ok: false, checked: team.seq(1), problem: { seq: team.seq(2), reason: "altered" } });
  });

  it("names a deleted entry as a gap, and removed newest entries as a head mismatch", async () => {
    const team = await seeded();
    await env.DB.prepare("DELETE FROM audit_entries WHERE team_id = ? AND seq = ?").bind(team.id, team.seq(3)).run();
    expect((await verify(team.full)).data).toMatchObject({ ok: false, problem: { seq: team.seq(3), reason: "gap" } });
    const other = await seeded();
    await env.DB.prepare("DELETE FROM audit_entries WHERE team_id = ? AND seq = ?").bind(other.id, other.seq(4)).run();
    expect((await verify(other.full)).data).toMatchObject({ ok: false, checked: other.seq(3), problem: { seq: other.seq(4), reason: "head_mismatch" } });
  });

  it("an entry moved to another team does not verify in either", async () => {
    const team = await seeded();
    const other = await makeTeam();
    const next = (await maxSeq(other.id)) + 1;
    await env.DB.prepare("UPDATE audit_entries SET team_id = ?, seq = ? WHERE team_id = ? AND seq = ?").bind(other.id, next, team.id, team.seq(1)).run();
    expect((await verify(team.full)).data.problem).toMatchObject({ seq: team.seq(1), reason: "gap" });
    expect((await verify(other.full)).data.problem).toMatchObject({ seq: next, reason: "head_mismatch" });
    // Sealing the other team's log does not launder it: the moved entry's hash is not the one it would get there.
    await sweepUnsealed(svc);
    expect((await verify(other.full)).data.problem).toMatchObject({ seq: next, reason: "altered" });
  });
});

describe("retention", () => {
  /** A team made without the admin API, so its log holds only what the test writes. */
  async function bareTeam(plan: "starter" | "pro") {
    const id = Number(
      await env.DB.prepare("INSERT INTO teams (name, plan, owner_email, created_at) VALUES (?, ?, 'o@example.com', ?) RETURNING id")
        .bind(`retention-${crypto.randomUUID()}`, plan, Date.now())
        .first("id"),
    );
    return { id, ctx: member(id) };
  }
  const summaries = async (ctx: ServiceContext) => (await listAuditEntries(svc, ctx)).rows.map((e) => e.summary);

  it("prunes entries older than the plan keeps (starter: 90 days) and moves the anchor, so verify still passes", async () => {
    const { ctx } = await bareTeam("starter");
    const old = new Date(Date.now() - 100 * DAY);
    await write(ctx, "domain.create", null, "old 1", old);
    await write(ctx, "domain.create", null, "old 2", old);
    await write(ctx, "domain.create", null, "recent", new Date(Date.now() - 10 * DAY));
    await pruneAuditLogs(svc);
    expect(await summaries(ctx)).toEqual(["recent"]);
    expect(await verifyAuditChain(svc, ctx)).toMatchObject({ ok: true, checked: 1, anchor: { seq: 2 } });
    // The next entry continues the numbering after the anchor; verify still passes.
    await write(ctx, "domain.create", null, "new");
    expect((await listAuditEntries(svc, ctx)).rows.map((e) => e.seq)).toEqual([4, 3]);
    expect(await verifyAuditChain(svc, ctx)).toMatchObject({ ok: true, checked: 2 });
  });

  it("numbering continues after the anchor when every entry was pruned", async () => {
    const { ctx } = await bareTeam("starter");
    await write(ctx, "domain.create", null, "old", new Date(Date.now() - 100 * DAY));
    await pruneAuditLogs(svc);
    expect(await summaries(ctx)).toEqual([]);
    await write(ctx, "domain.create", null, "new");
    expect((await listAuditEntries(svc, ctx)).rows.map((e) => e.seq)).toEqual([2]);
    expect(await verifyAuditChain(svc, ctx)).toMatchObject({ ok: true, checked: 1, anchor: { seq: 1 } });
  });

  it("keeps what the plan allows (pro: 365 days) and never prunes unsealed entries", async () => {
    const { id, ctx } = await bareTeam("pro");
    await write(ctx, "domain.create", null, "200 days", new Date(Date.now() - 200 * DAY));
    await svc.db.batch([entry(ctx, { verb: "domain.create", summary: "unsealed, 400 days" }, new Date(Date.now() - 400 * DAY))]);
    await pruneAuditLogs(svc);
    expect(await summaries(ctx)).toEqual(["unsealed, 400 days", "200 days"]);
    await sealTeam(svc, id);
    expect(await verifyAuditChain(svc, ctx)).toMatchObject({ ok: true, checked: 2 });
  });
});
