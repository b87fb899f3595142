// "Would Gmail show the logo" for a subdomain with a DMARC record of its own, through the Worker's fetch
// export: the Organizational Domain must be at enforcement too (the BIMI draft's DMARC rule, which
// Mail::BIMI applies), so its record is read live; a failed read is cannot tell, never met.
import { env } from "cloudflare:workers";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { json, makeTeam } from "../../support/api";
import { insertDomain, installReceiver } from "../../support/webhooks";
import { callSite, clearHosted, PLAIN_SVG, pinClock } from "./support";

type Row = { id: string; state: string; detail: string; fix: string | null };

const base = (id: number) => `/api/v1/domains/${id}/bimi-hosting`;

/** The last check of a domain as the check stores it: the subdomain's own record, p=reject. */
async function checkedWithOwnReject(domainId: number, name: string): Promise<void> {
  const id = `chk_org_${domainId}`;
  const posture = {
    snapshot: { dmarc: { status: "present", record: "v=DMARC1; p=reject", fields: { p: "reject", sp: null, pct: null, t: false } } },
    records: { dmarc: { host: `_dmarc.${name}`, policy: "reject", inherited: false } },
  };
  await env.DB.prepare("INSERT INTO checks (id, domain_id, status, trigger, posture, queries, created_at) VALUES (?, ?, 'completed', 'manual', ?, 0, ?)")
    .bind(id, domainId, JSON.stringify(posture), Date.now())
    .run();
  await env.DB.prepare("UPDATE domains SET last_check_id = ?, last_checked_at = ? WHERE id = ?").bind(id, Date.now(), domainId).run();
}

let dns: ReturnType<typeof installReceiver>;
beforeEach(() => {
  pinClock();
  dns = installReceiver({});
});
afterEach(async () => {
  dns.stub.restore();
  await clearHosted();
});

describe("Gmail readiness: DMARC at the Organizational Domain", () => {
  it("a subdomain's own p=reject is not enough while the Organizational Domain is at p=none; it is once that enforces", async () => {
    const team = await makeTeam();
    const d = await insertDomain(team.id, { name: "news.org-dmarc.example" });
    await callSite(`${base(d.id)}/logo`, { method: "PUT", token: team.full, body: PLAIN_SVG, headers: { "content-type": "image/svg+xml" } });
    await checkedWithOwnReject(d.id, d.name);
    const enforcement = async (orgRecord: string) => {
      dns.stub.restore();
      dns = installReceiver({
        "_dmarc.news.org-dmarc.example": { TXT: ["v=DMARC1; p=reject"] },
        "_dmarc.org-dmarc.example": { TXT: [orgRecord] },
      });
      const res = await callSite(base(d.id), { token: team.readOnly });
      expect(res.status).toBe(200);
      return (await json<{ data: { gmail: { requirements: Row[] } } }>(res)).data.gmail.requirements.find((r) => r.id === "dmarc_enforcement");
    };
    const none = await enforcement("v=DMARC1; p=none; rua=mailto:d@org-dmarc.example");
    expect(none).toMatchObject({ state: "not_met", fix: expect.stringMatching(/_dmarc\.org-dmarc\.example/) });
    expect(none?.detail).toMatch(/_dmarc\.org-dmarc\.example applies p=none/);
    expect((await enforcement("v=DMARC1; p=reject; t=y"))?.state).toBe("not_met");
    const reject = await enforcement("v=DMARC1; p=quarantine");
    expect(reject).toMatchObject({ state: "met", fix: null });
  });

  it("the Organizational Domain's record unreadable: cannot tell", async () => {
    const team = await makeTeam();
    const d = await insertDomain(team.id, { name: "mail.org-fail.example" });
    await checkedWithOwnReject(d.id, d.name);
    dns.stub.restore();
    dns = installReceiver({ "_dmarc.mail.org-fail.example": { TXT: ["v=DMARC1; p=reject"] }, "_dmarc.org-fail.example": { TXT: ["v=DMARC1; p=none"] } });
    dns.stub.setFault("_dmarc.org-fail.example", "TXT", "servfail");
    const res = await callSite(base(d.id), { token: team.readOnly });
    expect(res.status).toBe(200);
    const row = (await json<{ data: { gmail: { requirements: Row[] } } }>(res)).data.gmail.requirements.find((r) => r.id === "dmarc_enforcement");
    expect(row?.state).toBe("cannot_tell");
  });
});
