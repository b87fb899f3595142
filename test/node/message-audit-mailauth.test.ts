// The message audit's DMARC and ARC verdicts against mailauth's authenticate() (an independent
// implementation, Node only) on messages built for the test from one DNS zone: a direct aligned
// message, an unaligned ESP message, an unsigned softfail, and a mailing-list forward whose footer
// breaks the author's DKIM body hash and which the list seals with mailauth's own ARC sealer
// (sealMessage). mailauth's package ships no test messages (node_modules/mailauth has no test folder),
// so there is no third-party signed corpus to add here. Where the two differ, the RFC decides below.
import { authenticate } from "mailauth";
import { sealMessage } from "mailauth/lib/arc";
import { beforeAll, describe, expect, it } from "vitest";
import { generateKeyPair, type GeneratedKey } from "../../src/core/dkim/generate";
import { signMessage } from "../../src/core/dkim/sign";
import type { MxRecord } from "../../src/core/dns/types";
import { auditMessage } from "../../src/core/message-audit";
import { FakeResolver, type Zone } from "../support/fake-resolver";

const NOW = new Date();
let author: GeneratedKey;
let esp: GeneratedKey;
let list: GeneratedKey;
let zone: Zone;

beforeAll(async () => {
  const make = async (domain: string, selector: string) => {
    const r = await generateKeyPair({ domain, selector, algorithm: "rsa-2048" });
    if (!r.ok) throw new Error(r.error);
    return r.value;
  };
  [author, esp, list] = await Promise.all([make("news.test", "s1"), make("esp.test", "e1"), make("list.test", "arc")]);
  zone = {
    "news.test": { TXT: ["v=spf1 ip4:192.0.2.0/24 ~all"], A: ["192.0.2.80"] },
    "_dmarc.news.test": { TXT: ["v=DMARC1; p=reject; rua=mailto:d@news.test"] },
    "esp.test": { TXT: ["v=spf1 ip4:198.51.100.0/25 -all"] },
    "list.test": { TXT: ["v=spf1 ip4:203.0.113.0/24 -all"] },
    "_dmarc.list.test": { TXT: ["v=DMARC1; p=none"] },
    "shop.test": { TXT: ["v=spf1 ip4:192.0.2.0/24 ~all"] },
    "_dmarc.shop.test": { TXT: ["v=DMARC1; p=quarantine"] },
    [author.dns.host]: { TXT: [author.dns.value] },
    [esp.dns.host]: { TXT: [esp.dns.value] },
    [list.dns.host]: { TXT: [list.dns.value] },
  };
});

/** mailauth's resolver contract: TXT as string[][], other types as arrays; ENOTFOUND / ENODATA errors. */
function mailauthResolver(z: Zone) {
  return async (name: string, type: string): Promise<string[][] | string[]> => {
    const entry = z[name.toLowerCase().replace(/\.$/, "")];
    if (entry === undefined || entry === "nxdomain") throw Object.assign(new Error(`${name} not found`), { code: "ENOTFOUND" });
    if (entry === "temperror") throw Object.assign(new Error("servfail"), { code: "ESERVFAIL" });
    const records = (entry as Record<string, unknown[] | undefined>)[type];
    if (!records || records.length === 0) throw Object.assign(new Error(`${name} ${type} no data`), { code: "ENODATA" });
    if (type === "TXT") return (records as string[]).map((t) => [t]);
    if (type === "MX") return (records as MxRecord[]).map((m) => ({ exchange: m.exchange, priority: m.preference })) as unknown as string[];
    return records as string[];
  };
}

/** mailauth answers false for a check it did not run. */
const statusOf = (r: false | { status: { result: string } }) => (r === false ? null : r.status.result);
const policyOf = (r: false | { policy: string }) => (r === false ? null : r.policy);

const lines = (...l: string[]) => `${l.join("\r\n")}\r\n`;

function newsletter(from = "News <hello@news.test>"): string {
  return lines(
    `From: ${from}`,
    "To: members@list.test",
    "Subject: March issue",
    "Date: Sun, 01 Mar 2026 11:59:00 +0000",
    "Message-ID: <m-1@news.test>",
    "MIME-Version: 1.0",
    "Content-Type: text/plain; charset=utf-8",
    "",
    "Hello reader.",
  );
}

async function sign(message: string, key: GeneratedKey): Promise<string> {
  const r = await signMessage(message, { domain: key.domain, selector: key.selector, privateKey: key.private_key_pem, algorithm: "rsa-sha256" });
  if (!r.ok) throw new Error(r.error);
  return r.value;
}

interface Envelope {
  ip: string;
  helo: string;
  sender: string;
}

async function both(message: string, env: Envelope) {
  const ours = await auditMessage(message, { ip: env.ip, helo: env.helo, mail_from: env.sender }, { resolver: new FakeResolver(zone), now: NOW });
  const theirs = await authenticate(message, { ...env, mta: "mx.inbox.test", resolver: mailauthResolver(zone) });
  return { ours, theirs };
}

/** A mailing list receives the author's message, records its results, adds a footer and seals (RFC 8617 §5.1). */
async function forwardedByList(original: string): Promise<string> {
  const atList = await authenticate(original, {
    ip: "192.0.2.10",
    helo: "mail.news.test",
    sender: "bounce@news.test",
    mta: "mx.list.test",
    resolver: mailauthResolver(zone),
  });
  const ar = /Authentication-Results: ([\s\S]*?)\r\n(?=\S|$)/.exec(atList.headers)?.[1];
  if (!ar) throw new Error(`no Authentication-Results in ${atList.headers}`);
  const modified = `${original.replace("Subject: March issue", "Subject: [members] March issue")}\r\n-- \r\nYou are on the members list.\r\n`;
  const seal = await sealMessage(modified, { signingDomain: "list.test", selector: "arc", privateKey: list.private_key_pem, authResults: ar, cv: "none" });
  return seal.toString() + modified;
}

describe("message audit vs mailauth authenticate()", () => {
  it("a direct, aligned message: both pass DMARC", async () => {
    const { ours, theirs } = await both(await sign(newsletter(), author), { ip: "192.0.2.10", helo: "mail.news.test", sender: "bounce@news.test" });
    expect(ours.spf.result).toBe(statusOf(theirs.spf));
    expect(ours.dkim.result).toBe(theirs.dkim.results[0]?.status.result);
    expect(ours.dmarc.result).toBe("pass");
    expect(statusOf(theirs.dmarc)).toBe("pass");
  });

  it("an unaligned ESP message: both fail DMARC and apply the author's p=reject", async () => {
    const { ours, theirs } = await both(await sign(newsletter(), esp), { ip: "198.51.100.7", helo: "out.esp.test", sender: "b@esp.test" });
    expect(ours.spf.result).toBe("pass");
    expect(ours.dmarc.result).toBe("fail");
    expect(statusOf(theirs.dmarc)).toBe("fail");
    expect(ours.dmarc.disposition).toBe("reject");
    expect(policyOf(theirs.dmarc)).toBe("reject");
  });

  it("an unsigned message from outside the SPF range: softfail, DMARC fail with p=quarantine in both", async () => {
    const { ours, theirs } = await both(newsletter("Shop <s@shop.test>"), { ip: "198.51.100.200", helo: "x.example", sender: "s@shop.test" });
    expect(ours.spf.result).toBe("softfail");
    expect(statusOf(theirs.spf)).toBe("softfail");
    expect(ours.dmarc.result).toBe("fail");
    expect(statusOf(theirs.dmarc)).toBe("fail");
    expect(ours.dmarc.disposition).toBe("quarantine");
    expect(policyOf(theirs.dmarc)).toBe("quarantine");
  });

  it("a mailing-list forward: the footer breaks DKIM, DMARC fails in both, the list's ARC seal validates in both, and the audit names the sealer that recorded the pass", async () => {
    const forwarded = await forwardedByList(await sign(newsletter(), author));
    const { ours, theirs } = await both(forwarded, { ip: "203.0.113.5", helo: "mail.list.test", sender: "bounce+m=news.test@list.test" });
    expect(ours.dkim.result).toBe("fail");
    expect(ours.dkim.signatures[0]?.body_hash).toBe("fail");
    // They differ here: mailauth's lenient default calls a body hash mismatch "neutral"; RFC 6376
    // §6.1.3 makes it a failed verification (PERMFAIL), which RFC 8601 §2.7.1 reports as "fail", as
    // the audit does and as mailauth's strict mode does.
    expect(theirs.dkim.results[0]?.status.result).toBe("neutral");
    const strict = await authenticate(forwarded, {
      ip: "203.0.113.5",
      helo: "mail.list.test",
      sender: "bounce@list.test",
      mta: "mx.inbox.test",
      resolver: mailauthResolver(zone),
      strict: true,
    });
    expect(strict.dkim.results[0]?.status.result).toBe("fail");
    expect(ours.dmarc.result).toBe("fail");
    expect(statusOf(theirs.dmarc)).toBe("fail");
    expect(ours.arc.result).toBe("pass");
    expect(statusOf(theirs.arc)).toBe("pass");
    // RFC 8617 §7.2: the receiver may trust list.test, whose AAR says the author's message passed DMARC.
    expect(ours.arc.override).toMatchObject({ applicable: true, sealer: "list.test", instance: 1, result_if_trusted: "pass", disposition_if_trusted: "none" });
    expect(ours.arc.override.recorded?.dmarc).toBe("pass");
  });

  it("a forward changed after the seal: both call the chain fail, and the audit says where it broke", async () => {
    const forwarded = await forwardedByList(await sign(newsletter(), author));
    const tampered = `${forwarded}Added by a later hop that did not seal.\r\n`;
    const { ours, theirs } = await both(tampered, { ip: "203.0.113.5", helo: "mail.list.test", sender: "bounce@list.test" });
    expect(ours.arc.result).toBe("fail");
    expect(statusOf(theirs.arc)).toBe("fail");
    expect(ours.arc.broken_at).toBe(1);
    expect(ours.arc.override).toMatchObject({ applicable: false, result_if_trusted: null });
    expect(ours.dmarc.result).toBe("fail");
    expect(statusOf(theirs.dmarc)).toBe("fail");
  });
});
