// The audit log page through the Worker's real fetch export: signed out sent to sign-in, the owner's
// table with who, face, verb, target, summary and address, the filters, the seq cursor, "Verify chain"
// (intact, then an altered entry named), the export of the filtered view, and a viewer refused.
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { Browser, signedInOwner } from "../support/browser";

const email = () => `audit-viewer-${crypto.randomUUID().slice(0, 8)}@example.com`;

/** Entries as if written long ago by a token, straight into D1 (the page only reads). */
async function insertEntries(teamId: number, n: number) {
  const from = Number((await env.DB.prepare("SELECT COALESCE(MAX(seq), 0) AS n FROM audit_entries WHERE team_id = ?").bind(teamId).first("n")) ?? 0);
  const statements = Array.from({ length: n }, (_, i) =>
    env.DB.prepare(
      "INSERT INTO audit_entries (team_id, seq, at, actor_kind, actor_id, actor_label, face, verb, target_type, target_id, summary, ip, user_agent) VALUES (?, ?, ?, 'token', '99', 'token bulk (eam_bulk)', 'api', 'domain.create', 'domain', ?, ?, '203.0.113.50', 'bulk/1')",
    ).bind(teamId, from + i + 1, Date.now() - 86_400_000, String(i), `bulk entry ${i}`),
  );
  await env.DB.batch(statements);
}

describe("audit log page", () => {
  it("sends a signed-out visitor to sign-in", async () => {
    const res = await new Browser().fetch("/audit?verb=domain.*");
    expect(res.status).toBe(303);
    expect(res.headers.get("location")).toBe(`/sign-in?next=${encodeURIComponent("/audit?verb=domain.*")}`);
    expect((await new Browser().fetch("/audit/export")).status).toBe(303);
  });

  it("shows who did what through which face and from where, filters it, and verifies the chain", async () => {
    const { b, teamId, address } = await signedInOwner("audit");
    await b.post("/tokens", { name: "release pipeline", scope: "full" }, "/tokens");
    const page = await (await b.fetch("/audit")).text();
    expect(page).toContain('aria-current="page">Audit log<');
    expect(page).toContain("<code>token.create</code>");
    expect(page).toContain("release pipeline");
    expect(page).toContain(address);
    expect(page).toContain("Dashboard");
    expect(page).toContain(b.ip);

    await insertEntries(teamId, 3);
    const filtered = await (await b.fetch("/audit?verb=domain.*&face=api")).text();
    expect(filtered).toContain("bulk entry 2");
    expect(filtered).not.toContain("release pipeline");
    expect(filtered).toContain('value="domain.*"');
    expect(filtered).toContain('<option value="api" selected="">REST API</option>');
    const byActor = await (await b.fetch(`/audit?actor=${encodeURIComponent(address)}`)).text();
    expect(byActor).toContain("release pipeline");
    expect(byActor).not.toContain("bulk entry");

    // The export link carries the same filters.
    expect(filtered).toContain('href="/audit/export?verb=domain.*&amp;face=api"');
    const exported = await b.fetch("/audit/export?verb=domain.*&face=api");
    expect(exported.headers.get("content-type")).toBe("application/x-ndjson; charset=utf-8");
    expect(exported.headers.get("content-disposition")).toMatch(/^attachment; filename="audit-\d+-\d{4}-\d{2}-\d{2}\.ndjson"$/);
    const lines = (await exported.text()).trimEnd().split("\n");
    expect(lines.map((l) => (JSON.parse(l) as { summary: string }).summary)).toEqual(["bulk entry 0", "bulk entry 1", "bulk entry 2"]);

    // The raw inserts above were never sealed: verify counts them as the unsealed tail.
    const verified = await (await b.fetch("/audit?verify=1")).text();
    expect(verified).toContain("The chain is intact");
    expect(verified).toContain("3 newer entries not sealed yet.");

    const seq = Number(
      await env.DB.prepare("SELECT MIN(seq) AS s FROM audit_entries WHERE team_id = ? AND verb = 'token.create' AND actor_kind = 'member'")
        .bind(teamId)
        .first("s"),
    );
    await env.DB.prepare("UPDATE audit_entries SET summary = 'nothing happened' WHERE team_id = ? AND seq = ?").bind(teamId, seq).run();
    const broken = await (await b.fetch("/audit?verify=1")).text();
    expect(broken).toContain(`The chain does not verify at entry ${seq}`);
    expect(broken).toContain("was changed after it was sealed");
  });

  it("pages older entries with a cursor and names filters it did not understand", async () => {
    const { b, teamId } = await signedInOwner("audit-pages");
    await insertEntries(teamId, 60);
    const first = await (await b.fetch("/audit?verb=domain.create")).text();
    expect(first).toContain("bulk entry 59");
    expect(first).not.toContain("bulk entry 9<");
    const older = /href="(\/audit\?verb=domain\.create&amp;before=\d+)"/.exec(first)?.[1];
    expect(older).toBeDefined();
    const second = await (await b.fetch((older ?? "").replaceAll("&amp;", "&"))).text();
    expect(second).toContain("bulk entry 9<");
    expect(second).not.toContain("bulk entry 59");
    expect(second).toContain("Older entries");

    const bad = await (await b.fetch("/audit?verb=DROP%20TABLE&from=yesterday")).text();
    expect(bad).toContain("Not understood, so not applied: verb, from.");
  });

  it("refuses a viewer the page and the export", async () => {
    const { b: owner } = await signedInOwner("audit-owner");
    const viewerEmail = email();
    expect((await owner.post("/team/invite", { email: viewerEmail, role: "viewer" }, "/team")).status).toBe(303);
    const viewer = new Browser();
    await viewer.openLatestLink(viewerEmail);
    const page = await viewer.fetch("/audit");
    expect(page.status).toBe(403);
    expect(await page.text()).toContain("Only owners and admins");
    expect((await viewer.fetch("/audit/export")).status).toBe(403);
  });
});
