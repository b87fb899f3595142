// DNS fault matrix during checks. A baseline check shows every (name, type) a check queries; then, for
// each of them one at a time, a domain is checked while the local DoH server answers that query with
// SERVFAIL, a timeout, a truncated answer, garbage or a wrong message id. Each faulted check must
// write no diff, raise no event and no alert, mark the part stale (docs/decisions.md D7), and the next
// healthy check must be clean (nothing stale, the baseline score). The faulted domains run side by
// side, each with its own names, so that one fault never reaches another domain's check.
import { FAULTS } from "../../bench/lib/doh-server.mjs";
import { waitFor } from "./lib.mjs";

/** Parts a query feeds, where the name alone says it (other queries may mark other parts, or none). */
const PART_OF = [
  [/^\{d\} TXT$/, "spf"],
  [/^\{d\} MX$/, "mx"],
  [/^_dmarc\.\{d\} TXT$/, "dmarc"],
  [/^default\._bimi\.\{d\} TXT$/, "bimi"],
  [/^_smtp\._tls\.\{d\} TXT$/, "tls_rpt"],
];
/** Timeouts cost the resolver's full wait (2.5 s) inside the check; they run for every name except
 *  the absent DKIM selectors the discovery probes (same code path, dozens of names). */
const PROBED_SELECTOR = /^(?!selector1\.)[^.]+\._domainkey\.\{d\}$/;

const reverse = (ip) => ip.split(".").reverse().join(".");
const ipOf = (i) => `198.19.${Math.floor(i / 250)}.${1 + (i % 250)}`;

function roleOf(q, domain, ip) {
  const name = q.name.replace(domain, "{d}").replace(reverse(ip), "{r}");
  if (name === q.name) return null;
  return { name: name.replace(/^dkimprobe-[0-9a-f]+\./, "dkimprobe-*."), type: q.type };
}
const nameFor = (role, domain, ip) => role.name.replace("{d}", domain).replace("{r}", reverse(ip));
const matches = (roleName, qname) =>
  roleName.startsWith("dkimprobe-*.") ? qname.startsWith("dkimprobe-") && qname.endsWith(roleName.slice(11)) : qname === roleName;

/** `quiet`: resolves when no other section queries DNS any more (shared names are faulted for all). */
export async function runDnsFaults({ world, section, teamSize = 60, quiet = Promise.resolve() }) {
  const { doh } = world;
  // ---- Baseline: what a steady-state check asks (the second check; the first also discovers selectors).
  const baseTeam = await world.team();
  const baseName = "dnsbase.test";
  const baseIp = ipOf(999);
  const base = await world.monitoredDomain(baseTeam, baseName, baseIp);
  await world.waitChecks(baseTeam, base.id, 1);
  const mark = doh.log.length;
  await world.api(baseTeam.full, "POST", `/domains/${base.id}/check`);
  const baseChecks = await world.waitChecks(baseTeam, base.id, 2);
  const baseline = baseChecks?.[0];
  section.check(
    baseline?.status === "completed" && baseline.stale_parts.length === 0,
    "baseline check is complete with nothing stale",
    JSON.stringify(baseline),
  );
  const seen = new Map();
  const shared = new Map();
  for (const q of doh.log.slice(mark)) {
    const role = roleOf(q, baseName, baseIp);
    if (role) seen.set(`${role.name} ${role.type}`, role);
    else if (baseName.endsWith(q.name.replace(/^_dmarc\./, ""))) shared.set(`${q.name} ${q.type}`, { name: q.name, type: q.type });
  }
  const roles = [...seen.values()];
  section.check(
    roles.length >= 10,
    `a check queries every record (${roles.length} names, ${shared.size} shared)`,
    roles.map((r) => `${r.name} ${r.type}`).join(", "),
  );

  // ---- One domain per (name, fault).
  const cases = [];
  for (const role of roles) for (const fault of FAULTS) if (fault !== "timeout" || !PROBED_SELECTOR.test(role.name)) cases.push({ role, fault });
  const teams = [];
  for (let i = 0; i < cases.length; i += teamSize) teams.push(await world.team());
  const eventTypes = ((await world.api(baseTeam.full, "GET", "/webhook-events")).json?.data ?? []).map((e) => (typeof e === "string" ? e : e.type));
  const watched = eventTypes.filter((t) => t !== "check.completed" && t !== "webhook.test");
  await pool(
    cases.map((c, i) => ({ c, i })),
    8,
    async ({ c, i }) => {
      c.team = teams[Math.floor(i / teamSize)];
      c.domain = `f${i}.test`;
      c.ip = ipOf(i);
      c.d = await world.monitoredDomain(c.team, c.domain, c.ip);
    },
  );
  await waitAll(world, cases, 1);
  // Events are watched from here on: everything before was the domains' own setup.
  for (const team of teams) {
    const hook = await world.api(team.full, "POST", "/webhooks", { body: { url: `${world.receiver.base}/ok/dns-${team.id}`, events: watched } });
    section.check(hook.status === 201, "event watcher endpoint created", `${hook.status} ${hook.text.slice(0, 200)}`);
  }
  const eventsBefore = world.receiver.requests.length;

  // ---- The faulted round. Events are counted from here (by their own timestamp): the domains' setup
  // events (created, verified, selector discovered) may still be fanned out to the watcher later.
  const faultStart = new Date().toISOString();
  for (const c of cases) c.since = faultStart;
  const faultFor = new Map(cases.map((c) => [nameFor(c.role, c.domain, c.ip), c]));
  const wild = cases.filter((c) => c.role.name.startsWith("dkimprobe-*."));
  doh.setFault((name, type) => {
    const c = faultFor.get(name) ?? wild.find((w) => matches(nameFor(w.role, w.domain, w.ip), name));
    return c && c.role.type === type ? c.fault : null;
  });
  await checkAll(world, cases, 2);
  doh.setFault(null);
  for (const c of cases) {
    const label = `${c.role.name} ${c.role.type} ${c.fault}`;
    const chk = c.checks?.[0];
    section.check(chk?.status === "completed", `${label}: the check completes`, JSON.stringify(chk));
    const part = PART_OF.find(([re]) => re.test(`${c.role.name} ${c.role.type}`))?.[1];
    if (part) section.check(chk?.stale_parts?.includes(part), `${label}: ${part} marked stale`, JSON.stringify(chk?.stale_parts));
  }
  // ---- The healthy round after it.
  await checkAll(world, cases, 3);
  for (const c of cases) {
    const chk = c.checks?.[0];
    const label = `${c.role.name} ${c.role.type} ${c.fault}`;
    section.check(chk?.stale_parts?.length === 0 && chk?.score === baseline?.score, `${label}: the next healthy check is clean`, JSON.stringify(chk));
  }
  // ---- Names every domain shares (the organizational-domain walk): one domain, one fault at a time.
  await quiet;
  const sharedTeam = teams[0];
  const sharedDomain = await world.monitoredDomain(sharedTeam, "shared-faults.test", ipOf(998));
  await world.waitChecks(sharedTeam, sharedDomain.id, 1);
  const sharedStart = new Date().toISOString();
  // One check at a time, each awaited by its own id: a check asked for while another is still queued or
  // running is that same check (request-check answers its id), so counting checks would lose step.
  const checkNow = async () => {
    const queued = await world.api(sharedTeam.full, "POST", `/domains/${sharedDomain.id}/check`);
    return queued.json?.data?.check_id ? world.waitCheck(sharedTeam, sharedDomain.id, queued.json.data.check_id) : null;
  };
  for (const q of shared.values()) {
    for (const fault of FAULTS) {
      doh.setFault((name, type) => (name === q.name && type === q.type ? fault : null));
      const chk = await checkNow();
      doh.setFault(null);
      // The organizational-domain walk only matters when a domain has no record of its own, so a failed
      // walk need not mark anything stale here; it must change nothing (no diff, alert or event below).
      section.check(chk?.status === "completed", `${q.name} ${q.type} ${fault} (shared): the check completes`, JSON.stringify(chk));
    }
  }
  const lastCheck = await checkNow();
  section.check(lastCheck?.stale_parts?.length === 0, "shared names: the next healthy check is clean", JSON.stringify(lastCheck));
  cases.push({ team: sharedTeam, d: sharedDomain, role: { name: "shared names", type: "" }, fault: "all faults", since: sharedStart });

  // ---- Nothing changed anywhere: no diffs, no alerts, no events but check.completed.
  await waitFor(async () => false, { timeoutMs: 3000 }); // let the last fan-outs reach the receiver
  const alerts = new Map();
  for (const team of teams) for (const a of (await world.api(team.full, "GET", "/alerts?per_page=200")).json?.data ?? []) alerts.set(a.domain_id, a);
  const events = world.receiver.requests.slice(eventsBefore).filter((r) => r.path.startsWith("/ok/dns-"));
  await pool(cases, 8, async (c) => {
    const label = `${c.role.name} ${c.role.type} ${c.fault}`;
    const diffs = await world.api(c.team.full, "GET", `/domains/${c.d.id}/diffs`);
    section.check(
      diffs.status === 200 && diffs.json.meta.total === 0,
      `${label}: no diff`,
      diffs.json?.data?.map((x) => `${x.category}.${x.field}: ${x.before} → ${x.after}`).join("; "),
    );
    section.check(!alerts.has(c.d.id), `${label}: no alert`, alerts.get(c.d.id)?.title);
    const mine = events.filter((e) => e.body?.data?.domain?.id === c.d.id && String(e.path).endsWith(`-${c.team.id}`) && e.body?.timestamp >= c.since);
    section.check(mine.length === 0, `${label}: no event`, mine.map((e) => e.type).join(", "));
  });
}

/** Runs one check on every case's domain and waits until each has `count` checks. */
async function checkAll(world, cases, count) {
  await pool(cases, 8, async (c) => {
    const r = await world.api(c.team.full, "POST", `/domains/${c.d.id}/check`);
    if (r.status !== 202) c.error = `${r.status} ${r.text}`;
  });
  await waitAll(world, cases, count);
}

/** Waits until every case's domain has `count` checks (one list request per team per poll). */
async function waitAll(world, cases, count, timeoutMs = 240_000) {
  const teams = [...new Set(cases.map((c) => c.team))];
  const done = await waitFor(
    async () => {
      let pending = 0;
      for (const team of teams) {
        const mine = cases.filter((c) => c.team === team && (c.checks?.length ?? 0) < count);
        pending += mine.length;
        if (mine.length === 0) continue;
        const list = (await world.api(team.full, "GET", "/domains?per_page=200")).json?.data ?? [];
        const byId = new Map(list.map((d) => [d.id, d]));
        await pool(
          mine.filter((c) => byId.get(c.d.id)?.last_checked_at !== c.lastSeen),
          6,
          async (c) => {
            c.checks = await world.checksOf(c.team, c.d.id);
            c.lastSeen = byId.get(c.d.id)?.last_checked_at;
          },
        );
      }
      return pending === 0 || cases.every((c) => (c.checks?.length ?? 0) >= count);
    },
    { timeoutMs, everyMs: 1000 },
  );
  return done;
}

async function pool(items, n, fn) {
  let next = 0;
  await Promise.all(
    Array.from({ length: n }, async () => {
      while (next < items.length) await fn(items[next++]);
    }),
  );
}
