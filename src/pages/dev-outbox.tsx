/** @jsxImportSource hono/jsx */
// Local development only (DEV_OUTBOX=true): the mail the service would have sent (sign-in links,
// invitations), newest first. A 404 everywhere else, so it can never leak links in production.
import { Hono } from "hono";
import type { AppEnv } from "../context";
import { notFound } from "../lib/errors";
import { listDevOutbox } from "../services/accounts/mailer";
import { frameOf } from "./frame";
import { Layout, Notice } from "./layout";

const LINK = /(https?:\/\/\S+)/;

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
              <pre>{m.body}</pre>
            </article>
          );
        })}
      </Layout>,
    );
  });
  return r;
}
