// What to do about each TLS failure type of RFC 8460 §4.3, phrased for the MX the failures name. Pure.

export interface TlsAdviceInput {
  resultType: string;
  /** The receiving MX hosts the failures named (most failures first). */
  mxHosts: string[];
  /** Whether the reports saw an MTA-STS (sts) or DANE (tlsa) policy for this domain. */
  policyTypes: string[];
}

const list = (hosts: string[]) => (hosts.length === 0 ? "your MX hosts" : hosts.slice(0, 5).join(", "));

/** One sentence of advice per result type (RFC 8460 §4.3.1-4.3.3); unknown types get the generic one. */
export function tlsFailureAdvice(a: TlsAdviceInput): string {
  const mx = list(a.mxHosts);
  const sts = a.policyTypes.includes("sts");
  switch (a.resultType) {
    case "certificate-expired":
      return `The certificate presented by ${mx} has expired${sts ? "; these MX hosts are named in your MTA-STS policy, so senders enforcing it refuse to deliver" : ""}. Renew it and make sure the renewal is installed on every MX host.`;
    case "certificate-host-mismatch":
      return `The certificate of ${mx} does not cover the MX host name. Issue a certificate whose subject alternative names include each MX name${sts ? " matching the mx: lines of your MTA-STS policy" : ""}.`;
    case "certificate-not-trusted":
      return `Senders do not trust the certificate chain of ${mx}: use a certificate from a public CA and serve the full chain (intermediates included).`;
    case "starttls-not-supported":
      return `${mx} did not offer STARTTLS. Enable STARTTLS on every MX host; without it mail travels in clear${sts ? " and MTA-STS enforcing senders do not deliver" : ""}.`;
    case "validation-failure":
      return `Senders could not validate the TLS session with ${mx} (a handshake or protocol error). Check the TLS versions and ciphers offered and the failure reason code.`;
    case "tlsa-invalid":
      return "The TLSA records do not match the certificate the MX presents: publish TLSA records for the current key (or its issuer) before rotating certificates (RFC 7671 §8).";
    case "dnssec-invalid":
      return "Senders could not validate the DNSSEC chain for your MX or TLSA records: check the DS record at the parent zone and the zone's signatures.";
    case "dane-required":
      return "A sender requires DANE but found no usable TLSA records for your MX: publish TLSA records in a DNSSEC-signed zone or stop advertising DANE.";
    case "sts-policy-fetch-error":
      return "Senders could not fetch https://mta-sts.<domain>/.well-known/mta-sts.txt: check that the host resolves, serves a valid certificate and answers 200 with text/plain.";
    case "sts-policy-invalid":
      return "Your MTA-STS policy file does not parse: check version, mode, mx and max_age lines (RFC 8461 §3.2).";
    case "sts-webpki-invalid":
      return "The certificate of the mta-sts host is not valid for senders: serve a publicly trusted certificate for mta-sts.<domain>.";
    default:
      return `Senders reported "${a.resultType}" for ${mx}; read the failure reason codes and the receiving MTA's logs.`;
  }
}
