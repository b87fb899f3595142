// RFC 8463 Appendix A: the signed example message and its published key records (test fixture). No I/O.

/** Appendix A.2 DNS records, as the resolver joins each record's character-strings. */
export const RFC8463_KEYS = {
  "brisbane._domainkey.football.example.com": "v=DKIM1; k=ed25519; p=11qYAYKxCrfVS/7TyWQHOg7hcvPapiMlrwIaaPcHURo=",
  "test._domainkey.football.example.com":
    "v=DKIM1; k=rsa; p=MIGfMA0GCSqGSIb3DQEBAQUAA4GNADCBiQKBgQDkHlOQoBTzWR" +
    "iGs5V6NpP3idY6Wk08a5qhdR6wy5bdOKb2jLQiY/J16JYi0Qvx/byYzCNb3W91y3FutAC" +
    "DfzwQ/BC/e/8uBsCR+yz1Lxj+PL6lHvqMKrM3rG4hstT5QjvHO9PzoxZyVYLzBfO2EeC3" +
    "Ip3G+2kryOTIKT+l/K4w3QIDAQAB",
};

/** Appendix A.3, the signed message, with CRLF line ends. */
export const RFC8463_MESSAGE = [
  "DKIM-Signature: v=1; a=ed25519-sha256; c=relaxed/relaxed;",
  " d=football.example.com; i=@football.example.com;",
  " q=dns/txt; s=brisbane; t=1528637909; h=from : to :",
  " subject : date : message-id : from : subject : date;",
  " bh=2jUSOH9NhtVGCQWNr9BrIAPreKQjO6Sn7XIkfJVOzv8=;",
  " b=/gCrinpcQOoIfuHNQIbq4pgh9kyIK3AQUdt9OdqQehSwhEIug4D11Bus",
  " Fa3bT3FY5OsU7ZbnKELq+eXdp1Q1Dw==",
  "DKIM-Signature: v=1; a=rsa-sha256; c=relaxed/relaxed;",
  " d=football.example.com; i=@football.example.com;",
  " q=dns/txt; s=test; t=1528637909; h=from : to : subject :",
  " date : message-id : from : subject : date;",
  " bh=2jUSOH9NhtVGCQWNr9BrIAPreKQjO6Sn7XIkfJVOzv8=;",
  " b=F45dVWDfMbQDGHJFlXUNB2HKfbCeLRyhDXgFpEL8GwpsRe0IeIixNTe3",
  " DhCVlUrSjV4BwcVcOF6+FF3Zo9Rpo1tFOeS9mPYQTnGdaSGsgeefOsk2Jz",
  " dA+L10TeYt9BgDfQNZtKdN1WO//KgIqXP7OdEFE4LjFYNcUxZQ4FADY+8=",
  "From: Joe SixPack <joe@football.example.com>",
  "To: Suzie Q <suzie@shopping.example.net>",
  "Subject: Is dinner ready?",
  "Date: Fri, 11 Jul 2003 21:00:37 -0700 (PDT)",
  "Message-ID: <20030712040037.46341.5F8J@football.example.com>",
  "",
  "Hi.",
  "",
  "We lost the game.  Are you hungry yet?",
  "",
  "Joe.",
  "",
].join("\r\n");

/**
 * dkimpy's test vector dkim/tests/data/rfc6376.signed.msg: the same message signed ed25519-sha256
 * with c=simple/simple by dkimpy, using the RFC 8032 §7.1 TEST 1 key (the brisbane key above).
 * Stored with LF line ends and trailing spaces on the folded signature lines, exactly as published.
 */
export const DKIMPY_ED25519_SIMPLE = [
  "DKIM-Signature: v=1; a=ed25519-sha256; c=simple/simple; ",
  " d=football.example.com; i=@football.example.com; ",
  " q=dns/txt; s=brisbane; t=1518460054; h=from : to : ",
  " subject : date : message-id : from : subject : date; ",
  " bh=4bLNXImK9drULnmePzZNEBleUanJCX5PIsDIFoH4KTQ=; ",
  " b=9/dsDChY0YMTtD5Eyw3wx7x22BlSJP7M5ECbJ7GWrR45nXlTCGb8l0YB",
  " o0wBLR++X5LqmsxXaOYLLJe46l10AQ==",
  "From: Joe SixPack <joe@football.example.com>",
  "To: Suzie Q <suzie@shopping.example.net>",
  "Subject: Is dinner ready?",
  "Date: Fri, 11 Jul 2003 21:00:37 -0700 (PDT)",
  "Message-ID: <20030712040037.46341.5F8J@football.example.com>",
  "",
  "Hi.",
  "",
  "We lost the game.  Are you hungry yet?",
  "",
  "Joe.",
  "",
  "",
].join("\n");
