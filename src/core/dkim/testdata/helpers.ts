// Test helpers: a sample message, generated keys published in a FakeResolver, org-domain stub. No I/O.
import { FakeResolver, type Zone } from "../../../../test/support/fake-resolver";
import { generateKeyPair, type GeneratedKey, type KeyAlgorithm } from "../generate";

export const NOW = new Date("2026-03-01T12:00:00Z");
export const NOW_S = Math.floor(NOW.getTime() / 1000);

export const SAMPLE = [
  "From: Alice <alice@example.com>",
  "To: Bob <bob@example.net>",
  "Subject: Quarterly numbers",
  "Date: Sun, 01 Mar 2026 11:59:00 +0000",
  "Message-ID: <abc123@example.com>",
  "MIME-Version: 1.0",
  "Content-Type: text/plain; charset=utf-8",
  "",
  "Hello Bob,",
  "",
  "The numbers are attached.  Regards,   Alice",
  "",
].join("\r\n");

/** Organizational domain stub: the last two labels (enough for example.com-style names in tests). */
export const orgDomain = async (d: string): Promise<string | null> => d.split(".").slice(-2).join(".");

export async function newKey(algorithm: KeyAlgorithm, selector = "sel", domain = "example.com"): Promise<GeneratedKey> {
  const r = await generateKeyPair({ domain, selector, algorithm });
  if (!r.ok) throw new Error(r.error);
  return r.value;
}

export function zoneFor(keys: GeneratedKey[], extra: Zone = {}): FakeResolver {
  const zone: Zone = { ...extra };
  for (const k of keys) zone[k.dns.host] = { TXT: [k.dns.value] };
  return new FakeResolver(zone);
}
