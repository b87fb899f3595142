// Builds what every page's frame needs (who is signed in, their teams, this browser's CSRF token)
// and turns a service refusal into an HTML page with the right status.
import type { Context } from "hono";
import type { AppEnv } from "../context";
import { linkOrigin } from "../config";
import { ApiError } from "../lib/errors";
import { listMemberships } from "../services/accounts/members";
import { csrfToken } from "./guard";
import type { Frame } from "./layout";

export async function frameOf(c: Context<AppEnv>): Promise<Frame> {
  const signedIn = c.get("signedIn") ?? null;
  const memberships = signedIn ? await listMemberships(c.get("services"), signedIn.user.id) : [];
  return { signedIn, memberships, csrf: csrfToken(c) };
}

/** Titles for the statuses a page may answer with. */
export function titleOf(error: ApiError): string {
  switch (error.status) {
    case 403:
      return "Not allowed";
    case 404:
      return "Not found";
    case 409:
      return "Cannot do that";
    case 413:
      return "Too large";
    case 422:
      return "Check your input";
    case 429:
      return "Slow down";
    case 503:
      return "Try again shortly";
    default:
      return "Something went wrong";
  }
}

/**
 * The public origin for links in mail and on pages: SITE_URL (or, in local development only, a
 * loopback request's origin: docs/decisions.md D148). Without it the action is refused before any
 * link exists, with a message that names the setting and a log line for the operator.
 */
export function siteOrigin(c: Context<AppEnv>): string {
  const origin = linkOrigin(c.get("services").config, c.req.url);
  if (origin) return origin;
  console.error(
    JSON.stringify({
      level: "error",
      requestId: c.get("requestId"),
      error: "SITE_URL is not set: links and absolute URLs are refused until the operator sets it",
    }),
  );
  throw new ApiError(
    503,
    "dependency_unavailable",
    "This service cannot make links yet: its operator must set SITE_URL (the public address of the site, e.g. https://monitor.example.com).",
  );
}
