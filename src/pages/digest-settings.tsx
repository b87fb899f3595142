/** @jsxImportSource hono/jsx */
// The digest settings page: each member sets how often they get the team's digest (any role); owners and
// admins set the team's time zone, hour and weekday (docs/decisions.md D185). Forms carry the CSRF token.
import { Hono } from "hono";
import type { FC } from "hono/jsx";
import type { AppEnv } from "../context";
import { DIGEST_FREQUENCIES, type DigestFrequency } from "../db/schema";
import { type DigestSettings, getDigestSettings, getMemberDigest, setDigestSettings, setMemberDigest } from "../services/digests/settings";
import { DIGEST_SETTINGS_PATH } from "../services/digests/run";
import { checkCsrf, readForm, signedInOrRedirect } from "./guard";
import { frameOf } from "./frame";
import { CsrfField, type Frame, Layout, Notice } from "./layout";

const WEEKDAYS = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"];
const FREQUENCY_LABEL: Record<DigestFrequency, string> = { weekly: "Weekly", daily: "Daily", off: "Off" };

const DigestSettingsPage: FC<{ frame: Frame; settings: DigestSettings; frequency: DigestFrequency; canEdit: boolean; saved?: string }> = ({
  frame,
  settings,
  frequency,
  canEdit,
  saved,
}) => (
  <Layout title="Digest" frame={frame}>
    <h1>Digest mail</h1>
    {saved && <Notice kind="ok">{saved}</Notice>}
    <p>
      A summary of the team's domains (grades and their change, the next step of each plan, DMARC volume and pass rate, TLS failures, open alerts), mailed at{" "}
      {String(settings.hour).padStart(2, "0")}:00 {settings.time_zone}; the weekly one on {WEEKDAYS[settings.weekday - 1]}.
    </p>
    <form method="post" action={`${DIGEST_SETTINGS_PATH}/mine`} class="panel narrow">
      <CsrfField csrf={frame.csrf} />
      <h2>For you</h2>
      <label for="frequency">How often</label>
      <select id="frequency" name="frequency">
        {DIGEST_FREQUENCIES.map((f) => (
          <option value={f} selected={f === frequency}>
            {FREQUENCY_LABEL[f]}
          </option>
        ))}
      </select>
      <p>
        <button type="submit">Save</button>
      </p>
    </form>
    {canEdit ? (
      <form method="post" action={`${DIGEST_SETTINGS_PATH}/team`} class="panel narrow">
        <CsrfField csrf={frame.csrf} />
        <h2>For the team</h2>
        <label for="time_zone">Time zone (IANA, e.g. Europe/Paris)</label>
        <input id="time_zone" name="time_zone" value={settings.time_zone} required maxlength={64} />
        <label for="hour">Hour (0-23, local)</label>
        <input id="hour" name="hour" type="number" min="0" max="23" value={String(settings.hour)} required />
        <label for="weekday">Weekly digest on</label>
        <select id="weekday" name="weekday">
          {WEEKDAYS.map((d, i) => (
            <option value={String(i + 1)} selected={i + 1 === settings.weekday}>
              {d}
            </option>
          ))}
        </select>
        <p>
          <button type="submit">Save team settings</button>
        </p>
      </form>
    ) : (
      <p class="small muted">Owners and admins set the team's time zone, hour and weekday.</p>
    )}
  </Layout>
);

export function digestSettingsPages() {
  const r = new Hono<AppEnv>();

  r.get(DIGEST_SETTINGS_PATH, async (c) => {
    const s = signedInOrRedirect(c);
    if (s instanceof Response) return s;
    const svc = c.get("services");
    const [settings, frequency] = await Promise.all([getDigestSettings(svc, s.ctx), getMemberDigest(svc, s.teamId, s.user.id)]);
    const saved =
      c.req.query("saved") === "mine"
        ? "Your digest frequency is saved."
        : c.req.query("saved") === "team"
          ? "The team's digest settings are saved."
          : undefined;
    return c.html(<DigestSettingsPage frame={await frameOf(c)} settings={settings} frequency={frequency} canEdit={s.ctx.scope === "full"} saved={saved} />);
  });

  r.post(`${DIGEST_SETTINGS_PATH}/mine`, async (c) => {
    const s = signedInOrRedirect(c);
    if (s instanceof Response) return s;
    const form = await readForm(c);
    checkCsrf(c, form.get("_csrf"));
    await setMemberDigest(c.get("services"), s.teamId, s.user.id, form.get("frequency") ?? "");
    return c.redirect(`${DIGEST_SETTINGS_PATH}?saved=mine`, 303);
  });

  r.post(`${DIGEST_SETTINGS_PATH}/team`, async (c) => {
    const s = signedInOrRedirect(c);
    if (s instanceof Response) return s;
    const form = await readForm(c);
    checkCsrf(c, form.get("_csrf"));
    const int = (k: string) => (/^\d{1,2}$/.test(form.get(k) ?? "") ? Number(form.get(k)) : Number.NaN);
    await setDigestSettings(c.get("services"), s.ctx, { time_zone: form.get("time_zone") ?? "", hour: int("hour"), weekday: int("weekday") });
    return c.redirect(`${DIGEST_SETTINGS_PATH}?saved=team`, 303);
  });
  return r;
}
