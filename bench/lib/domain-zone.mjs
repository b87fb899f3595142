// The zone a benchmark's domains publish (SPF with an include, MX, DKIM, TLS-RPT; DMARC and the
// verification TXT filled in once the API has given the report address and token), and a wait helper.
import { generateKeyPairSync } from "node:crypto";

export function zoneFor(names) {
  const { publicKey } = generateKeyPairSync("rsa", { modulusLength: 2048 });
  const p = publicKey.export({ type: "spki", format: "der" }).toString("base64");
  const zone = {
    "_spf.google.com": { TXT: ["v=spf1 ip4:203.0.113.0/24 ~all"] },
    "mx.provider.example": { A: ["192.0.2.25"] },
  };
  names.forEach((name, i) => {
    zone[name] = { TXT: [`v=spf1 include:_spf.google.com ip4:198.51.100.${i % 250} -all`], MX: [{ preference: 10, exchange: "mx.provider.example" }] };
    zone[`_dmarc.${name}`] = { TXT: [] }; // filled once the report address is known
    zone[`google._domainkey.${name}`] = { TXT: [`v=DKIM1; k=rsa; p=${p}`] };
    zone[`_smtp._tls.${name}`] = { TXT: [`v=TLSRPTv1; rua=mailto:tls@${name}`] };
    zone[`_emailauth-verify.${name}`] = { TXT: [] }; // filled once the token is known
  });
  return zone;
}

/** Polls `test` every 500 ms until it holds; past the timeout, throws with the end of the server's log. */
export async function until(what, test, timeoutMs = 180_000, log = () => "") {
  const deadline = Date.now() + timeoutMs;
  while (!(await test())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}\n${log().slice(-8000)}`);
    await new Promise((r) => setTimeout(r, 500));
  }
}
