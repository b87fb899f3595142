// Test fixtures shared by the DNS tests: a 2048-bit RSA DKIM key record and captured-style answers. No I/O.

export const hex = (s: string): Uint8Array => Uint8Array.from(s.replace(/\s+/g, "").match(/../g) ?? [], (h) => parseInt(h, 16));

export const DKIM_KEY =
  "v=DKIM1; k=rsa; p=MIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEAu5w1ioC4McuwFP35ztV/llss6H4KxW+Ra5S8ARytP1rL34H6DC2eyFDrbQtObuzW4B7MMSvbhYH/UHB43l6Q52I0WO5LD2mnbN0XWU2a3BKtJ76XCNvfVLQwCx+WjAIfM2keJGYbJu6tn01WnbQLBFUpAINWx2logfNXgy+erUbCsxVwyt4HZpQnTMpJEG7i3qfwQ4iqXfdEyDHbKpH/vmctUndIS/8BBeJrRzz0Ry1nX/kc4boIi0lzjo8xXIB3e6rA5TtwyAqe5iT0griwxjS7tMvAMF/XIhJAJzS7B5/t1YVoudz8ChvLD/GFPwYH2ivA7pf2NnfwOEvFb2wqxwIDAQAB";

/** www.example.com A: a CNAME whose target is compressed into the middle of the question name,
 *  then an A record whose owner points into that CNAME's RDATA, then an EDNS0 OPT. */
export const CAPTURED_CNAME_A = hex(`
  0000 8180 0001 0002 0000 0001
  03 777777 07 6578616d706c65 03 636f6d 00 0001 0001
  c00c 0005 0001 00000e10 0006 03 63646e c010
  c02d 0001 0001 0000003c 0004 5db8d822
  00 0029 04d0 00000000 0000`);
