// Mark certificates (VMC/CMC) made with the openssl CLI, a tool independent of every validator the node tests
// compare: test roots and intermediates, leaves with the BIMI key purpose, a SAN and an RFC 3709 logotype
// extension whose DER is written here by hand. Shared by test/node/bimi-marks.test.ts (ours vs
// @postalsys/vmc and mailauth) and test/node/bimi-marks-checkdmarc.test.ts (ours vs checkdmarc).
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gzipSync } from "node:zlib";

/** The real published certificates (test/fixtures/bimi-marks/README.md). */
export const FIXTURES = new URL("../../fixtures/bimi-marks/", import.meta.url).pathname;

/** A time inside each fixture's validity (and its chain's), as @postalsys/vmc's own tests pick them. */
export const FIXTURE_NOW: Record<string, string> = {
  "cnn.pem": "2022-01-15T00:00:00Z",
  "redshift.pem": "2022-01-15T00:00:00Z",
  "paypal_vmc.pem": "2024-11-05T06:50:13Z",
  "xometry_cmc.pem": "2025-01-15T00:00:00Z",
  "globalsign-vmc.pem": "2025-06-01T00:00:00Z",
  "catchall.delivery.pem": "2022-08-01T00:00:00Z",
  "postal_vmc.pem": "2023-01-01T00:00:00Z",
  "digicert.pem": "2024-01-01T00:00:00Z",
  "entrust_vmc_specific.pem": "2024-01-01T00:00:00Z",
  "globalsign-root.pem": "2024-01-01T00:00:00Z",
};

export const LOGO = `<svg xmlns="http://www.w3.org/2000/svg" version="1.2" baseProfile="tiny-ps" viewBox="0 0 100 100"><title>Brand Inc</title><rect width="100" height="100" fill="#0a6"/><circle cx="50" cy="50" r="30" fill="#fff"/></svg>`;
export const OTHER_LOGO = LOGO.replace("#0a6", "#a06");

/** DER, by hand (X.690 §8.1), so the logotype extension does not come from the library under test. */
const derLen = (n: number) => (n < 0x80 ? [n] : n < 0x100 ? [0x81, n] : [0x82, n >> 8, n & 0xff]);
const tlv = (tag: number, ...parts: Buffer[]) => {
  const body = Buffer.concat(parts);
  return Buffer.concat([Buffer.from([tag, ...derLen(body.length)]), body]);
};
const SHA256_OID = Buffer.from("0609608648016503040201", "hex");

/** RFC 3709 §4.1 LogotypeExtn { subjectLogo [2] { direct [0] { image { { imageDetails } } } } } with one SVG. */
export function logotypeExtension(svg: string, hashOver: string = svg): string {
  const uri = `data:image/svg+xml;base64,${gzipSync(Buffer.from(svg)).toString("base64")}`;
  const hash = tlv(0x30, tlv(0x30, SHA256_OID, Buffer.from([0x05, 0x00])), tlv(0x04, createHash("sha256").update(hashOver).digest()));
  const details = tlv(0x30, tlv(0x16, Buffer.from("image/svg+xml")), tlv(0x30, hash), tlv(0x30, tlv(0x16, Buffer.from(uri))));
  const image = tlv(0x30, details);
  return tlv(0x30, tlv(0xa2, tlv(0xa0, tlv(0x30, image)))).toString("hex");
}

/** The subject attribute names of the MC Requirements §7.1.4.2.2 that openssl does not know, for -subj. */
const CNF = `oid_section = bimi_oids
[bimi_oids]
markType = 1.3.6.1.4.1.53087.1.13
trademarkOfficeName = 1.3.6.1.4.1.53087.1.2
trademarkCountry = 1.3.6.1.4.1.53087.1.3
trademarkRegistration = 1.3.6.1.4.1.53087.1.4
statuteCountryName = 1.3.6.1.4.1.53087.3.2
statuteStateOrProvinceName = 1.3.6.1.4.1.53087.3.3
statuteLocalityName = 1.3.6.1.4.1.53087.3.4
statuteCitation = 1.3.6.1.4.1.53087.3.5
statuteURL = 1.3.6.1.4.1.53087.3.6
priorUseMarkSourceURL = 1.3.6.1.4.1.53087.5.1
[req]
distinguished_name = dn
[dn]
[ca]
basicConstraints = critical,CA:TRUE
keyUsage = critical,keyCertSign,cRLSign
subjectKeyIdentifier = hash
`;

/** A Registered Mark subscriber's subject with every field the MC Requirements §7.1.4.2.2 ask of it. */
export const LEAF_SUBJ =
  "/C=US/ST=California/L=San Jose/street=1 Main St/O=Brand Inc/CN=Brand Inc/businessCategory=Private Organization" +
  "/serialNumber=1234567/jurisdictionC=US/markType=Registered Mark/trademarkCountry=US/trademarkRegistration=1234567";

export const CA_EXT = "basicConstraints = critical,CA:TRUE\nkeyUsage = critical,keyCertSign,cRLSign";

export type KeyKind = "rsa" | "p256" | "p384";

export interface LeafExtOptions {
  eku?: string;
  san?: string;
  logo?: string;
  hashOver?: string;
  /** More extension lines, in openssl's x509v3 config syntax. */
  extra?: string[];
}

/** A subscriber certificate's extensions: the BIMI key purpose, a SAN and the logotype (MC Requirements §7.1.2.3). */
export const leafExt = (o: LeafExtOptions = {}) =>
  [
    "basicConstraints = CA:FALSE",
    "keyUsage = critical,digitalSignature",
    `extendedKeyUsage = ${o.eku ?? "1.3.6.1.5.5.7.3.31"}`,
    `subjectAltName = DNS:${o.san ?? "brand.example"}`,
    `1.3.6.1.5.5.7.1.12 = DER:${logotypeExtension(o.logo ?? LOGO, o.hashOver)}`,
    ...(o.extra ?? []),
  ].join("\n");

/** A scratch directory where openssl makes keys and certificates by name (name.key, name.pem). */
export class CertWorkshop {
  readonly dir = mkdtempSync(join(tmpdir(), "bimi-marks-"));
  private serial = 10;

  constructor() {
    writeFileSync(join(this.dir, "ca.cnf"), CNF);
  }

  ossl(...args: string[]): string {
    return execFileSync("openssl", args, { cwd: this.dir, stdio: ["ignore", "pipe", "pipe"] }).toString();
  }

  read(name: string): string {
    return readFileSync(join(this.dir, `${name}.pem`), "utf8");
  }

  /** The PEM blocks of the named certificates, in order (leaf first). */
  bundle(...names: string[]): string {
    return names.map((n) => this.read(n)).join("");
  }

  key(name: string, kind: KeyKind) {
    if (kind === "rsa") this.ossl("genpkey", "-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:2048", "-out", `${name}.key`);
    else this.ossl("genpkey", "-algorithm", "EC", "-pkeyopt", `ec_paramgen_curve:${kind === "p256" ? "P-256" : "P-384"}`, "-out", `${name}.key`);
  }

  /**
   * The test CAs both comparisons issue under: an RSA root and intermediate ("root", "int"), an ECDSA pair
   * ("ecroot" P-384, "ecint" P-256), and a rogue pair no test trusts ("rogue", "rogueint"). Returns the
   * trusted roots' PEM.
   */
  testCas(): string[] {
    this.root("root", "rsa", "Test Mark Root");
    this.issue("int", "root", "/C=XX/O=Test Marks/CN=Test Mark CA", CA_EXT);
    this.root("ecroot", "p384", "Test Mark ECC Root");
    this.issue("ecint", "ecroot", "/C=XX/O=Test Marks/CN=Test Mark ECC CA", CA_EXT, "p256");
    this.root("rogue", "rsa", "Rogue Root");
    this.issue("rogueint", "rogue", "/C=XX/O=Rogue/CN=Rogue CA", CA_EXT);
    return [this.read("root"), this.read("ecroot")];
  }

  root(name: string, kind: "rsa" | "p384", cn: string) {
    this.key(name, kind);
    this.ossl(
      "req",
      "-x509",
      "-new",
      "-key",
      `${name}.key`,
      "-subj",
      `/C=XX/O=Test Marks/CN=${cn}`,
      "-days",
      "3650",
      "-sha256",
      "-config",
      "ca.cnf",
      "-extensions",
      "ca",
      "-out",
      `${name}.pem`,
    );
  }

  issue(name: string, issuer: string, subj: string, ext: string, kind: "rsa" | "p256" = "rsa", days = 365) {
    this.key(name, kind);
    writeFileSync(join(this.dir, `${name}.ext`), `[x]\n${ext}\n`);
    this.ossl("req", "-new", "-key", `${name}.key`, "-subj", subj, "-config", "ca.cnf", "-out", `${name}.csr`);
    this.ossl(
      "x509",
      "-req",
      "-in",
      `${name}.csr`,
      "-CA",
      `${issuer}.pem`,
      "-CAkey",
      `${issuer}.key`,
      "-set_serial",
      String(this.serial++),
      "-days",
      String(days),
      "-sha256",
      "-extfile",
      `${name}.ext`,
      "-extensions",
      "x",
      "-out",
      `${name}.pem`,
    );
  }

  /** A self-signed certificate with the leaf's extensions. */
  selfSigned(name: string, subj: string, ext: string) {
    this.key(name, "rsa");
    writeFileSync(join(this.dir, `${name}.cnf`), `${CNF}[x]\n${ext}\n`);
    this.ossl(
      "req",
      "-x509",
      "-new",
      "-key",
      `${name}.key`,
      "-subj",
      subj,
      "-days",
      "365",
      "-sha256",
      "-config",
      `${name}.cnf`,
      "-extensions",
      "x",
      "-out",
      `${name}.pem`,
    );
  }

  /** The named certificate with the last byte of its signature changed (names and dates untouched). */
  forged(name: string): string {
    const der = Buffer.from(this.read(name).replace(/-----[^-]+-----|\s/g, ""), "base64");
    der[der.length - 1] ^= 0x01;
    return `-----BEGIN CERTIFICATE-----\n${der.toString("base64").replace(/.{64}/g, "$&\n")}\n-----END CERTIFICATE-----\n`;
  }

  cleanup() {
    rmSync(this.dir, { recursive: true, force: true });
  }
}
