// Digests through the Worker's real scheduled export (issue 30 §3): mailed at the team's hour in its own
// time zone, parsed back with postal-mime (both parts, RFC 8058 List-Unsubscribe headers, RFC 3834
// Auto-Submitted), the one-click POST through the real fetch export turning the digest off, one digest
// per (team, member, period) however often the cron runs, and each team's digest holding only its data.
import { env, exports } from "cloudflare:workers";
import { beforeEach, describe, expect, it } from "vitest";
import { makeTeam, unique } from "../support/api";
import { addMember, everyMinuteAt, FROM, headerOf, mailEnv, parseMail, recordingMailer, SITE } from "../support/digests";
import { installDohStub } from "../support/doh-stub";
import { insertDomain } from "../support/factories";
import { reportObject, seedReport, seedRow } from "../support/reports";

/** Monday 30 November 2026, 08:00:30 UTC (ISO week 2026-W49): the default digest time. */
const MONDAY_8_UTC = new Date("2026-11-30T08:00:30Z");
const HOUR = 3_600_000;
const DAY = 24 * HOUR;

const d1 = async <T>(query: string, ...params: unknown[]) =>
  (
    await env.DB.prepare(query)
      .bind(...params)
      .all<T>()
  ).results;

/** A domain with a grade, kept out of the scheduled checks (they would run against no DNS here). */
async function gradedDomain(teamId: number, grade: string, score: number) {
  const d = await insertDomain(teamId, { name: `${unique("dg").toLowerCase()}.example` });
  await env.DB.prepare("UPDATE domains SET grade = ?, score = ?, next_check_at = ? WHERE id = ?").bind(grade, score, Date.parse("2030-01-01"), d.id).run();
  return d;
}

/** A check in the domain's history (its object), with a stored plan whose first step is `step`. */
async function storeCheck(domainId: number, at: Date, grade: string, score: number, step: string | null) {
  const id = unique("chk");
  const posture = { records: {}, blacklists: [], findings: [], recommendations: [], fixes: [], plan: { steps: step ? [{ title: step }] : [] } };
  await reportObject(domainId).storeChecks(
    [
      {
        id,
        status: "completed",
        trigger: "scheduled",
        score,
        grade,
        dmarcPolicy: null,
        posture: JSON.stringify(posture),
        staleParts: [],
        queries: 1,
        durationMs: 1,
        error: null,
        createdAt: at.getTime(),
      },
    ],
    [],
  );
  return id;
}

const digestsTo = async (sent: { to: string; raw: string }[], to: string) => Promise.all(sent.filter((m) => m.to === to).map((m) => parseMail(m.raw)));

describe("digests from the every-minute cron", () => {
  // The cron's other jobs (ownership rechecks, due checks) ask DNS: an empty zone answers them.
  beforeEach(() => {
    installDohStub({});
  });

  it("mails each member the team's digest at 08:00 UTC on Monday: text and HTML parts, one-click unsubscribe headers, only that team's data", async () => {
    const { binding, sent } = recordingMailer();
    const a = await makeTeam();
    const b = await makeTeam();
    const alice = await addMember(a.id, "owner");
    const viewer = await addMember(a.id, "viewer");
    const bob = await addMember(b.id, "owner");
    const da = await gradedDomain(a.id, "B", 82);
    const db = await gradedDomain(b.id, "F", 20);
    // Grade F before the week began, B now; the plan's first step is what the digest names.
    await storeCheck(da.id, new Date(MONDAY_8_UTC.getTime() - 9 * DAY), "F", 25, null);
    const last = await storeCheck(da.id, new Date(MONDAY_8_UTC.getTime() - DAY), "B", 82, "Publish an MTA-STS policy");
    await env.DB.prepare("UPDATE domains SET last_check_id = ? WHERE id = ?").bind(last, da.id).run();
    // 100 aligned and 25 failing messages on a day inside the week.
    await seedReport(da.id, { rows: [seedRow("2026-11-27", "192.0.2.1", 100, true), seedRow("2026-11-27", "192.0.2.2", 25, false)] });
    await env.DB.prepare(
      "INSERT INTO alerts (team_id, domain_id, kind, subject, severity, title, body, occurrences, created_at, updated_at) VALUES (?, ?, 'new_sender', 'ip:192.0.2.2', 'Medium', 'New sender 192.0.2.2', NULL, 1, ?, ?)",
    )
      .bind(a.id, da.id, MONDAY_8_UTC.getTime() - 2 * DAY, MONDAY_8_UTC.getTime() - 2 * DAY)
      .run();

    await everyMinuteAt(MONDAY_8_UTC, mailEnv(binding));

    const [mail, ...more] = await digestsTo(sent, alice.email);
    expect(more).toHaveLength(0);
    expect(mail).toBeDefined();
    if (!mail) return;
    expect(sent.find((m) => m.to === alice.email)?.from).toBe(FROM);
    expect(mail.from?.address).toBe(FROM);
    expect(mail.subject).toMatch(/^Weekly digest for team-.*: 1 domain, 1 open alert \(week 2026-W49\)$/);
    expect(mail.messageId).toMatch(/^<[0-9A-Za-z]+@notify\.test>$/);
    expect(headerOf(mail, "auto-submitted")).toBe("auto-generated");
    expect(headerOf(mail, "list-unsubscribe-post")).toBe("List-Unsubscribe=One-Click");
    expect(headerOf(mail, "list-unsubscribe")).toMatch(new RegExp(`^<${SITE}/unsubscribe/[^>\\s]+>$`));
    const text = mail.text ?? "";
    expect(text).toContain(da.name);
    expect(text).toContain("Grade: B (82), up from F");
    expect(text).toContain("Next step: Publish an MTA-STS policy");
    expect(text).toContain("DMARC: 125 messages, 80.0% pass; 1 new sender");
    expect(text).toContain("DMARC messages: 125 (pass rate 80.0%)");
    expect(text).not.toContain(db.name);
    const html = mail.html ?? "";
    expect(html).toContain(da.name);
    expect(html).toContain("Publish an MTA-STS policy");
    expect(html).not.toContain(db.name);
    // A viewer gets the same digest; team B's owner gets team B's, never team A's.
    expect(await digestsTo(sent, viewer.email)).toHaveLength(1);
    const [bobs] = await digestsTo(sent, bob.email);
    expect(bobs?.text).toContain(db.name);
    expect(bobs?.text).not.toContain(da.name);
    expect(bobs?.html).not.toContain(da.name);
    const rows = await d1<{ period: string; status: string }>("SELECT period, status FROM digest_sends WHERE team_id = ? AND user_id = ?", a.id, alice.userId);
    expect(rows).toEqual([{ period: "2026-W49", status: "sent" }]);
  });

  it("never sends twice in a period: two crons at once, the same minute again, later in the same hour", async () => {
    const { binding, sent } = recordingMailer();
    const team = await makeTeam();
    const m = await addMember(team.id, "owner");
    const at = new Date(MONDAY_8_UTC.getTime() + 7 * DAY); // the next Monday
    await Promise.all([everyMinuteAt(at, mailEnv(binding)), everyMinuteAt(at, mailEnv(binding))]);
    await everyMinuteAt(at, mailEnv(binding));
    await everyMinuteAt(new Date(at.getTime() + 40 * 60_000), mailEnv(binding));
    expect(sent.filter((s) => s.to === m.email)).toHaveLength(1);
    // Later that day (still due, already claimed) and the next day (a weekly member is not due): nothing more.
    await everyMinuteAt(new Date(at.getTime() + HOUR), mailEnv(binding));
    await everyMinuteAt(new Date(at.getTime() + DAY), mailEnv(binding));
    expect(sent.filter((s) => s.to === m.email)).toHaveLength(1);
  });

  it("the one-click POST of List-Unsubscribe (no session, no CSRF token) turns the digest off; the next week's cron skips that member only", async () => {
    const { binding, sent } = recordingMailer();
    const team = await makeTeam();
    const leaving = await addMember(team.id, "owner");
    const staying = await addMember(team.id, "admin");
    const first = new Date(MONDAY_8_UTC.getTime() + 14 * DAY);
    await everyMinuteAt(first, mailEnv(binding));
    const [mail] = await digestsTo(sent, leaving.email);
    const url = /^<([^>]+)>$/.exec(headerOf(mail as NonNullable<typeof mail>, "list-unsubscribe"))?.[1] ?? "";
    expect(url.startsWith(`${SITE}/unsubscribe/`)).toBe(true);

    // RFC 8058 §3.2: the mail client POSTs List-Unsubscribe=One-Click, here as multipart/form-data.
    const body = new FormData();
    body.set("List-Unsubscribe", "One-Click");
    const res = await exports.default.fetch(new Request(url, { method: "POST", body }));
    expect(res.status).toBe(200);
    expect(await res.text()).toContain("no more digests");
    expect(await d1("SELECT frequency FROM member_digest_prefs WHERE team_id = ? AND user_id = ?", team.id, leaving.userId)).toEqual([{ frequency: "off" }]);

    await everyMinuteAt(new Date(first.getTime() + 7 * DAY), mailEnv(binding));
    expect(sent.filter((s) => s.to === leaving.email)).toHaveLength(1);
    expect(sent.filter((s) => s.to === staying.email)).toHaveLength(2);
  });

  it("goes out at the team's hour in its own time zone: Monday 08:00 in Auckland is Sunday 19:00 UTC", async () => {
    const { binding, sent } = recordingMailer();
    const nz = await makeTeam();
    const kiwi = await addMember(nz.id, "owner");
    await env.DB.prepare("INSERT INTO team_digest_settings (team_id, time_zone, hour, weekday, updated_at) VALUES (?, 'Pacific/Auckland', 8, 1, ?)")
      .bind(nz.id, Date.now())
      .run();
    const utc = await makeTeam();
    const londoner = await addMember(utc.id, "owner");
    // 07:59 in Auckland: not yet.
    await everyMinuteAt(new Date("2026-12-20T18:59:10Z"), mailEnv(binding));
    expect(sent.filter((s) => s.to === kiwi.email)).toHaveLength(0);
    const sundayEvening = new Date("2026-12-20T19:00:10Z"); // Monday 21 December, 08:00 NZDT
    await everyMinuteAt(sundayEvening, mailEnv(binding));
    expect(sent.filter((s) => s.to === kiwi.email)).toHaveLength(1);
    expect(sent.filter((s) => s.to === londoner.email)).toHaveLength(0);
    const [mail] = await digestsTo(sent, kiwi.email);
    expect(mail?.subject).toContain("(week 2026-W52)");
    // Monday 08:00 UTC is 21:00 in Auckland: the UTC team's turn, not the Auckland team's.
    await everyMinuteAt(new Date("2026-12-21T08:00:10Z"), mailEnv(binding));
    expect(sent.filter((s) => s.to === kiwi.email)).toHaveLength(1);
    expect(sent.filter((s) => s.to === londoner.email)).toHaveLength(1);
  });

  it("a daily member gets one a day (period = the local date) and a weekly member only on the weekday", async () => {
    const { binding, sent } = recordingMailer();
    const team = await makeTeam();
    const daily = await addMember(team.id, "viewer");
    const weekly = await addMember(team.id, "owner");
    await env.DB.prepare("INSERT INTO member_digest_prefs (team_id, user_id, frequency, updated_at) VALUES (?, ?, 'daily', ?)")
      .bind(team.id, daily.userId, Date.now())
      .run();
    const tuesday = new Date("2027-01-05T08:00:05Z");
    await everyMinuteAt(tuesday, mailEnv(binding));
    await everyMinuteAt(new Date(tuesday.getTime() + 60_000), mailEnv(binding));
    await everyMinuteAt(new Date(tuesday.getTime() + DAY), mailEnv(binding));
    expect(sent.filter((s) => s.to === daily.email)).toHaveLength(2);
    expect(sent.filter((s) => s.to === weekly.email)).toHaveLength(0);
    const [mail] = await digestsTo(sent, daily.email);
    expect(mail?.subject).toMatch(/^Daily digest for .* \(2027-01-05\)$/);
    expect(await d1<{ period: string }>("SELECT period FROM digest_sends WHERE team_id = ? AND user_id = ? ORDER BY period", team.id, daily.userId)).toEqual([
      { period: "2027-01-05" },
      { period: "2027-01-06" },
    ]);
  });
});
