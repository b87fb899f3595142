// Builds what every page's frame needs (who is signed in, their teams, this browser's CSRF token)
// and turns a service refusal into an HTML page with the right status.
import type { Context } from "hono";
import type { AppEnv } from "../context";
import type { ApiError } from "../lib/errors";
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

/** The public origin for links in mail and on pages: SITE_URL when set, else this request's origin. */
export const siteOrigin = (c: Context<AppEnv>): string => c.get("services").config.siteUrl ?? new URL(c.req.url).origin;
