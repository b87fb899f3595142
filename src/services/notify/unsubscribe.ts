// One-click unsubscribe (RFC 8058) for mail to people: a link per recipient and purpose, signed with
// HMAC-SHA-256 under a key derived by HKDF (RFC 5869) from WEBHOOK_SECRET_KEY with info "unsubscribe",
// so no row is stored per link and a link cannot be forged or turned onto another member, channel or
// team. Links do not expire: a mail read months later must still stop the mail (docs/decisions.md D187).
// Does I/O (D1).
import { and, eq, sql } from "drizzle-orm";
import { base64ToBytes, utf8 } from "../../core/webhooks/encoding";
import { type DigestFrequency, DIGEST_FREQUENCIES, memberDigestPrefs, memberships, notificationChannels, channelSubscribers, teams } from "../../db/schema";
import { sha256Hex, timingSafeEqual } from "../../lib/crypto";
import { ApiError } from "../../lib/errors";
import type { Services } from "../../services";
import { auditWhen } from "../audit-when";
import { commit } from "../commit";
import { systemContext } from "../context";
import { workOrigin } from "./links";

export type UnsubscribeTarget =
  | { purpose: "channel"; teamId: number; channelId: number; userId: number | null; address: string | null }
  | { purpose: "digest"; teamId: number; userId: number };

/** A digest link may also set another frequency (the digest's "daily instead" and "weekly instead" links). */
type SignedTarget = UnsubscribeTarget & { frequency?: DigestFrequency };

const invalidLink = () =>
  new ApiError(404, "not_found", "This unsubscribe link is not valid. Change what you receive on the notification settings page instead.");
const keyMissing = () => new ApiError(503, "dependency_unavailable", "Unsubscribe links cannot be made: the WEBHOOK_SECRET_KEY secret is not configured.");
const siteMissing = () => new ApiError(503, "dependency_unavailable", "Unsubscribe links cannot be made: SITE_URL is not set.");

const derived = new Map<string, Promise<CryptoKey | null>>();

/** The HMAC key for links, derived from one WEBHOOK_SECRET_KEY value (base64 of 32 bytes); null when unusable. */
function linkKey(secretB64: string): Promise<CryptoKey | null> {
  let key = derived.get(secretB64);
  if (!key) {
    key = (async () => {
      const raw = base64ToBytes(secretB64);
      if (!raw.ok || raw.value.length !== 32) return null;
      const ikm = await crypto.subtle.importKey("raw", raw.value, "HKDF", false, ["deriveKey"]);
      return crypto.subtle.deriveKey(
        { name: "HKDF", hash: "SHA-256", salt: new Uint8Array(0), info: utf8("unsubscribe") },
        ikm,
        { name: "HMAC", hash: "SHA-256", length: 256 },
        false,
        ["sign"],
      );
    })();
    derived.set(secretB64, key);
  }
  return key;
}

const b64url = (bytes: ArrayBuffer) =>
  btoa(String.fromCharCode(...new Uint8Array(bytes)))
    .replace(/\+/g, "-")
    .replace(/\//g, "_")
    .replace(/=+$/, "");

async function mac(key: CryptoKey, payload: string): Promise<string> {
  return b64url(await crypto.subtle.sign("HMAC", key, utf8(`unsubscribe-link:v1:${payload}`)));
}

/** The address is bound by a short hash: the link names no address in clear. */
const addressTag = async (address: string) => (await sha256Hex(address.trim().toLowerCase())).slice(0, 16);

async function payloadOf(t: SignedTarget): Promise<string> {
  if (t.purpose === "digest") return `d.${t.teamId}.${t.userId}.${t.frequency ?? "off"}`;
  if (t.userId !== null) return `c.${t.teamId}.${t.channelId}.u${t.userId}`;
  if (t.address !== null) return `c.${t.teamId}.${t.channelId}.a${await addressTag(t.address)}`;
  throw new Error("an unsubscribe target names a member or an address");
}

type Parsed =
  | { purpose: "channel"; teamId: number; channelId: number; userId: number; addressTag: null }
  | { purpose: "channel"; teamId: number; channelId: number; userId: null; addressTag: string }
  | { purpose: "digest"; teamId: number; userId: number; frequency: DigestFrequency };

const id = (s: string | undefined) => (s && /^[1-9][0-9]{0,15}$/.test(s) ? Number(s) : null);

function parsePayload(payload: string): Parsed | null {
  const [kind, a, b, c, ...rest] = payload.split(".");
  if (rest.length > 0 || c === undefined) return null;
  const teamId = id(a);
  if (teamId === null) return null;
  if (kind === "d") {
    const userId = id(b);
    const frequency = DIGEST_FREQUENCIES.find((f) => f === c);
    return userId !== null && frequency ? { purpose: "digest", teamId, userId, frequency } : null;
  }
  if (kind !== "c") return null;
  const channelId = id(b);
  if (channelId === null) return null;
  if (c.startsWith("u")) {
    const userId = id(c.slice(1));
    return userId === null ? null : { purpose: "channel", teamId, channelId, userId, addressTag: null };
  }
  return c.startsWith("a") && /^a[0-9a-f]{16}$/.test(c) ? { purpose: "channel", teamId, channelId, userId: null, addressTag: c.slice(1) } : null;
}

async function signingKey(svc: Services): Promise<CryptoKey> {
  const key = svc.config.webhookSecretKey ? await linkKey(svc.config.webhookSecretKey) : null;
  if (!key) throw keyMissing();
  return key;
}

/** The token of a link: payload, then its MAC (base64url, RFC 4648 §5). */
async function tokenFor(svc: Services, target: SignedTarget): Promise<string> {
  const payload = await payloadOf(target);
  return `${payload}.${await mac(await signingKey(svc), payload)}`;
}

/** A token this service signed (with the current key or the one being retired), parsed; else a 404. */
async function verify(svc: Services, token: string): Promise<Parsed> {
  if (token.length > 200) throw invalidLink();
  const cut = token.lastIndexOf(".");
  const payload = token.slice(0, cut);
  const given = token.slice(cut + 1);
  const parsed = cut > 0 ? parsePayload(payload) : null;
  if (!parsed) throw invalidLink();
  for (const secret of [svc.config.webhookSecretKey, svc.config.webhookSecretKeyPrevious]) {
    const key = secret ? await linkKey(secret) : null;
    if (key && timingSafeEqual(await mac(key, payload), given)) return parsed;
  }
  throw invalidLink();
}

/** The origin of queued and scheduled work's links (SITE_URL; the loopback dev server in local development, D148). */
const linkBase = (svc: Services): string => {
  const origin = workOrigin(svc);
  if (origin === null) throw siteMissing();
  return origin;
};

/** The one-click link of a recipient (SITE_URL based, docs/decisions.md D148). */
export async function unsubscribeUrl(svc: Services, target: UnsubscribeTarget): Promise<string> {
  return `${linkBase(svc)}/unsubscribe/${await tokenFor(svc, target)}`;
}

/** A signed link that sets a member's digest frequency in one click (confirmed by a POST like the others). */
export async function digestFrequencyUrl(svc: Services, teamId: number, userId: number, frequency: DigestFrequency): Promise<string> {
  return `${linkBase(svc)}/unsubscribe/${await tokenFor(svc, { purpose: "digest", teamId, userId, frequency })}`;
}

/** RFC 8058 §3.1: an HTTPS URI in List-Unsubscribe and the one-click marker beside it. */
export { listUnsubscribeHeaders } from "../../core/notify/alert-mail";

export interface UnsubscribeSubject {
  purpose: "channel" | "digest";
  team: string;
  /** What the POST will do, in words. */
  action: string;
  /** The POST would change nothing (already stopped, channel gone, no longer a member). */
  already: boolean;
}

async function teamName(svc: Services, teamId: number): Promise<string | null> {
  const row = await svc.db.query.teams.findFirst({ columns: { name: true }, where: eq(teams.id, teamId) });
  return row?.name ?? null;
}

async function channelOf(svc: Services, p: Extract<Parsed, { purpose: "channel" }>) {
  const row = await svc.db.query.notificationChannels.findFirst({
    where: and(eq(notificationChannels.id, p.channelId), eq(notificationChannels.teamId, p.teamId), eq(notificationChannels.kind, "email")),
  });
  if (!row) return null;
  // An address link stops only the address it was sent to: a channel pointed elsewhere since is not touched.
  if (p.addressTag !== null && (row.emailMode !== "address" || !row.address || (await addressTag(row.address)) !== p.addressTag)) return null;
  return row;
}

async function memberDigest(svc: Services, teamId: number, userId: number) {
  const [member, pref] = await svc.db.batch([
    svc.db
      .select({ userId: memberships.userId })
      .from(memberships)
      .where(and(eq(memberships.teamId, teamId), eq(memberships.userId, userId))),
    svc.db
      .select({ frequency: memberDigestPrefs.frequency })
      .from(memberDigestPrefs)
      .where(and(eq(memberDigestPrefs.teamId, teamId), eq(memberDigestPrefs.userId, userId))),
  ]);
  return { member: member.length > 0, frequency: (pref[0]?.frequency ?? "weekly") as DigestFrequency };
}

const digestAction = (f: DigestFrequency) => (f === "off" ? "stop the digest mail" : `send the digest ${f}`);

/** What a link would do, for the page a GET shows (a GET never changes anything: RFC 8058 §1). */
export async function describeUnsubscribe(svc: Services, token: string): Promise<UnsubscribeSubject> {
  const p = await verify(svc, token);
  const team = (await teamName(svc, p.teamId)) ?? "a team that no longer exists";
  if (p.purpose === "digest") {
    const d = await memberDigest(svc, p.teamId, p.userId);
    return { purpose: "digest", team, action: `${digestAction(p.frequency)} for ${team}`, already: !d.member || d.frequency === p.frequency };
  }
  const channel = await channelOf(svc, p);
  let already = !channel?.enabled;
  if (channel && p.userId !== null) {
    const sub = await svc.db.query.channelSubscribers.findFirst({
      where: and(eq(channelSubscribers.channelId, channel.id), eq(channelSubscribers.userId, p.userId)),
    });
    already = !sub;
  }
  return { purpose: "channel", team, action: `stop the alert mail of "${channel?.name ?? "a removed channel"}" in ${team}`, already };
}

/** Applies a link: idempotent, so a mail client's POST and a second click both answer done. */
export async function applyUnsubscribe(svc: Services, token: string): Promise<{ done: string }> {
  const p = await verify(svc, token);
  const now = svc.clock.now();
  if (p.purpose === "digest") {
    const d = await memberDigest(svc, p.teamId, p.userId);
    if (!d.member) return { done: "You are no longer a member of this team: it sends you no digest." };
    await svc.db
      .insert(memberDigestPrefs)
      .values({ teamId: p.teamId, userId: p.userId, frequency: p.frequency, updatedAt: now })
      .onConflictDoUpdate({ target: [memberDigestPrefs.teamId, memberDigestPrefs.userId], set: { frequency: p.frequency, updatedAt: now } });
    return { done: p.frequency === "off" ? "You will get no more digests from this team." : `You will get the digest ${p.frequency}.` };
  }
  const channel = await channelOf(svc, p);
  if (!channel) return { done: "This alert mail is already stopped." };
  if (p.userId !== null) {
    await svc.db
      .delete(channelSubscribers)
      .where(and(eq(channelSubscribers.channelId, channel.id), eq(channelSubscribers.userId, p.userId), eq(channelSubscribers.teamId, p.teamId)));
    return { done: `You will get no more alert mail from "${channel.name}".` };
  }
  // An address channel mails one outside address: unsubscribing that address disables the channel.
  if (channel.enabled) {
    const where = and(eq(notificationChannels.id, channel.id), eq(notificationChannels.teamId, p.teamId));
    // The recipient acts by the signed link, not as a member: the entry names them (D241); only the click that disables is recorded.
    const byRecipient = { ...systemContext(p.teamId), origin: { face: "system" as const, label: `the recipient ${channel.address ?? ""}`.trim() } };
    await commit(svc, [
      auditWhen(
        svc,
        byRecipient,
        {
          verb: "notification_channel.disable",
          target: { type: "notification_channel", id: channel.id },
          summary: `email channel "${channel.name}" disabled: ${channel.address ?? "its address"} unsubscribed (RFC 8058 one-click)`,
        },
        { when: sql`EXISTS (SELECT 1 FROM notification_channels WHERE ${where} AND enabled = 1)` },
      ),
      svc.db.update(notificationChannels).set({ enabled: false, disabledReason: "unsubscribed by the recipient", disabledAt: now }).where(where),
    ]);
  }
  return { done: `This address will get no more alert mail from "${channel.name}".` };
}
