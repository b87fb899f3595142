// Issue 29: what the remediation plan adds to a scheduled check. A check runs analyzeDomain once on
// plannable() options, then buildRemediationPlan, which re-runs the posture analysis once per step on the
// remembered answers (docs/scoring.md section 7, docs/decisions.md D174). Measured in the same run, in Node,
// on six realistic zones served by the local DoH server (bench/lib/doh-server.mjs) at 20 ms per answer:
// 1. the analysis alone (what a check cost before plans), 2. the plan on top: wall and CPU time
// (process.cpuUsage; the DoH server runs in a child process so its work is not counted), steps, projections
// and the DNS queries the plan sent (must be none but names the plan creates), 3. flattenSpf alone on the
// 20-include zone. Medians of PLAN_ROUNDS rounds (default 12, the first discarded), zones interleaved.
import { cpus } from "node:os";
import { startDohProcess } from "./lib/doh-process.mjs";

const DELAY_MS = 20;
const ROUNDS = Math.max(8, Number(process.env.PLAN_ROUNDS ?? 12));
const FLATTEN_RUNS = 200;
const REPORTS = "reports.emailauth.test";
// A queue consumer invocation may use 30 s of CPU by default (platform limit); the checks queue hands it up
// to 10 messages (wrangler.toml max_batch_size) and src/queues/checks.ts runs them one after another.
const CPU_LIMIT_MS = 30_000;
const BATCH = 10;

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const ms = (x) => (x >= 100 ? x.toFixed(0) : x.toFixed(1));

async function zones() {
  const { FLAT_VENDORS, PROVIDERS, weakZone } = await import("../test/fixtures/weak-zones.ts");
  const includes = (names) => names.map((n) => `include:${n}`).join(" ");
  // Bulk senders with long, scattered address lists (no two ranges adjacent, so none merge).
  const bulk = Object.fromEntries(
    Array.from({ length: 9 }, (_, i) => [
      `spf${i}.bulk-mailer.test`,
      { TXT: [`v=spf1 ${Array.from({ length: 12 }, (_, j) => `ip4:${80 + i}.${j * 20}.${j * 4}.0/22`).join(" ")} ~all`] },
    ]),
  );
  // Twenty senders under short names (the record stays within 450 octets), 6 scattered networks each.
  const esp = Object.fromEntries(
    Array.from({ length: 20 }, (_, i) => [
      `s${i}.esp.test`,
      { TXT: [`v=spf1 ${Array.from({ length: 6 }, (_, j) => `ip4:${60 + i}.${j * 20}.${j * 4}.0/22`).join(" ")} ~all`] },
    ]),
  );
  // Providers whose records list addresses only (one lookup each), so 20 includes are 20 lookups: the most
  // the SPF analysis follows (src/core/spf/analyze.ts), all of it flattenable.
  const flatProviders = [...FLAT_VENDORS, ...Object.keys(bulk)];
  // The same count with the big platforms' nested trees: 27 lookups, past what the analysis follows.
  const nestedProviders = [
    "_spf.gmail-like.test",
    "spf.protection.outlook-like.test",
    "mail.zendesk-like.test",
    "_spf.salesforce-like.test",
    ...flatProviders.slice(0, 11),
    ...Object.keys(bulk).slice(0, 5),
  ];
  const present = { status: "present", findings: [] };
  const list = [
    {
      key: "healthy",
      what: "healthy (grade A expected)",
      dkim: present,
      ...weakZone("healthy", "healthy", {
        spf: "v=spf1 mx include:_spf.gmail-like.test -all",
        dmarc: `v=DMARC1; p=reject; rua=mailto:r-healthy@${REPORTS},mailto:dmarc@healthy.example; adkim=s`,
      }),
    },
    {
      key: "weak",
      what: "weak: SPF 11 lookups ~all, p=none no rua, no MTA-STS/TLS-RPT, 1024-bit DKIM",
      dkim: {
        status: "present",
        findings: [{ rule: "dkim.key.weak", severity: "Medium", description: "Selector s1 has a 1024-bit RSA key.", fix: null }],
      },
      ...weakZone("weak", "weak", {
        // 4 + 2 + 2 + 2 + 1 = 11 DNS-querying terms (RFC 7208 §4.6.4 allows 10).
        spf: `v=spf1 ${includes(["_spf.gmail-like.test", "spf.protection.outlook-like.test", "mail.zendesk-like.test", "_spf.salesforce-like.test", "sendgrid-like.test"])} ~all`,
        dmarc: "v=DMARC1; p=none",
        sts: "none",
      }),
    },
    {
      key: "spf20",
      what: "20 provider includes, 20 lookups, 421 octets: flattened into an _spf1 chain",
      dkim: present,
      ...weakZone("spf20", "spf20", {
        spf: `v=spf1 ${includes(Object.keys(esp))} -all`,
        dmarc: `v=DMARC1; p=reject; rua=mailto:r-spf20@${REPORTS}`,
        extra: esp,
      }),
    },
    {
      key: "spf20-named",
      what: `${flatProviders.length} provider includes under the providers' own names, 20 lookups, over 450 octets`,
      dkim: present,
      ...weakZone("spf20-named", "spf20-named", {
        spf: `v=spf1 ${includes(flatProviders)} -all`,
        dmarc: `v=DMARC1; p=reject; rua=mailto:r-spf20-named@${REPORTS}`,
        extra: bulk,
      }),
    },
    {
      key: "spf20-nested",
      what: `${nestedProviders.length} provider includes with nested trees, mx: 27 lookups`,
      dkim: present,
      ...weakZone("spf20-nested", "spf20-nested", {
        spf: `v=spf1 mx ${includes(nestedProviders)} -all`,
        dmarc: `v=DMARC1; p=reject; rua=mailto:r-spf20-nested@${REPORTS}`,
        extra: bulk,
      }),
    },
    {
      key: "parked",
      what: "parked: null MX, no SPF, no DMARC",
      dkim: { status: "missing", findings: [] },
      ...weakZone("parked", "parked", { mx: [{ preference: 0, exchange: "." }], spf: null, dmarc: null, sts: "none" }),
    },
  ];
  // The service's report domain, set up as the README says: MX and each domain's RFC 9990 authorization.
  const zone = { ...PROVIDERS, [REPORTS]: { MX: [{ preference: 10, exchange: `mx.${REPORTS}` }] }, [`mx.${REPORTS}`]: { A: ["198.51.100.99"] } };
  for (const z of list) {
    Object.assign(zone, z.zone);
    zone[`${z.domain}._report._dmarc.${REPORTS}`] = { TXT: ["v=DMARC1"] };
  }
  return { list, zone };
}

/** Counts analyses: analyzeDomain reads `queriesSent` once before and once after (src/core/posture/analyze-domain.ts),
 *  and each projection's overlay resolver reads it through to the check's resolver. */
function countingResolver(inner) {
  const counter = { n: 0 };
  return {
    counter,
    resolver: {
      get queriesSent() {
        counter.n++;
        return inner.queriesSent;
      },
      query: (name, type, opts) => inner.query(name, type, opts),
    },
  };
}

const cpuMs = (u) => (u.user + u.system) / 1000;

export default async function run() {
  const { analyzeDomain } = await import("../src/core/posture/analyze-domain.ts");
  const { buildRemediationPlan, plannable } = await import("../src/core/posture/plan/build.ts");
  const { DohResolver } = await import("../src/core/dns/doh-resolver.ts");
  const { defaultLists } = await import("../src/core/dnsbl/zones.ts");
  const { flattenSpf } = await import("../src/core/spf/flatten.ts");
  const { list, zone } = await zones();
  const server = await startDohProcess({ zone, delayMs: DELAY_MS });
  const results = new Map(list.map((z) => [z.key, []]));
  let spf20Analysis = null;
  try {
    for (let round = 0; round < ROUNDS; round++) {
      for (const z of list) {
        await server.reset();
        const fetchFiles = async (input) => {
          const body = z.files[typeof input === "string" ? input : input.url];
          return body ? new Response(body, { headers: { "content-type": "text/plain" } }) : new Response("not found", { status: 404 });
        };
        // The scheduled check's options (src/services/checks/run-check.ts), its resolver a real DoH client.
        const options = plannable({
          resolver: new DohResolver({ endpoints: [server.url], fetch: (u, init) => fetch(u, init) }),
          fetch: fetchFiles,
          clock: { now: () => new Date() },
          dmarcRua: `mailto:r-${z.key}@${REPORTS}`,
          tlsRptRua: `mailto:r-${z.key}@${REPORTS}`,
          dnsbl: defaultLists(),
          checkBimiLogo: true,
          extraIps: [],
          dkim: z.dkim,
        });
        const counting = countingResolver(options.resolver);
        options.resolver = counting.resolver;

        const c0 = process.cpuUsage();
        const t0 = performance.now();
        const analysis = await analyzeDomain(z.domain, options);
        const t1 = performance.now();
        const c1 = process.cpuUsage();
        const perAnalysis = counting.counter.n;
        const before = (await server.log()).length;

        const c2 = process.cpuUsage();
        const t2 = performance.now();
        const plan = await buildRemediationPlan({ analysis, options, evidence: null });
        const t3 = performance.now();
        const c3 = process.cpuUsage();
        const log = await server.log();

        // Names the plan creates: every record it publishes, and the hosts of the files it serves.
        const created = new Set(plan.steps.flatMap((s) => [...s.records.map((r) => r.host.toLowerCase()), ...s.files.map((f) => new URL(f.url).hostname)]));
        const extra = log.slice(before);
        if (z.key === "spf20") spf20Analysis = analysis;
        if (round === 0) continue; // warm-up: connections, module code, JIT
        results.get(z.key).push({
          analysisWall: t1 - t0,
          analysisCpu: cpuMs(c1) - cpuMs(c0),
          planWall: t3 - t2,
          planCpu: cpuMs(c3) - cpuMs(c2),
          queries: before,
          steps: plan.steps.length,
          projections: perAnalysis > 0 ? (counting.counter.n - perAnalysis) / perAnalysis : Number.NaN,
          extraCreated: extra.filter((q) => created.has(q.name)).length,
          createdNames: extra.filter((q) => created.has(q.name)).map((q) => `${q.name} ${q.type}`),
          extraOther: extra.filter((q) => !created.has(q.name)).map((q) => `${q.name} ${q.type}`),
          analysis,
          plan,
        });
      }
    }
  } finally {
    await server.stop();
  }

  // flattenSpf alone, on the 20-include zone's SPF analysis, with the plan's settings (spf-steps.ts).
  const flatWall = [];
  const flatCpu = [];
  let flat = null;
  for (let i = 0; i < FLATTEN_RUNS + 1; i++) {
    const c = process.cpuUsage();
    const t = performance.now();
    flat = flattenSpf(spf20Analysis.parts.spf, { maxRecordOctets: 450, maxLookups: 7 });
    const wall = performance.now() - t;
    const cpu = cpuMs(process.cpuUsage(c));
    if (i > 0) {
      flatWall.push(wall);
      flatCpu.push(cpu);
    }
  }

  const cpu = cpus()[0];
  console.log(
    `machine: ${cpus().length} x ${cpu?.model ?? "?"}; Node ${process.version}; ${new Date().toISOString().slice(0, 10)}; DoH answers at ${DELAY_MS} ms (child process); medians of ${ROUNDS - 1} rounds (first discarded), zones interleaved`,
  );
  console.log("");
  const rows = [
    [
      "zone",
      "score grade -> final",
      "DNS q",
      "analysis wall ms",
      "analysis CPU ms",
      "plan wall ms",
      "plan CPU ms",
      "plan/analysis wall",
      "plan/analysis CPU",
      "steps",
      "projections",
      "plan DNS q (created / other)",
    ],
  ];
  let worstCheckCpu = 0;
  let leaks = [];
  for (const z of list) {
    const r = results.get(z.key);
    const last = r[r.length - 1];
    const aw = median(r.map((x) => x.analysisWall));
    const ac = median(r.map((x) => x.analysisCpu));
    const pw = median(r.map((x) => x.planWall));
    const pc = median(r.map((x) => x.planCpu));
    worstCheckCpu = Math.max(worstCheckCpu, ac + pc);
    leaks = leaks.concat(r.flatMap((x) => x.extraOther.map((q) => `${z.domain}: ${q}`)));
    rows.push([
      z.key,
      `${last.analysis.score} ${last.analysis.grade} -> ${last.plan.final.score} ${last.plan.final.grade}`,
      String(median(r.map((x) => x.queries))),
      ms(aw),
      ms(ac),
      ms(pw),
      ms(pc),
      `${(pw / aw).toFixed(2)}x`,
      `${(pc / ac).toFixed(2)}x`,
      String(median(r.map((x) => x.steps))),
      String(median(r.map((x) => x.projections))),
      `${median(r.map((x) => x.extraCreated))} / ${median(r.map((x) => x.extraOther.length))}`,
    ]);
  }
  const widths = rows[0].map((_, i) => Math.max(...rows.map((row) => row[i].length)));
  for (const [i, row] of rows.entries()) {
    console.log(`| ${row.map((c, j) => c.padEnd(widths[j])).join(" | ")} |`);
    if (i === 0) console.log(`|${widths.map((w) => "-".repeat(w + 2)).join("|")}|`);
  }
  console.log("");
  for (const z of list) {
    const last = results.get(z.key).at(-1);
    const spf = last.plan.steps.find((s) => s.category === "spf" && s.records.length > 1);
    console.log(
      `${z.key} (${z.what}): steps ${last.plan.steps.map((s) => s.id).join(", ") || "none"}${spf ? `; SPF step publishes ${spf.records.length} records (${spf.records.map((r) => r.host).join(", ")})` : ""}${
        last.createdNames.length > 0 ? `; plan queried names it creates: ${last.createdNames.join(", ")}` : ""
      }`,
    );
  }
  // D174: a projection asks the network nothing the check did not ask, except names the plan creates and the
  // RFC 9990 checks of a report destination it adds (the report domain's DMARC discovery, MX, authorization).
  for (const z of list) {
    const r = results.get(z.key);
    const names = [...new Set(r.flatMap((x) => x.extraOther))];
    if (names.length > 0)
      console.log(
        `the plan of ${z.domain} checked the report destination it adds (D174), ${median(r.map((x) => x.extraOther.length))} queries: ${names.join(", ")}`,
      );
  }
  if (leaks.length === 0) console.log("plan DNS queries for names it does not create: none (as required)");
  console.log(
    `flattenSpf alone on spf20 (maxRecordOctets 450, maxLookups 7; ${FLATTEN_RUNS} runs): median wall ${median(flatWall).toFixed(2)} ms, CPU ${median(flatCpu).toFixed(2)} ms; ${
      flat?.ok ? `${flat.records.length} records, ${flat.lookups} lookups, ${flat.flattened.length} includes flattened` : `refused: ${flat?.reason}`
    }`,
  );
  console.log(
    `Workers context: a queue consumer invocation may use ${CPU_LIMIT_MS / 1000} s of CPU (default); a checks batch holds up to ${BATCH} checks run one after another, so ${(CPU_LIMIT_MS / BATCH / 1000).toFixed(0)} s each. The costliest zone here (analysis + plan, CPU) takes ${ms(worstCheckCpu)} ms = ${((worstCheckCpu * BATCH * 100) / CPU_LIMIT_MS).toFixed(1)}% of the limit for a full batch (Node on this machine; workerd's V8 is comparable, not identical).`,
  );
}
