// Helpers of the notification route tests: calls through the Worker's real fetch export with SITE_URL set
// (links in messages and confirmation mails come only from SITE_URL, docs/decisions.md D148; the pool
// leaves it empty) and DEV_OUTBOX on so that mails are kept where a test can read them.
import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import type { Env } from "../../../src/env";
import worker from "../../../src/index";
import { type CallOptions, json } from "../../support/api";

export const SITE = "https://app.test";

/** Like call() in test/support/api.ts, on a deployment with SITE_URL and the dev outbox. */
export async function callSite(path: string, opts: CallOptions = {}): Promise<Response> {
  const headers = new Headers(opts.headers);
  if (opts.token) headers.set("authorization", `Bearer ${opts.token}`);
  let body: BodyInit | undefined = opts.rawBody;
  if (opts.body !== undefined) {
    body = JSON.stringify(opts.body);
    if (!headers.has("content-type")) headers.set("content-type", "application/json");
  }
  const ctx = createExecutionContext();
  const res = await worker.fetch(
    new Request(`https://api.test${path}`, { method: opts.method ?? "GET", headers, body }),
    { ...env, SITE_URL: SITE, DEV_OUTBOX: "true" } as Env,
    ctx,
  );
  await waitOnExecutionContext(ctx);
  return res;
}

export interface ChannelJson {
  id: number;
  kind: string;
  name: string;
  target_hint: string | null;
  email: { mode: string; address: string | null; confirmed: boolean | null; subscribers: number | null } | null;
  enabled: boolean;
  rules: Array<{ id: number; kinds: string[] | null; min_severity: string; domain_ids: number[] | null; cooldown_minutes: number }>;
  [k: string]: unknown;
}

export type Body = { data: any; meta?: Record<string, unknown>; code?: string; message?: string; errors?: Record<string, string[]> };

export const SLACK_URL = "https://hooks.example.com/services/T0SECRET/B0SECRET/abcdefghijklmnopqrstuvwx";
export const TEAMS_URL = "https://other.example.com/workflows/0secretflow/triggers/manual/paths/invoke?sig=s3cr3tsignature";
export const ROUTING_KEY = "R0123456789abcdefghijklmnopqrstu";

export async function createChannel(token: string, body: Record<string, unknown>): Promise<ChannelJson> {
  const res = await callSite("/api/v1/notification-channels", { method: "POST", token, body });
  if (res.status !== 201) throw new Error(`channel create failed: ${res.status} ${await res.text()}`);
  return (await json<{ data: ChannelJson }>(res)).data;
}

/** The mails kept in the dev outbox for one address, oldest first. */
export async function outboxFor(address: string): Promise<Array<{ subject: string; body: string }>> {
  const rows = await env.DB.prepare("SELECT subject, body FROM dev_outbox WHERE recipient = ? ORDER BY id")
    .bind(address)
    .all<{ subject: string; body: string }>();
  return rows.results;
}
