/** @jsxImportSource hono/jsx */
// The dashboard's page frame: skip link, navigation, team switcher, sign-out, one stylesheet and one
// deferred script. hono/jsx escapes every interpolated value, so no page builds HTML by hand.
import type { Child, FC } from "hono/jsx";
import type { Membership } from "../services/accounts/members";
import type { SignedIn } from "../services/accounts/sessions";
import { ASSET_URLS } from "./assets/serve";

export interface Frame {
  signedIn: SignedIn | null;
  memberships: Membership[];
  csrf: string;
}

const NAV = [
  ["/dashboard", "Overview"],
  ["/domains", "Domains"],
  ["/dkim", "DKIM"],
  ["/tools/message-audit", "Message audit"],
  ["/alerts", "Alerts"],
  ["/webhooks", "Webhooks"],
  ["/notifications", "Notifications"],
  ["/intel", "Intel"],
  ["/tokens", "API tokens"],
  ["/team", "Team"],
  ["/audit", "Audit log"],
  ["/settings/agents", "Agents"],
] as const;

export const CsrfField: FC<{ csrf: string }> = ({ csrf }) => <input type="hidden" name="_csrf" value={csrf} />;

export const Layout: FC<{ title: string; frame: Frame; active?: string; children?: Child }> = ({ title, frame, active, children }) => {
  const s = frame.signedIn;
  return (
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <title>{`${title} · Email auth monitor`}</title>
        <link rel="icon" href={ASSET_URLS.icon} type="image/svg+xml" />
        <link rel="stylesheet" href={ASSET_URLS.css} />
        <script src={ASSET_URLS.js} defer />
      </head>
      <body>
        <a class="skip" href="#main">
          Skip to content
        </a>
        <header class="top">
          <a class="brand" href={s ? "/dashboard" : "/"}>
            Email auth monitor
          </a>
          {s && (
            <nav aria-label="Main">
              <ul>
                {NAV.map(([href, label]) => (
                  <li>
                    <a href={href} aria-current={active === href ? "page" : undefined}>
                      {label}
                    </a>
                  </li>
                ))}
              </ul>
            </nav>
          )}
          {s && (
            <div class="who">
              <form method="post" action="/teams/switch" class="inline">
                <CsrfField csrf={frame.csrf} />
                <label for="team-switch" class="inline-label">
                  Team
                </label>
                <select id="team-switch" name="team_id" data-autosubmit="">
                  {frame.memberships.map((m) => (
                    <option value={String(m.teamId)} selected={m.teamId === s.teamId}>
                      {`${m.teamName} (${m.role})`}
                    </option>
                  ))}
                </select>
                <noscript>
                  <button type="submit" class="secondary">
                    Switch
                  </button>
                </noscript>
              </form>
              <span class="small">{s.user.email}</span>
              <form method="post" action="/sign-out" class="inline">
                <CsrfField csrf={frame.csrf} />
                <button type="submit" class="secondary">
                  Sign out
                </button>
              </form>
            </div>
          )}
        </header>
        <main id="main">{children}</main>
        {/* Announces what the client script does without moving focus ("Copied"). */}
        <div id="live-status" class="visually-hidden" role="status" aria-live="polite" />
        <footer>
          <a href="/api/v1/docs">API reference</a> · <a href="/api/v1/openapi.json">OpenAPI document</a>
        </footer>
      </body>
    </html>
  );
};

/** A plain page for an error or a refusal: the message and a way back, never a stack. */
export const MessagePage: FC<{ title: string; message: string; frame: Frame; back?: string }> = ({ title, message, frame, back }) => (
  <Layout title={title} frame={frame}>
    <div class="panel narrow">
      <h1>{title}</h1>
      <p>{message}</p>
      <p>
        <a href={back ?? (frame.signedIn ? "/dashboard" : "/")}>Go back</a>
      </p>
    </div>
  </Layout>
);

/** Why a form was refused, one line a problem (nothing when there is none). */
export const Problems: FC<{ id?: string; lines?: readonly string[] | null }> = ({ id, lines }) =>
  lines && lines.length > 0 ? (
    <Notice kind="bad" id={id}>
      <ul class="plain">
        {lines.map((line) => (
          <li>{line}</li>
        ))}
      </ul>
    </Notice>
  ) : null;

/** Fixed notices selected by a query flag after a redirect (no reflected text). */
export const Notice: FC<{ kind: "ok" | "bad" | "info"; id?: string; children?: Child }> = ({ kind, id, children }) => (
  <div class={`notice ${kind}`} role={kind === "bad" ? "alert" : "status"} id={id}>
    {children}
  </div>
);
