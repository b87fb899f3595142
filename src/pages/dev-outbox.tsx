/** @jsxImportSource hono/jsx */
// Local development only (DEV_OUTBOX=true): the mail the service would have sent (sign-in links,
// invitations), newest first. A 404 everywhere else, so it can never leak links in production.
import { Hono } from "hono";
import type { AppEnv } from "../context";
import { notFound } from "../lib/errors";
import { listDevOutbox } from "../services/accounts/mailer";
import { devOutboxHtml } from "../services/notify/send-mail";
import { frameOf } from "./frame";
import { Layout, Notice } from "./layout";

const LINK = /(https?:\/\/\S+)/;

/**
 * A mail's HTML part shown as the recipient's client would: inline styles only, no script, no form, no
 * remote load, sandboxed (it is content this service rendered from team data, so it is never trusted).
 */
const MAIL_HTML_CSP = "default-src 'none'; style-src 'unsafe-inline'; img-src data:; form-action 'none'; frame-ancestors 'none'; base-uri 'none'; sandbox";

export function devOutboxPages() {
  const r = new Hono<AppEnv>();
  r.get("/dev/outbox", async (c) => {
    const svc = c.get("services");
    if (!svc.config.devOutbox) throw notFound("Page");
    const mail = await listDevOutbox(svc);
    return c.html(
      <Layout title="Dev outbox" frame={await frameOf(c)}>
        <h1>Dev outbox</h1>
        <Notice kind="info">Local development only (DEV_OUTBOX=true): mail the service sent, newest first.</Notice>
        {mail.length === 0 && <p class="muted">No mail yet.</p>}
        {mail.map((m) => {
          const link = LINK.exec(m.body)?.[1];
          return (
            <article class="panel mail">
              <h2>{m.subject}</h2>
              <p class="small muted">
                To <span class="mail-to">{m.recipient}</span> at {m.createdAt.toISOString()}
              </p>
              {link && (
                <p>
                  <a class="mail-link" href={link}>
                    Open the link in this message
                  </a>
                </p>
              )}
              {m.raw && (
                <p>
                  <a class="mail-html" href={`/dev/outbox/${m.id}/html`}>
                    Show the HTML part
                  </a>
                </p>
              )}
              <pre>{m.body}</pre>
            </article>
          );
        })}
      </Layout>,
    );
  });
  r.get("/dev/outbox/:id/html", async (c) => {
    const svc = c.get("services");
    if (!svc.config.devOutbox) throw notFound("Page");
    const id = Number(c.req.param("id"));
    const html = Number.isSafeInteger(id) && id > 0 ? await devOutboxHtml(svc, id) : null;
    if (html === null) throw notFound("Message");
    return c.body(html, 200, { "Content-Type": "text/html; charset=utf-8", "Content-Security-Policy": MAIL_HTML_CSP });
  });
  return r;
}
