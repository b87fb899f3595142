// Every fix of the remediation plan proven by applying it (issue 29 section 4, docs/decisions.md D170-D172):
// for each weak zone, the plan from GET /intel/domain is published step by step into the DNS stub's zone
// (and its files served over HTTPS), the domain is analysed again after each step through the Worker, and
// the step must close what it says, add nothing above Info, not lower the score and land on its projected
// score. After the plan the domain is at grade A, or the plan names what stands in the way; a finding that
// DNS alone can fix never remains without a step.
import { createExecutionContext, createMessageBatch, getQueueResult } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import worker from "../../src/index";
import type { CategorizedFinding } from "../../src/core/posture/types";
import type { PlanRecord, PlanStep, RemediationPlan } from "../../src/core/posture/plan/types";
import { WEAK_ZONES, type WeakZone, weakZone } from "../fixtures/weak-zones";
import { call, json, makeTeam, type TestTeam } from "../support/api";
import { signedInOwner } from "../support/browser";
import { installDohStub, type StubRecords, type StubZone } from "../support/doh-stub";
import { insertDomain } from "../support/factories";
import { callTool, connect, dataOf } from "../mcp/support";

interface Intel {
  score: number;
  grade: string;
  findings: CategorizedFinding[];
  plan: RemediationPlan;
}

/** A public address for a policy host the plan makes the owner serve (the fetch refuses private targets). */
const POLICY_HOST_ADDRESS = "93.184.216.34";

/** Findings no DNS record can remove: a key in the signer, a blocklist listing, DNSSEC at the registrar, a
 *  BIMI mark certificate from a certification authority, an answer that did not come. Every other finding
 *  has a record that fixes it. */
const dnsCannotFix = (f: CategorizedFinding, nullMx: boolean): boolean =>
  ["dkim", "dnsbl", "blacklists", "dane"].includes(f.category) ||
  f.rule === "bimi.no-certificate" ||
  f.rule.endsWith("temperror") ||
  // A domain that receives no mail (RFC 7505) has no mailbox of its own for reports: where they go is the owner's choice.
  (nullMx && f.rule === "dmarc.rua-missing");

let team: TestTeam;
beforeAll(async () => {
  team = await makeTeam();
});

async function intel(domain: string): Promise<Intel> {
  const res = await call(`/api/v1/intel/domain?domain=${domain}&full=1`, { token: team.full });
  expect(res.status, `${domain}: intel answered ${res.status}`).toBe(200);
  return (await json<{ data: Intel }>(res)).data;
}

const norm = (name: string) => name.toLowerCase().replace(/\.$/, "");
const joined = (t: string | string[]) => (typeof t === "string" ? t : t.join(""));
/** A TXT record's kind: its version tag (v=spf1, v=DMARC1, ...), else the record itself. */
const kind = (t: string) => /^\s*v\s*=\s*([a-z0-9.]+)/i.exec(t)?.[1]?.toLowerCase() ?? t;

/** The zone the stub answers from, edited as an owner would edit it. */
class LiveZone {
  readonly zone: StubZone;
  readonly files = new Map<string, string>();

  constructor(private readonly w: WeakZone) {
    this.zone = structuredClone(w.zone);
    for (const [url, body] of Object.entries(w.files)) this.files.set(url, body);
  }

  private entry(host: string): StubRecords {
    const key = norm(host);
    const e = this.zone[key];
    if (e !== undefined && e !== "nxdomain") return e;
    const fresh: StubRecords = {};
    this.zone[key] = fresh;
    return fresh;
  }

  /** Publishes a step: a TXT record replaces those of its kind at its name, MX records replace the MX set,
   *  removals delete, files are served, and a policy host gets an address. */
  apply(step: PlanStep): void {
    const mxByHost = new Map<string, PlanRecord[]>();
    for (const r of step.records) {
      const e = this.entry(r.host);
      if (r.type === "TXT") {
        e.TXT = [...(e.TXT ?? []).filter((t) => kind(joined(t)) !== kind(r.value)), r.strings ?? r.value];
      } else if (r.type === "MX") {
        mxByHost.set(r.host, [...(mxByHost.get(r.host) ?? []), r]);
      } else {
        e.CNAME = r.value;
      }
    }
    for (const [host, rs] of mxByHost) {
      this.entry(host).MX = rs.map((r) => {
        const [pref, exchange] = r.value.split(/\s+/);
        return { preference: Number(pref), exchange: exchange ?? "" };
      });
    }
    for (const r of step.remove) {
      const e = this.entry(r.host);
      if (r.type === "TXT") e.TXT = (e.TXT ?? []).filter((t) => joined(t) !== r.value);
      if (r.type === "MX") e.MX = (e.MX ?? []).filter((m) => norm(m.exchange) !== norm(r.value.split(/\s+/)[1] ?? ""));
    }
    for (const f of step.files) {
      this.files.set(f.url, f.body);
      const host = new URL(f.url).hostname;
      if (host === `mta-sts.${this.w.domain}` && (this.entry(host).A ?? []).length === 0) this.entry(host).A = [POLICY_HOST_ADDRESS];
    }
  }

  serve = (req: Request): Response => {
    const body = this.files.get(req.url);
    return body === undefined ? new Response("not found", { status: 404 }) : new Response(body, { headers: { "content-type": "text/plain" } });
  };
}

const aboveInfo = (f: CategorizedFinding) => f.severity !== "Info";
const gradeA = (g: string | null) => g === "A" || g === "A+";

describe("the remediation plan, applied to every weak zone", () => {
  it("has at least 25 weak zones with distinct domains", () => {
    expect(WEAK_ZONES.length).toBeGreaterThanOrEqual(25);
    expect(new Set(WEAK_ZONES.map((z) => z.domain)).size).toBe(WEAK_ZONES.length);
  });

  for (const w of WEAK_ZONES) {
    it(`${w.name} (${w.domain})`, { timeout: 120_000 }, async () => {
      const live = new LiveZone(w);
      installDohStub(live.zone, { passthrough: live.serve });
      const first = await intel(w.domain);
      const plan = first.plan;
      const nullMx = first.findings.some((f) => f.rule === "mx.null-mx");
      const at = (s: PlanStep) => `${w.domain}: step ${s.id}`;
      expect(plan.steps.length, `${w.domain}: a weak zone gets a plan`).toBeGreaterThan(0);
      expect(plan.score).toBe(first.score);

      // A finding DNS alone can fix is closed by some step.
      const closedByPlan = new Set(plan.steps.flatMap((s) => s.closes));
      const withoutStep = first.findings.filter((f) => aboveInfo(f) && !dnsCannotFix(f, nullMx) && !closedByPlan.has(f.rule)).map((f) => f.rule);
      expect(withoutStep, `${w.domain}: DNS-fixable findings without a step`).toEqual([]);

      let prev = first;
      for (const [i, step] of plan.steps.entries()) {
        live.apply(step);
        const next = await intel(w.domain);
        const rules = new Set(next.findings.map((f) => f.rule));
        expect(
          step.closes.filter((r) => rules.has(r)),
          `${at(step)} leaves the findings it closes`,
        ).toEqual([]);
        const before = new Set(prev.findings.map((f) => f.rule));
        const closedLater = new Set(plan.steps.slice(i + 1).flatMap((s) => s.closes));
        // A finding only a person can resolve may appear when the step names that decision (a parked domain's report mailbox).
        const decided = (f: CategorizedFinding) => step.decision !== null && dnsCannotFix(f, nullMx);
        const added = next.findings.filter((f) => aboveInfo(f) && !before.has(f.rule) && !closedLater.has(f.rule) && !decided(f)).map((f) => f.rule);
        expect(added, `${at(step)} adds findings`).toEqual([]);
        expect(next.score, `${at(step)} lowers the score`).toBeGreaterThanOrEqual(prev.score);
        expect({ score: next.score, grade: next.grade }, `${at(step)}: projected score`).toEqual({ score: step.score_after, grade: step.grade_after });
        prev = next;
      }

      expect({ score: prev.score, grade: prev.grade }, `${w.domain}: final score`).toEqual(plan.final);
      const open = prev.findings.filter(aboveInfo);
      expect(
        open.filter((f) => !dnsCannotFix(f, nullMx)).map((f) => f.rule),
        `${w.domain}: findings DNS can fix still open after the plan`,
      ).toEqual([]);
      if (!gradeA(prev.grade)) {
        expect(plan.blockers.length, `${w.domain}: ends at ${prev.grade} without naming what stands in the way`).toBeGreaterThan(0);
      }
      expect(plan.unresolved.map((u) => u.rule).sort()).toEqual(open.map((f) => f.rule).sort());
    });
  }
});

/** As hono's JSX writes text and attribute values. */
const html = (s: string) => s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;").replace(/'/g, "&#39;");

describe("the stored plan of a monitored domain", () => {
  it("is the same in GET /domains/{id}, on the dashboard page and from the agent tool get_domain_posture", { timeout: 60_000 }, async () => {
    const w = weakZone("monitored", "monitored-plan", {
      spf: "v=spf1 mx include:_spf.gmail-like.test include:spf.protection.outlook-like.test include:mail.zendesk-like.test include:_spf.salesforce-like.test include:sendgrid-like.test ?all",
      dmarc: "v=DMARC1; p=none",
      sts: "none",
    });
    const live = new LiveZone(w);
    installDohStub(live.zone, { passthrough: live.serve });
    const { b, teamId } = await signedInOwner("plan");
    const made = await b.post("/tokens", { name: "plan proof", scope: "read_only" }, "/tokens");
    const token = /<code id="token-value">(eam_[0-9A-Za-z]{40})<\/code>/.exec(await made.text())?.[1] ?? "";
    expect(token).not.toBe("");
    const domain = await insertDomain(teamId, { name: w.domain });

    // One check through the exported queue handler, as the broker delivers it.
    const body = { domain_id: domain.id, check_id: `chk_plan_${domain.id}`, trigger: "manual" as const };
    const batch = createMessageBatch("emailauth-checks", [{ id: `m-${body.check_id}`, timestamp: new Date(), attempts: 1, body }]);
    const ctx = createExecutionContext();
    await worker.queue(batch, env, ctx);
    expect((await getQueueResult(batch, ctx)).explicitAcks).toHaveLength(1);

    const res = await call(`/api/v1/domains/${domain.id}`, { token });
    expect(res.status).toBe(200);
    const plan = (await json<{ data: { plan: RemediationPlan | null } }>(res)).data.plan;
    if (!plan) throw new Error("the check stored no plan");
    // The monitored domain's DMARC steps send reports to the service first (its address at reports.test).
    const dmarc = plan.steps.filter((s) => s.category === "dmarc").flatMap((s) => s.records.map((r) => r.value));
    expect(dmarc.length).toBeGreaterThan(0);
    for (const v of dmarc) expect(v).toContain(`rua=mailto:${domain.address}`);
    expect(plan.steps.map((s) => s.id)).toEqual(expect.arrayContaining(["spf-limits", "mta-sts"]));

    const page = await (await b.fetch(`/domains/${domain.id}`)).text();
    for (const step of plan.steps) {
      expect(page, `${w.domain}: the page shows step ${step.id}`).toContain(html(step.title));
      for (const r of step.records) {
        const shown = r.strings && r.strings.length > 1 ? r.strings.map((x) => `"${x}"`).join(" ") : r.value;
        expect(page, `${w.domain}: the page shows ${r.host} ${r.type}`).toContain(html(shown));
      }
      for (const f of step.files) expect(page).toContain(html(f.body));
    }

    const client = await connect(token);
    try {
      const posture = dataOf<{ plan: RemediationPlan }>(await callTool(client, "get_domain_posture", { domain_id: domain.id }));
      expect(posture.plan).toEqual(plan);
    } finally {
      await client.close();
    }
  });
});
