/** @jsxImportSource hono/jsx */
// One-click unsubscribe (RFC 8058) from a mail's List-Unsubscribe link. GET shows what the link will
// stop and a button: it changes nothing, because mail scanners and link previews fetch links (RFC 8058
// §1). POST applies it, with no session and no CSRF token: the mail client sends it on its own, as
// `List-Unsubscribe=One-Click` in a form body (§3.2). The signed token is the only authority, and all
// it can do is stop (or re-time) mail to the person it was sent to (docs/decisions.md D187).
import { Hono } from "hono";
import type { AppEnv } from "../context";
import { applyUnsubscribe, describeUnsubscribe } from "../services/notify/unsubscribe";
import { frameOf } from "./frame";
import { Layout, MessagePage } from "./layout";

export function unsubscribePages() {
  const r = new Hono<AppEnv>();

  r.get("/unsubscribe/:token", async (c) => {
    const token = c.req.param("token");
    const subject = await describeUnsubscribe(c.get("services"), token);
    const title = subject.purpose === "digest" ? "Digest mail" : "Alert mail";
    return c.html(
      <Layout title={title} frame={await frameOf(c)}>
        <div class="panel narrow">
          <h1>{title}</h1>
          {subject.already ? (
            <p id="unsubscribe-already">Nothing to change: this is already done.</p>
          ) : (
            <>
              <p id="unsubscribe-what">This will {subject.action}.</p>
              <form method="post" action={`/unsubscribe/${encodeURIComponent(token)}`}>
                <input type="hidden" name="List-Unsubscribe" value="One-Click" />
                <p>
                  <button type="submit">Confirm</button>
                </p>
              </form>
            </>
          )}
        </div>
      </Layout>,
    );
  });

  r.post("/unsubscribe/:token", async (c) => {
    // The body (List-Unsubscribe=One-Click, urlencoded or multipart) is not needed: the token says it all.
    const { done } = await applyUnsubscribe(c.get("services"), c.req.param("token"));
    return c.html(<MessagePage title="Done" message={done} frame={await frameOf(c)} />, 200);
  });

  return r;
}
