// POST /messages/audit service: checks the size cap and the envelope inputs, then audits the message as a
// receiver would (core/message-audit). DNS I/O via svc.createResolver(); nothing is stored.
import { DkimKeyCache, toWire } from "../../core/dkim";
import { normalizeDomainName } from "../../core/dns/names";
import { auditMessage, type MessageAudit } from "../../core/message-audit";
import { parseIp } from "../../core/spf/ip";
import { type FieldErrors, payloadTooLarge, validationFailed } from "../../lib/errors";
import type { Services } from "../../services";
import { MAX_MESSAGE_BYTES } from "../dkim-tools/verify";
import type { AuditRequest } from "./inputs";

/** Keys shared by the audits of this isolate, as for /dkim/verify (docs/decisions.md D53). */
const keyCache = new DkimKeyCache(256);

export type AuditInput = Omit<AuditRequest, "message"> & { message: string | Uint8Array };

/** Checks each given envelope value; an empty value counts as not given, except MAIL FROM where "" is the null reverse-path. */
function envelope(input: AuditInput) {
  const errors: FieldErrors = {};
  const given = (v: string | undefined) => (v === undefined || v.trim() === "" ? undefined : v.trim());
  const ip = given(input.ip);
  if (ip !== undefined && parseIp(ip) === null) errors.ip = [`"${ip}" is not an IPv4 or IPv6 address`];
  const helo = given(input.helo);
  if (helo !== undefined && !/^\[.*\]$/.test(helo) && !normalizeDomainName(helo, { allowUnderscore: true }).ok) errors.helo = [`"${helo}" is not a host name`];
  let mailFrom = input.mail_from?.trim();
  if (mailFrom !== undefined) {
    mailFrom = mailFrom.replace(/^<(.*)>$/, "$1");
    if (mailFrom !== "" && !/^[^\s@]*@[^\s@]+\.[^\s@]+$/.test(mailFrom))
      errors.mail_from = [`"${mailFrom}" is not an address (use "" or "<>" for a null reverse-path)`];
  }
  const id = given(input.trusted_authserv_id);
  if (id !== undefined && !/^[A-Za-z0-9._-]+$/.test(id)) errors.trusted_authserv_id = [`"${id}" is not an authserv-id (a host name)`];
  if (Object.keys(errors).length > 0) throw validationFailed(errors);
  return { ip, helo, mail_from: mailFrom, trusted_authserv_id: id };
}

/** DNS failures never become a 503 here: each check they touch answers temperror. */
export async function auditRawMessage(svc: Services, input: AuditInput): Promise<MessageAudit> {
  const wire = toWire(input.message);
  if (wire.size > MAX_MESSAGE_BYTES) throw payloadTooLarge(`The message must be at most ${MAX_MESSAGE_BYTES} bytes (it has ${wire.size}).`);
  const env = envelope(input);
  return auditMessage(wire, env, { resolver: svc.createResolver(), now: svc.clock.now(), keyCache });
}
