// GET /domains/{domain}/dmarc/failures: failure samples mailed to the report address come out newest
// first, paginated, filtered by day; tenancy, tokens and bad input.
import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it, vi } from "vitest";
import { receiveReportMail } from "../../../src/email";
import { DAY_MS } from "../../../src/lib/time";
import { createServices } from "../../../src/services";
import { insertFailure, type NewFailure } from "../../../src/services/failure-reports/store";
import { BODY_MARKER, dmarcFailureSample } from "../../fixtures/arf";
import { call, json, makeTeam, type TestTeam } from "../../support/api";
import { insertDomain, type TestDomain } from "../../support/factories";

interface Sample {
  id: number;
  received_at: string;
  reporting_org: string | null;
  arrival_date: string | null;
  source_ip: string | null;
  auth_failure: string | null;
  auth_results: string | null;
  identity_alignment: string | null;
  dkim_domain: string | null;
  dkim_selector: string | null;
  delivery_result: string | null;
}
type Page = { data: Sample[]; meta: { current_page: number; per_page: number; total: number; last_page: number } };

const sample = (ip: string): NewFailure => ({
  reportingOrg: "r.example",
  arrivalDate: null,
  sourceIp: ip,
  authFailure: "dmarc",
  authResults: null,
  identityAlignment: "none",
  dkimDomain: null,
  dkimSelector: null,
  deliveryResult: "reject",
});
const dayStr = (ms: number) => new Date(ms).toISOString().slice(0, 10);

let team: TestTeam;
let d: TestDomain;
const now = Date.now();

beforeAll(async () => {
  team = await makeTeam();
  d = await insertDomain(team.id);
  const svc = createServices(env);
  // Three older samples (10, 5 and 2 days ago), then one mailed now through the email handler.
  for (const [ago, ip] of [
    [10, "198.51.100.10"],
    [5, "198.51.100.5"],
    [2, "198.51.100.2"],
  ] as const) {
    await insertFailure(svc, d.id, sample(ip), new Date(now - ago * DAY_MS));
  }
  const bytes = new TextEncoder().encode(dmarcFailureSample(d.address, d.name, { ip: "203.0.113.5" }));
  const setReject = vi.fn();
  const message = {
    from: "dmarc-noreply@mail.big-receiver.example",
    to: d.address,
    headers: new Headers(),
    raw: new Blob([bytes]).stream(),
    rawSize: bytes.length,
    setReject,
  } as unknown as ForwardableEmailMessage;
  await receiveReportMail(svc, message);
  expect(setReject).not.toHaveBeenCalled();
});

const list = (query = "", token = team.full, id = d.id) => call(`/api/v1/domains/${id}/dmarc/failures${query}`, { token });

describe("GET /domains/{domain}/dmarc/failures", () => {
  it("lists the samples newest first with every kept field, and nothing of the original message", async () => {
    const res = await list();
    expect(res.status).toBe(200);
    const body = await json<Page>(res);
    expect(body.meta).toEqual({ current_page: 1, per_page: 25, total: 4, last_page: 1 });
    expect(body.data.map((s) => s.source_ip)).toEqual(["203.0.113.5", "198.51.100.2", "198.51.100.5", "198.51.100.10"]);
    expect(body.data[0]).toMatchObject({
      reporting_org: "mail.big-receiver.example",
      arrival_date: "2026-11-19T10:00:00.000Z",
      auth_failure: "dmarc",
      identity_alignment: "dkim, spf",
      dkim_domain: d.name,
      dkim_selector: "s2026",
      delivery_result: "delivered",
    });
    expect(body.data[0]?.auth_results).toContain("dmarc=fail");
    expect(JSON.stringify(body)).not.toContain(BODY_MARKER);
  });

  it("paginates with page/per_page and filters by received day (from/to)", async () => {
    const p2 = await json<Page>(await list("?per_page=3&page=2"));
    expect(p2.meta).toEqual({ current_page: 2, per_page: 3, total: 4, last_page: 2 });
    expect(p2.data.map((s) => s.source_ip)).toEqual(["198.51.100.10"]);
    const window = await json<Page>(await list(`?from=${dayStr(now - 6 * DAY_MS)}&to=${dayStr(now - 2 * DAY_MS)}`));
    expect(window.data.map((s) => s.source_ip)).toEqual(["198.51.100.2", "198.51.100.5"]);
    expect(window.meta.total).toBe(2);
    const recent = await json<Page>(await list(`?from=${dayStr(now)}`));
    expect(recent.data.map((s) => s.source_ip)).toEqual(["203.0.113.5"]);
  });

  it("refuses bad input with 422 naming the field", async () => {
    const cases: Array<[string, string]> = [
      ["?per_page=0", "per_page"],
      ["?per_page=201", "per_page"],
      ["?page=x", "page"],
      ["?from=2026-13-01", "from"],
      ["?from=2026-02-30", "from"],
      [`?from=${dayStr(now - 40 * DAY_MS)}`, "from"],
      [`?to=${dayStr(now + 2 * DAY_MS)}`, "to"],
      [`?from=${dayStr(now - DAY_MS)}&to=${dayStr(now - 3 * DAY_MS)}`, "to"],
    ];
    for (const [q, field] of cases) {
      const res = await list(q);
      expect(res.status, q).toBe(422);
      const body = await json<{ code: string; message: string; errors: Record<string, string[]> }>(res);
      expect(body.code, q).toBe("validation_failed");
      expect(body.errors[field], q).toBeTruthy();
    }
  });

  it("answers an empty page for a domain without samples", async () => {
    const other = await insertDomain(team.id);
    const body = await json<Page>(await list("", team.full, other.id));
    expect(body).toEqual({ data: [], meta: { current_page: 1, per_page: 25, total: 0, last_page: 1 } });
  });

  it("security: no token 401, bad token 401, read-only token reads, another team's domain and a bad id are 404", async () => {
    expect((await call(`/api/v1/domains/${d.id}/dmarc/failures`)).status).toBe(401);
    expect((await list("", "emk_live_not-a-real-token")).status).toBe(401);
    expect((await list("", team.readOnly)).status).toBe(200);
    const stranger = await makeTeam();
    const res = await list("", stranger.full);
    expect(res.status).toBe(404);
    expect(JSON.stringify(await json(res))).not.toContain("203.0.113.5");
    expect((await list("", team.full, 999_999_999)).status).toBe(404);
    expect((await call("/api/v1/domains/abc/dmarc/failures", { token: team.full })).status).toBe(404);
  });

  it("the suggested DMARC record asks for failure reports only with ruf=true", async () => {
    const record = async (q: string) => {
      const res = await call(`/api/v1/domains/${d.id}/dmarc${q}`, { token: team.readOnly });
      expect(res.status, q).toBe(200);
      return (await json<{ data: { suggested_record: string } }>(res)).data.suggested_record;
    };
    expect(await record("")).toBe(`v=DMARC1; p=none; rua=mailto:${d.address}`);
    expect(await record("?ruf=false")).toBe(`v=DMARC1; p=none; rua=mailto:${d.address}`);
    expect(await record("?ruf=true")).toBe(`v=DMARC1; p=none; rua=mailto:${d.address}; ruf=mailto:${d.address}; fo=1`);
    const bad = await call(`/api/v1/domains/${d.id}/dmarc?ruf=yes`, { token: team.full });
    expect(bad.status).toBe(422);
    expect((await json<{ errors: Record<string, string[]> }>(bad)).errors.ruf).toBeTruthy();
  });

  it("is in the OpenAPI document with its example", async () => {
    const doc = await json<{ paths: Record<string, { get?: { operationId: string } }>; components: { schemas: Record<string, { example?: unknown }> } }>(
      await call("/api/v1/openapi.json"),
    );
    expect(doc.paths["/api/v1/domains/{domain}/dmarc/failures"]?.get?.operationId).toBe("listDmarcFailures");
    expect(doc.components.schemas.DmarcFailureSample?.example).toBeTruthy();
  });
});
