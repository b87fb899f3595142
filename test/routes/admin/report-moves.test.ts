// GET /admin/report-moves (docs/decisions.md D131): what the mover still has to move, for operators
// only (ADMIN_TOKEN); a team's tokens, full or read-only, are refused like no credential.
import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { createApp } from "../../../src/app";
import { ADMIN_TOKEN, call, json, makeTeam } from "../../support/api";
import { insertDomain } from "../../support/factories";

interface Progress {
  tables: Array<{ name: string; rows: number | null }>;
  domains_left: number;
  dmarc_done: boolean;
  webhooks_done: boolean;
}

describe("GET /admin/report-moves", () => {
  it("counts the rows left in every legacy table and the domains not moved yet", async () => {
    const team = await makeTeam();
    const d = await insertDomain(team.id);
    const day = new Date().toISOString().slice(0, 10);
    await env.DB.batch([
      env.DB.prepare(
        `INSERT INTO legacy_dmarc_reports (id, domain_id, org_name, report_id, email, version, date_begin, date_end, records, messages, policy, status, created_at)
         VALUES (777001, ?, 'reporter.example', 'r-1', NULL, NULL, ?, ?, 2, 5, NULL, 'complete', ?)`,
      ).bind(d.id, Date.now() - 86_400_000, Date.now() - 1000, Date.now()),
      env.DB.prepare(
        `INSERT INTO legacy_dmarc_rows (report_id, domain_id, day, source_ip, dkim_aligned, spf_aligned, messages) VALUES
         (777001, ?1, ?2, '192.0.2.1', 1, 1, 3), (777001, ?1, ?2, '192.0.2.2', 0, 0, 2)`,
      ).bind(d.id, day),
    ]);
    const res = await call("/admin/report-moves", { token: ADMIN_TOKEN });
    expect(res.status).toBe(200);
    const { data } = await json<{ data: Progress }>(res);
    expect(data).toEqual({
      tables: [
        { name: "legacy_dmarc_rows", rows: 2 },
        { name: "legacy_dmarc_reports", rows: 1 },
        { name: "legacy_tls_failures", rows: 0 },
        { name: "legacy_tls_policies", rows: 0 },
        { name: "legacy_tls_reports", rows: 0 },
        { name: "legacy_deliveries", rows: 0 },
      ],
      domains_left: 1,
      dmarc_done: false,
      webhooks_done: false,
    });
  });

  it("401 without a credential, with a wrong one and with a team's full or read-only token", async () => {
    const team = await makeTeam();
    for (const token of [undefined, "not-the-admin-token-0123456789abcdefgh", team.full, team.readOnly]) {
      const res = await call("/admin/report-moves", { token });
      expect(res.status, String(token)).toBe(401);
      expect(await json(res)).toMatchObject({ code: "unauthenticated" });
    }
  });

  it("is a 404 when ADMIN_TOKEN is not set", async () => {
    const ctx = createExecutionContext();
    const res = await createApp().fetch(
      new Request("https://api.test/admin/report-moves", { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } }),
      { ...env, ADMIN_TOKEN: undefined },
      ctx,
    );
    await waitOnExecutionContext(ctx);
    expect(res.status).toBe(404);
  });
});
