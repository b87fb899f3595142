// A browser-like client for dashboard pages in the Workers pool: a cookie jar, same-origin form posts
// with the page's CSRF token, manual redirects, and sign-in through the mailed link read from the dev
// outbox (the Worker's real default export, with DEV_OUTBOX on as in local development).
import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import worker from "../../src/index";
import type { Env } from "../../src/env";

export const ORIGIN = "https://app.test";
// SITE_URL is this origin, as a deployment sets it: links are never built from the Host header (D148).
const pageEnv = { ...env, DEV_OUTBOX: "true", SITE_URL: ORIGIN } as Env;

export class Browser {
  readonly cookies = new Map<string, string>();
  /**
   * `vars` override the page settings (a deployment without SITE_URL, DEV_OUTBOX off) and may change
   * between requests; `origin` is the site the browser believes it visits (its Host header).
   */
  constructor(
    readonly ip = `198.51.100.${Math.floor(Math.random() * 200) + 1}`,
    readonly opts: { vars?: Partial<Env>; origin?: string } = {},
  ) {}

  async fetch(path: string, init: RequestInit & { form?: Record<string, string>; origin?: string | null } = {}): Promise<Response> {
    const headers = new Headers(init.headers);
    headers.set("cookie", [...this.cookies].map(([k, v]) => `${k}=${v}`).join("; "));
    headers.set("cf-connecting-ip", this.ip);
    let body = init.body;
    if (init.form) {
      body = new URLSearchParams(init.form).toString();
      headers.set("content-type", "application/x-www-form-urlencoded");
    }
    const site = this.opts.origin ?? ORIGIN;
    if ((init.method ?? "GET") !== "GET" && init.origin !== null) headers.set("origin", init.origin ?? site);
    const ctx = createExecutionContext();
    const res = await worker.fetch(
      new Request(`${site}${path}`, { method: init.method ?? "GET", headers, body, redirect: "manual" }),
      { ...pageEnv, ...this.opts.vars } as Env,
      ctx,
    );
    await waitOnExecutionContext(ctx);
    for (const c of res.headers.getSetCookie()) {
      const [pair, ...attrs] = c.split(";");
      const eq = pair?.indexOf("=") ?? -1;
      if (!pair || eq < 0) continue;
      const name = pair.slice(0, eq).trim();
      const value = pair.slice(eq + 1).trim();
      const expired = attrs.some((a) => /max-age=0/i.test(a) || /expires=Thu, 01 Jan 1970/i.test(a));
      if (expired || value === "") this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
    return res;
  }

  /** The CSRF token forms on a page carry. */
  async csrf(path = "/sign-in"): Promise<string> {
    const html = await (await this.fetch(path)).text();
    const m = /name="_csrf" value="([0-9A-Za-z]{32})"/.exec(html);
    if (!m?.[1]) throw new Error(`no CSRF token on ${path}`);
    return m[1];
  }

  /** Posts a form the way a page would: same origin, with the CSRF token. */
  async post(path: string, form: Record<string, string> = {}, from = "/dashboard"): Promise<Response> {
    const _csrf = await this.csrf(from);
    return this.fetch(path, { method: "POST", form: { _csrf, ...form } });
  }

  /** Requests a link for `email`, opens it from the dev outbox and confirms it; returns the final redirect. */
  async signIn(email: string, next?: string): Promise<Response> {
    const res = await this.post("/sign-in", next ? { email, next } : { email }, "/sign-in");
    if (res.status !== 200) throw new Error(`sign-in request failed: ${res.status} ${await res.text()}`);
    return this.openLatestLink(email);
  }

  async openLatestLink(email: string): Promise<Response> {
    const token = await latestLinkToken(email);
    const confirm = await this.fetch(`/auth/link?token=${token}`);
    if (confirm.status !== 200) throw new Error(`link page: ${confirm.status}`);
    return this.post("/auth/link", { token }, `/auth/link?token=${token}`);
  }
}

/** The token of the newest mail to `email` in the dev outbox. */
export async function latestLinkToken(email: string): Promise<string> {
  const row = await env.DB.prepare("SELECT body FROM dev_outbox WHERE recipient = ? ORDER BY id DESC LIMIT 1").bind(email).first<{ body: string }>();
  const m = /token=([0-9A-Za-z]{43})/.exec(row?.body ?? "");
  if (!m?.[1]) throw new Error(`no link mailed to ${email}`);
  return m[1];
}

/** A browser signed in as a new owner (a fresh address, so a fresh team), with that team's id. */
export async function signedInOwner(prefix: string): Promise<{ b: Browser; teamId: number; address: string }> {
  const b = new Browser();
  const address = `${prefix}-${crypto.randomUUID().slice(0, 12)}@example.com`;
  await b.signIn(address);
  const row = await env.DB.prepare("SELECT m.team_id AS t FROM memberships m JOIN users u ON u.id = m.user_id WHERE u.email = ?")
    .bind(address)
    .first<{ t: number }>();
  if (!row) throw new Error(`no team for ${address}`);
  return { b, teamId: row.t, address };
}
