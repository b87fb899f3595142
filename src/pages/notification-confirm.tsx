/** @jsxImportSource hono/jsx */
// The landing of the link mailed to an outside address before an email channel may send to it
// (docs/decisions.md D177). GET only shows a "Confirm this address" button and changes nothing: mail
// scanners and link previews fetch links (the same reason as RFC 8058 §1 gives for one-click unsubscribe).
// POST confirms. Neither needs a session, and the POST takes no CSRF token: the single-use token from the
// mail is the only authority, and all it can do is let alerts reach the address it was mailed to.
import { Hono } from "hono";
import type { AppEnv } from "../context";
import { ApiError } from "../lib/errors";
import { confirmChannelAddress } from "../services/notify/channels";
import { frameOf } from "./frame";
import { Layout, MessagePage } from "./layout";

export function notificationConfirmPages() {
  const r = new Hono<AppEnv>();

  r.get("/notifications/confirm/:token", async (c) => {
    const token = c.req.param("token");
    return c.html(
      <Layout title="Confirm this address" frame={await frameOf(c)}>
        <div class="panel narrow">
          <h1>Confirm this address</h1>
          <p>A team asked to send its email-authentication alerts to this address. Confirm to start receiving them.</p>
          <form method="post" action={`/notifications/confirm/${encodeURIComponent(token)}`}>
            <p>
              <button type="submit">Confirm this address</button>
            </p>
          </form>
          <p class="small muted">If you did not expect this, close this page: nothing is sent to you.</p>
        </div>
      </Layout>,
    );
  });

  r.post("/notifications/confirm/:token", async (c) => {
    const frame = await frameOf(c);
    try {
      const done = await confirmChannelAddress(c.get("services"), c.req.param("token"));
      return c.html(
        <MessagePage title="Address confirmed" message={`${done.address} will now receive the alerts of the channel "${done.channel}".`} frame={frame} />,
      );
    } catch (e) {
      // A malformed link (404), or one that is used or expired (410 Gone): say what to do instead of a bare error page.
      if (!(e instanceof ApiError) || (e.status !== 404 && e.status !== 410)) throw e;
      return c.html(<MessagePage title="This link no longer works" message={e.message} frame={frame} />, e.status === 410 ? 410 : 404);
    }
  });

  return r;
}
