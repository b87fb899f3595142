// Shared DNS zone and HTTPS passthrough for the intel route tests: a realistic, well-configured domain.
import type { StubZone } from "./doh-stub";

export const POLICY = "version: STSv1\r\nmode: enforce\r\nmx: mx1.acme.example\r\nmx: *.acme.example\r\nmax_age: 604800\r\n";

export const acmeZone: StubZone = {
  "acme.example": {
    TXT: ["v=spf1 include:_spf.acme.example include:spf.vendor.example ip4:198.51.100.7 -all", "google-site-verification=abc"],
    MX: [
      { preference: 10, exchange: "mx1.acme.example" },
      { preference: 20, exchange: "mx2.acme.example" },
    ],
  },
  "_spf.acme.example": { TXT: ["v=spf1 include:_netblocks.acme.example ~all"] },
  "_netblocks.acme.example": { TXT: ["v=spf1 ip4:192.0.2.0/24 ip6:2001:db8::/32 -all"] },
  "spf.vendor.example": { TXT: ["v=spf1 ip4:203.0.113.0/24 -all"] },
  "mx1.acme.example": { A: ["192.0.2.25"] },
  "mx2.acme.example": { A: ["192.0.2.26"], AAAA: ["2001:db8::26"] },
  "_dmarc.acme.example": { TXT: ["v=DMARC1; p=reject; rua=mailto:dmarc@acme.example; adkim=s"] },
  "_mta-sts.acme.example": { TXT: ["v=STSv1; id=20261101T000000"] },
  "mta-sts.acme.example": { A: ["93.184.216.34"] },
  "_smtp._tls.acme.example": { TXT: ["v=TLSRPTv1; rua=mailto:tls-reports@acme.example"] },
  // A logo without a mark certificate: a real VMC names its own domain, so none can be valid for acme.example here.
  "default._bimi.acme.example": { TXT: ["v=BIMI1; l=https://logo.acme.example/logo.svg"] },
  "logo.acme.example": { A: ["93.184.216.35"] },
};

/** A logo that follows the SVG Tiny PS profile (square, titled, no script or external reference). */
export const LOGO_SVG =
  '<svg xmlns="http://www.w3.org/2000/svg" version="1.2" baseProfile="tiny-ps" viewBox="0 0 100 100"><title>Acme</title><rect width="100" height="100" fill="#1a73e8"/></svg>';

/** Serves the MTA-STS policy (RFC 8461 §3.3) and the BIMI logo of acme.example; every other HTTPS URL is a 404. */
export const policyServer = (req: Request): Response =>
  req.url === "https://mta-sts.acme.example/.well-known/mta-sts.txt"
    ? new Response(POLICY, { headers: { "content-type": "text/plain" } })
    : req.url === "https://logo.acme.example/logo.svg"
      ? new Response(LOGO_SVG, { headers: { "content-type": "image/svg+xml" } })
      : new Response("not found", { status: 404 });

/** Every fetch fails: no resolver can answer (and no HTTPS either). */
export const allDown = (): Promise<Response> => Promise.resolve(new Response("unavailable", { status: 503 }));
