// The mark-certificate (VMC/CMC) report: the contract the hosted-BIMI service, its pages and the posture part read.

/** One verdict of the validation; ok null = cannot tell (the certificate alone does not say). */
export interface MarkCheck {
  id: string;
  ok: boolean | null;
  message: string;
  /** What the domain owner does about a failure, in plain words. */
  fix?: string;
}

export interface MarkReport {
  /** VMC: a registered (or government) mark; CMC: a prior-use or modified registered mark; null: unknown. */
  kind: "VMC" | "CMC" | null;
  /** Every check ok (a check that cannot tell does not count as ok). */
  valid: boolean;
  checks: MarkCheck[];
  subject: { organization?: string; commonName?: string; trademarkRegistration?: string; trademarkCountry?: string; markType?: string };
  notBefore: string | null;
  notAfter: string | null;
  issuer: string | null;
  sans: string[];
  /** The SVG carried in the logotype extension (RFC 3709), decompressed. */
  embeddedSvg: string | null;
  embeddedSvgSha256: string | null;
}

export interface MarkOptions {
  /** The domain the BIMI record belongs to (the Author Domain, or its Organizational Domain after fallback). */
  domain: string;
  selector: string;
  /** The logo published at l= (or hosted); when given it must be the SVG embedded in the certificate. */
  logoSvg?: string | null;
  now: Date;
  /** Trusted root PEMs; default: the BIMI issuers' roots in ./roots. */
  roots?: string[];
}
