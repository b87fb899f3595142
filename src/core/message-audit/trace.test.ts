// Trace-field reading (RFC 5321 §4.4 Received, RFC 8601 Authentication-Results) on the forms real MTAs
// write, and the envelope's precedence (docs/decisions.md D202).
import { describe, expect, it } from "vitest";
import { parseMessage } from "../dkim/message";
import { deriveEnvelope, hopUsedTls, parseAuthResults, parseReceived } from "./trace";

describe("parseReceived", () => {
  it("reads Gmail's, Postfix's and Exchange's forms", () => {
    const gmail = parseReceived(
      " from mail-sor-f41.google.com (mail-sor-f41.google.com. [209.85.220.41])\r\n        by mx.google.com with SMTPS id a1sor;\r\n        Tue, 03 Mar 2026 01:02:03 -0800 (PST)",
    );
    expect(gmail).toMatchObject({ helo: "mail-sor-f41.google.com", ip: "209.85.220.41", by: "mx.google.com", with: "SMTPS" });
    const postfix = parseReceived(
      " from out.example.org (out.example.org [IPv6:2001:db8::25]) (using TLSv1.3 with cipher TLS_AES_256_GCM_SHA384 (256/256 bits)) by mx.example.net (Postfix) with ESMTPS id 4F; Mon, 2 Mar 2026 10:00:00 +0000",
    );
    expect(postfix).toMatchObject({ ip: "2001:db8::25", by: "mx.example.net", with: "ESMTPS" });
    expect(hopUsedTls(postfix)).toBe(true);
    const exchange = parseReceived(" from EX01.corp.example (10.0.0.5) by EX02.corp.example (10.0.0.6) with Microsoft SMTP Server id 15.2.1; Mon, 2 Mar 2026");
    expect(exchange).toMatchObject({ helo: "ex01.corp.example", ip: "10.0.0.5", by: "ex02.corp.example" });
    expect(hopUsedTls(parseReceived(" from a.example (a.example [192.0.2.1]) by b.example with ESMTP id 1; x"))).toBe(false);
    expect(hopUsedTls(parseReceived(" from a.example (a.example [192.0.2.1]) by b.example id 1; x"))).toBeNull();
  });
});

describe("parseAuthResults", () => {
  it("reads the authserv-id, results and properties, with comments and an ARC instance (RFC 8601 §2.2, RFC 8617 §4.1.1)", () => {
    const ar = parseAuthResults(
      " mx.google.com;\r\n       dkim=pass header.i=@example.com header.s=s1 header.b=abc;\r\n       spf=pass (google.com: domain of b@example.com designates 192.0.2.7 as permitted sender) smtp.mailfrom=b@example.com;\r\n       dmarc=pass (p=REJECT sp=REJECT dis=NONE) header.from=example.com",
    );
    expect(ar?.authservId).toBe("mx.google.com");
    expect(ar?.results.map((r) => `${r.method}=${r.result}`)).toEqual(["dkim=pass", "spf=pass", "dmarc=pass"]);
    expect(ar?.results[1]?.props["smtp.mailfrom"]).toBe("b@example.com");
    expect(ar?.results[1]?.comment).toContain("designates 192.0.2.7");
    const aar = parseAuthResults("i=2; lists.example.org; arc=pass; dmarc=fail header.from=example.com");
    expect(aar).toMatchObject({ authservId: "lists.example.org", instance: 2 });
    expect(parseAuthResults(" ; spf=pass")).toBeNull();
  });
});

describe("deriveEnvelope", () => {
  const msg = (...h: string[]) => parseMessage(`${h.join("\r\n")}\r\nFrom: a@example.com\r\n\r\nx\r\n`).headers;

  it("given values win; then the trusted A-R, its Received, Return-Path; a forged lower field is never read", () => {
    const headers = msg(
      "Received: by mx.google.com with SMTP id internal; x",
      "Received: from out.example.com (out.example.com [192.0.2.7]) by mx.google.com with ESMTPS id 1; x",
      "Authentication-Results: mx.google.com; spf=pass (google.com: domain of b@example.com designates 192.0.2.7 as permitted sender) smtp.mailfrom=b@example.com",
      "Authentication-Results: mx.google.com.evil.test; spf=pass smtp.mailfrom=x@evil.test",
      "Received: from evil.test (evil.test [203.0.113.66]) by out.example.com with ESMTP id 0; x",
      "Return-Path: <rp@example.com>",
    );
    const env = deriveEnvelope(headers, { trusted_authserv_id: "mx.google.com" });
    expect(env.ip).toEqual({ value: "192.0.2.7", source: "authentication-results" });
    expect(env.helo).toEqual({ value: "out.example.com", source: "received" });
    expect(env.mail_from).toEqual({ value: "b@example.com", source: "authentication-results" });
    expect(env.hop?.ip).toBe("192.0.2.7");
    const given = deriveEnvelope(headers, { ip: "198.51.100.1", mail_from: "", trusted_authserv_id: "mx.google.com" });
    expect(given.ip).toEqual({ value: "198.51.100.1", source: "input" });
    expect(given.mail_from).toEqual({ value: "", source: "input" });
    const untrusted = deriveEnvelope(msg("Return-Path: <>"), {});
    expect(untrusted.mail_from).toEqual({ value: "", source: "return-path" });
    expect(untrusted.ip).toEqual({ value: null, source: "none" });
  });
});
