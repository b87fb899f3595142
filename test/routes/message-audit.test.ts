// POST /api/v1/messages/audit through the Worker's fetch export, DNS from the DoH stub: SPF (RFC 7208),
// DKIM (RFC 6376), DMARC (RFC 9989), one-click unsubscribe (RFC 8058) and the provider tables.
import { beforeAll, describe, expect, it } from "vitest";
import { generateKeyPair, type GeneratedKey } from "../../src/core/dkim/generate";
import { signMessage } from "../../src/core/dkim/sign";
import { call, json, makeTeam, type TestTeam } from "../support/api";
import { installDohStub, type StubZone } from "../support/doh-stub";

let team: TestTeam;
let key: GeneratedKey;
let otherKey: GeneratedKey;
beforeAll(async () => {
  team = await makeTeam();
  const k = await generateKeyPair({ domain: "news.test", selector: "s1", algorithm: "ed25519" });
  const o = await generateKeyPair({ domain: "esp.test", selector: "e1", algorithm: "ed25519" });
  if (!k.ok || !o.ok) throw new Error("key generation failed");
  key = k.value;
  otherKey = o.value;
});

const IP = "192.0.2.10";
const HOP = `Received: from mail.news.test (mail.news.test [${IP}]) by mx.inbox.test with ESMTPS id 7a1; Sun, 01 Mar 2026 11:59:01 +0000`;

function body(extra: string[] = [], from = "News <hello@news.test>"): string {
  return [
    `From: ${from}`,
    "To: reader@inbox.test",
    "Subject: March issue",
    "Date: Sun, 01 Mar 2026 11:59:00 +0000",
    "Message-ID: <m-1@news.test>",
    ...extra,
    "",
    "Hello reader.",
    "",
  ].join("\r\n");
}

const ONE_CLICK = ["List-Unsubscribe: <https://news.test/u/1>, <mailto:u@news.test>", "List-Unsubscribe-Post: List-Unsubscribe=One-Click"];
const SIGNED_HEADERS = ["from", "to", "subject", "date", "message-id", "list-unsubscribe", "list-unsubscribe-post", "from"];

async function sign(message: string, k = key, headers = SIGNED_HEADERS): Promise<string> {
  const present = headers.filter((h) => h === "from" || message.toLowerCase().includes(`\r\n${h}:`) || message.toLowerCase().startsWith(`${h}:`));
  const r = await signMessage(message, {
    domain: k.dns.host.split("._domainkey.")[1] ?? "",
    selector: k.selector,
    privateKey: k.private_key_pem,
    algorithm: "ed25519-sha256",
    headers: present,
  });
  if (!r.ok) throw new Error(r.error);
  return r.value;
}

function zone(extra: StubZone = {}): StubZone {
  return {
    "news.test": { TXT: ["v=spf1 ip4:192.0.2.0/24 -all"], A: ["192.0.2.80"], MX: [{ preference: 10, exchange: "mx.news.test" }] },
    "_dmarc.news.test": { TXT: ["v=DMARC1; p=reject; rua=mailto:d@news.test"] },
    [key.dns.host]: { TXT: [key.dns.value] },
    [otherKey.dns.host]: { TXT: [otherKey.dns.value] },
    "esp.test": { TXT: ["v=spf1 ip4:198.51.100.0/24 -all"] },
    "10.2.0.192.in-addr.arpa": { PTR: ["mail.news.test"] },
    "mail.news.test": { A: [IP], TXT: ["v=spf1 a -all"] },
    ...extra,
  };
}

interface Row {
  id: string;
  state: string;
  requirement: string;
  detail: string;
  fix: string | null;
}
interface Audit {
  envelope: Record<string, { value: string | null; source: string }> & { notes: string[]; received_hop: string | null };
  spf: {
    identity: string | null;
    result: string;
    domain: string | null;
    mail_from: { mechanism: string | null; path: Array<{ domain: string }> } | null;
    helo: { result: string } | null;
  };
  dkim: { result: string; signatures: Array<{ domain: string; result: string; headers: string[] }> };
  dmarc: {
    result: string;
    organizational_domain: string | null;
    policy: { p: string; sp: string | null; t: boolean; pct: number | null; domain: string; inherited: boolean } | null;
    policy_tag: string | null;
    spf: { alignment: string };
    dkim: Array<{ domain: string; alignment: string }>;
    disposition: string;
    disposition_rule: string;
  };
  arc: { result: string; cv: string | null; override: { applicable: boolean; explanation: string } };
  one_click: { status: string; https_uri: string | null; signed_by: string | null; problems: string[] };
  reverse_dns: { result: string; confirmed: string | null } | null;
  tls: { used: boolean | null };
  format: { ok: boolean; problems: string[] };
  marketing: { marketing: boolean | null };
  bimi: { eligible: boolean | null; problems: string[] };
  providers: Array<{ provider: string; source: { url: string; published: string }; rows: Row[]; failing: number }>;
  headers_only: boolean;
  receiver_reported: Record<string, string> | null;
}

async function audit(payload: Record<string, unknown>, token = team.full): Promise<Audit> {
  const res = await call("/api/v1/messages/audit", { method: "POST", token, body: payload });
  expect(res.status, await res.clone().text()).toBe(200);
  return (await json<{ data: Audit }>(res)).data;
}

const row = (a: Audit, provider: string, id: string): Row => {
  const r = a.providers.find((p) => p.provider === provider)?.rows.find((x) => x.id === id);
  if (!r) throw new Error(`no row ${provider}/${id}`);
  return r;
};

describe("POST /api/v1/messages/audit", () => {
  it("audits a signed newsletter: SPF, DKIM and DMARC pass, one-click present, every provider row met", async () => {
    installDohStub(zone());
    const msg = `${HOP}\r\n${await sign(body(ONE_CLICK))}`;
    const a = await audit({ message: msg, mail_from: "bounce@news.test", trusted_authserv_id: "mx.inbox.test" });
    expect(a.envelope.ip).toEqual({ value: IP, source: "received" });
    expect(a.envelope.helo).toEqual({ value: "mail.news.test", source: "received" });
    expect(a.envelope.mail_from).toEqual({ value: "bounce@news.test", source: "input" });
    expect(a.spf).toMatchObject({ identity: "mail_from", result: "pass", domain: "news.test" });
    expect(a.spf.mail_from?.mechanism).toBe("ip4:192.0.2.0/24");
    expect(a.spf.helo?.result).toBe("pass"); // "a" of mail.news.test is the client
    expect(a.dkim.result).toBe("pass");
    expect(a.dmarc).toMatchObject({ result: "pass", organizational_domain: "news.test", policy_tag: "p", disposition: "none" });
    expect(a.dmarc.spf.alignment).toBe("aligned");
    expect(a.dmarc.dkim[0]?.alignment).toBe("aligned");
    expect(a.one_click).toMatchObject({ status: "present", https_uri: "https://news.test/u/1", signed_by: "news.test" });
    expect(a.reverse_dns).toMatchObject({ result: "pass", confirmed: "mail.news.test" });
    expect(a.tls.used).toBe(true);
    expect(a.format.ok).toBe(true);
    expect(a.arc).toMatchObject({ result: "none", cv: "none", override: { applicable: false } });
    expect(a.providers.map((p) => p.provider)).toEqual(["gmail", "yahoo", "microsoft"]);
    for (const p of a.providers) {
      expect(p.failing).toBe(0);
      expect(p.rows.every((r) => r.state === "met" && r.fix === null)).toBe(true);
    }
    expect(a.providers[0]?.source.url).toBe("https://support.google.com/a/answer/81126");
  });

  it("reads the envelope from the trusted receiver's Authentication-Results and Return-Path, not from a forged lower Received", async () => {
    installDohStub(zone());
    const forged = `Received: from evil.test (evil.test [203.0.113.9]) by mail.news.test with ESMTP id x; Sun, 01 Mar 2026 11:58:00 +0000`;
    const ar = "Authentication-Results: mx.inbox.test; spf=pass smtp.mailfrom=bounce@news.test smtp.helo=mail.news.test";
    const fakeAr = "Authentication-Results: evil.test; spf=pass smtp.mailfrom=x@evil.test";
    const msg = [HOP, ar, fakeAr, forged, await sign(body())].join("\r\n");
    const a = await audit({ message: msg, trusted_authserv_id: "mx.inbox.test" });
    expect(a.envelope.ip).toEqual({ value: IP, source: "received" });
    expect(a.envelope.mail_from).toEqual({ value: "bounce@news.test", source: "authentication-results" });
    expect(a.envelope.helo).toEqual({ value: "mail.news.test", source: "authentication-results" });
    expect(a.spf.result).toBe("pass");

    // Without A-R, MAIL FROM comes from Return-Path (RFC 5321 §4.4).
    const rp = await audit({ message: [HOP, "Return-Path: <rp@news.test>", await sign(body())].join("\r\n") });
    expect(rp.envelope.mail_from).toEqual({ value: "rp@news.test", source: "return-path" });
    expect(rp.envelope.notes.join(" ")).toContain("trusted_authserv_id");
  });

  it("SPF fail: the IP is outside the record, -all matches; DMARC still passes on aligned DKIM", async () => {
    installDohStub(zone());
    const a = await audit({ message: await sign(body(ONE_CLICK)), ip: "203.0.113.5", helo: "mail.news.test", mail_from: "bounce@news.test" });
    expect(a.spf).toMatchObject({ result: "fail", domain: "news.test" });
    expect(a.spf.mail_from?.mechanism).toBe("-all");
    expect(a.dmarc.result).toBe("pass");
    expect(a.dmarc.spf.alignment).toBe("not_applicable");
    const spfRow = row(a, "gmail", "spf_pass");
    expect(spfRow.state).toBe("not_met");
    expect(spfRow.fix).toContain("203.0.113.5");
    expect(row(a, "gmail", "dmarc_alignment").state).toBe("met");
    // No PTR for 203.0.113.5: Gmail and Yahoo require forward-confirmed reverse DNS, Microsoft does not publish it.
    expect(row(a, "gmail", "fcrdns").state).toBe("not_met");
    expect(row(a, "microsoft", "fcrdns").requirement).toBe("not_published");
  });

  it("SPF through include: names the lookup path and the matched mechanism", async () => {
    installDohStub(
      zone({
        "news.test": { TXT: ["v=spf1 include:_spf.esp.test -all"] },
        "_spf.esp.test": { TXT: ["v=spf1 ip4:192.0.2.0/24 ~all"] },
      }),
    );
    const a = await audit({ message: await sign(body()), ip: IP, helo: "mail.news.test", mail_from: "bounce@news.test" });
    expect(a.spf.result).toBe("pass");
    expect(a.spf.mail_from?.mechanism).toBe("include:_spf.esp.test");
    expect(a.spf.mail_from?.path.map((p) => p.domain)).toEqual(["news.test", "_spf.esp.test"]);
  });

  it("DMARC fail: DKIM by an unaligned ESP domain and SPF for its bounce domain; p=reject is the disposition", async () => {
    installDohStub(zone());
    const a = await audit({
      message: await sign(body(), otherKey),
      ip: "198.51.100.7",
      helo: "out.esp.test",
      mail_from: "b@esp.test",
    });
    expect(a.spf).toMatchObject({ result: "pass", domain: "esp.test" });
    expect(a.dkim.result).toBe("pass");
    expect(a.dmarc.result).toBe("fail");
    expect(a.dmarc.spf.alignment).toBe("unaligned");
    expect(a.dmarc.dkim[0]).toMatchObject({ domain: "esp.test", alignment: "unaligned" });
    expect(a.dmarc.disposition).toBe("reject");
    expect(a.dmarc.disposition_rule).toContain("p=reject");
    const alignment = row(a, "yahoo", "dmarc_alignment");
    expect(alignment.state).toBe("not_met");
    expect(alignment.fix).toContain("d=news.test");
    expect(a.bimi.eligible).toBe(false);
  });

  it("relaxed alignment through the tree walk; a subdomain without a record gets sp, and t=y lowers it one step (RFC 9989 §5.3)", async () => {
    installDohStub(zone({ "_dmarc.news.test": { TXT: ["v=DMARC1; p=reject; sp=quarantine; t=y"] }, "promo.news.test": { A: ["192.0.2.81"] } }));
    const a = await audit({
      message: await sign(body([], "Promo <p@promo.news.test>"), otherKey),
      ip: "198.51.100.7",
      helo: "out.esp.test",
      mail_from: "b@esp.test",
    });
    expect(a.dmarc.organizational_domain).toBe("news.test");
    expect(a.dmarc.policy).toMatchObject({ domain: "news.test", inherited: true, p: "reject", sp: "quarantine", t: true });
    expect(a.dmarc.policy_tag).toBe("sp");
    expect(a.dmarc.result).toBe("fail");
    expect(a.dmarc.disposition).toBe("none");
    expect(a.dmarc.disposition_rule).toContain("t=y");

    // Same policy, signed by news.test: relaxed DKIM alignment with promo.news.test passes.
    const ok = await audit({ message: await sign(body([], "Promo <p@promo.news.test>")), ip: IP, mail_from: "b@news.test" });
    expect(ok.dmarc.result).toBe("pass");
    expect(ok.dmarc.dkim[0]?.alignment).toBe("aligned");
  });

  it("np applies to a non-existent subdomain (NXDOMAIN for A, AAAA and MX)", async () => {
    installDohStub(zone({ "_dmarc.news.test": { TXT: ["v=DMARC1; p=none; sp=quarantine; np=reject"] } }));
    const a = await audit({ message: body([], "<x@ghost.news.test>"), ip: "198.51.100.7", mail_from: "b@esp.test" });
    expect(a.dmarc.policy_tag).toBe("np");
    expect(a.dmarc.disposition).toBe("reject");
  });

  it("one-click unsubscribe: present, absent, not signed, and a wrong Post value", async () => {
    installDohStub(zone());
    const base = { ip: IP, helo: "mail.news.test", mail_from: "bounce@news.test" };
    const absent = await audit({ ...base, message: await sign(body()) });
    expect(absent.one_click.status).toBe("absent");
    expect(absent.marketing.marketing).toBeNull();
    const cannot = row(absent, "gmail", "one_click");
    expect(cannot.state).toBe("cannot_tell");

    const unsigned = await audit({ ...base, message: await sign(body(ONE_CLICK), key, ["from", "to", "subject", "date", "message-id"]) });
    expect(unsigned.one_click.status).toBe("unsigned");
    expect(unsigned.dkim.result).toBe("pass");
    const r = row(unsigned, "gmail", "one_click");
    expect(r.state).toBe("not_met");
    expect(r.fix).toContain("h=");

    // Signed, but by the unaligned ESP domain: RFC 8058 wants a valid signature, the providers an aligned one.
    const esp = await audit({ ...base, message: await sign(body(ONE_CLICK), otherKey) });
    expect(esp.one_click.status).toBe("unsigned");

    const wrong = await audit({
      ...base,
      message: await sign(body(["List-Unsubscribe: <mailto:u@news.test>", "List-Unsubscribe-Post: List-Unsubscribe=Yes"])),
    });
    expect(wrong.one_click.status).toBe("invalid");
    expect(wrong.one_click.problems.join(" ")).toMatch(/https/);
    expect(wrong.one_click.problems.join(" ")).toMatch(/exactly/);
    expect(row(wrong, "yahoo", "one_click").state).toBe("not_met");

    const bulk = await audit({ ...base, message: await sign(body(["Precedence: bulk"])) });
    expect(bulk.marketing.marketing).toBe(true);
    expect(row(bulk, "gmail", "one_click").state).toBe("not_met");
  });

  it("format and TLS rows: two From fields, no Message-ID, a plain ESMTP last hop", async () => {
    installDohStub(zone());
    const msg = [
      `Received: from mail.news.test (mail.news.test [${IP}]) by mx.inbox.test with ESMTP id 1; Sun, 01 Mar 2026 11:59:01 +0000`,
      "From: a@news.test",
      "From: b@news.test",
      "Date: Sun, 01 Mar 2026 11:59:00 +0000",
      "",
      "x",
    ].join("\r\n");
    const a = await audit({ message: msg, mail_from: "bounce@news.test", trusted_authserv_id: "mx.inbox.test" });
    expect(a.format.ok).toBe(false);
    expect(a.format.problems.join(" ")).toContain("2 From fields");
    expect(a.format.problems.join(" ")).toContain("Message-ID");
    expect(a.dmarc.result).toBe("permerror");
    expect(a.tls.used).toBe(false);
    expect(row(a, "gmail", "tls")).toMatchObject({ state: "not_met", requirement: "required" });
    expect(row(a, "gmail", "format").state).toBe("not_met");
    expect(row(a, "yahoo", "tls").requirement).toBe("not_published");
  });

  it("pasted headers only: body hashes prove nothing, so DKIM-dependent rows say cannot tell and quote the receiver's results", async () => {
    installDohStub(zone());
    const signed = await sign(body(ONE_CLICK));
    const headers = signed.slice(0, signed.indexOf("\r\n\r\n"));
    const ar = "Authentication-Results: mx.inbox.test; dkim=pass header.d=news.test; spf=pass smtp.mailfrom=bounce@news.test; dmarc=pass header.from=news.test";
    const a = await audit({ message: [HOP, ar, headers].join("\r\n"), trusted_authserv_id: "mx.inbox.test" });
    expect(a).toMatchObject({ headers_only: true, receiver_reported: { dkim: "pass", spf: "pass", dmarc: "pass" } });
    expect(a.dkim.signatures[0]).toMatchObject({ result: "fail" });
    const dkimRow = row(a, "gmail", "dkim_pass");
    expect(dkimRow.state).toBe("cannot_tell");
    expect(dkimRow.detail).toContain("Your receiver reported dkim=pass");
    expect(row(a, "gmail", "one_click").state).toBe("cannot_tell");
    // SPF from the receiver's envelope still passes and aligns, so DMARC passes on SPF alone.
    expect(a.dmarc.result).toBe("pass");
    expect(row(a, "gmail", "dmarc_alignment").state).toBe("met");
  });

  it("a null MAIL FROM is checked through HELO (RFC 7208 §2.4)", async () => {
    installDohStub(zone());
    const a = await audit({ message: await sign(body()), ip: IP, helo: "mail.news.test", mail_from: "<>" });
    expect(a.spf).toMatchObject({ identity: "helo", result: "pass", domain: "mail.news.test" });
    // mail.news.test is under news.test: relaxed SPF alignment.
    expect(a.dmarc.spf.alignment).toBe("aligned");
  });

  it("a DNS failure is temperror, never fail, and the rows say cannot tell", async () => {
    const stub = installDohStub(zone());
    stub.setFault("news.test", "TXT", "servfail");
    stub.setFault("_dmarc.news.test", "TXT", "servfail");
    stub.setFault(key.dns.host, "TXT", "servfail");
    stub.setFault("10.2.0.192.in-addr.arpa", "PTR", "servfail");
    const a = await audit({ message: await sign(body()), ip: IP, helo: "mail.news.test", mail_from: "bounce@news.test" });
    expect(a.spf.result).toBe("temperror");
    expect(a.dkim.result).toBe("temperror");
    expect(a.dmarc.result).toBe("temperror");
    expect(a.dmarc.disposition).toBe("none");
    expect(a.reverse_dns?.result).toBe("temperror");
    for (const id of ["spf_pass", "dkim_pass", "dmarc_record", "dmarc_alignment", "fcrdns"]) expect(row(a, "gmail", id).state).toBe("cannot_tell");
    expect(a.providers.every((p) => p.failing === 0)).toBe(true);
  });

  it("accepts the message as message/rfc822 with the envelope in the query", async () => {
    installDohStub(zone());
    const msg = await sign(body(ONE_CLICK));
    const res = await call(`/api/v1/messages/audit?ip=${IP}&mail_from=bounce%40news.test&helo=mail.news.test`, {
      method: "POST",
      token: team.readOnly,
      rawBody: new TextEncoder().encode(msg),
      headers: { "content-type": "message/rfc822" },
    });
    expect(res.status, await res.clone().text()).toBe(200);
    const a = (await json<{ data: Audit }>(res)).data;
    expect(a.envelope.ip).toEqual({ value: IP, source: "input" });
    expect(a.dmarc.result).toBe("pass");
    expect(a.one_click.status).toBe("present");
  });

  it("refuses a message over 1 MB with 413 (JSON and message/rfc822), bad envelope values with 422, other types with 415", async () => {
    installDohStub({});
    const head = "From: a@news.test\r\nSubject: big\r\n\r\n";
    const over = head + "a".repeat(1024 * 1024 - head.length + 1);
    const json413 = await call("/api/v1/messages/audit", { method: "POST", token: team.full, body: { message: over } });
    expect(json413.status).toBe(413);
    expect(await json(json413)).toMatchObject({ code: "payload_too_large" });
    const raw413 = await call("/api/v1/messages/audit", { method: "POST", token: team.full, rawBody: over, headers: { "content-type": "message/rfc822" } });
    expect(raw413.status).toBe(413);
    const badIp = await call("/api/v1/messages/audit", { method: "POST", token: team.full, body: { message: head, ip: "999.1.1.1", mail_from: "no at sign" } });
    expect(badIp.status).toBe(422);
    expect(Object.keys((await json<{ errors: Record<string, string[]> }>(badIp)).errors).sort()).toEqual(["ip", "mail_from"]);
    expect((await call("/api/v1/messages/audit", { method: "POST", token: team.full, body: {} })).status).toBe(422);
    expect((await call("/api/v1/messages/audit", { method: "POST", token: team.full, rawBody: head, headers: { "content-type": "text/plain" } })).status).toBe(
      415,
    );
  });

  it("needs a token (401); a read-only token may audit, as it may verify DKIM", async () => {
    installDohStub(zone());
    expect((await call("/api/v1/messages/audit", { method: "POST", body: { message: body() } })).status).toBe(401);
    expect((await call("/api/v1/messages/audit", { method: "POST", token: "nope", body: { message: body() } })).status).toBe(401);
    const a = await audit({ message: body(), ip: IP, mail_from: "bounce@news.test" }, team.readOnly);
    expect(a.spf.result).toBe("pass");
    expect(a.dkim.result).toBe("none");
  });
});
