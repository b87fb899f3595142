// Shared by the hosted BIMI tests: real published mark certificates with the SVG their logotype
// extension carries (extracted with openssl and gzip, not with the code under test), a clock inside their
// validity, and calls with a SITE_URL (links are never built from the Host header, D148).
import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { vi } from "vitest";
import type { Env } from "../../../src/env";
import worker from "../../../src/index";
import paypalPem from "../../fixtures/bimi-hosting/paypal-vmc.pem?raw";
import paypalSvg from "../../fixtures/bimi-hosting/paypal-vmc.svg?raw";
import xometryPem from "../../fixtures/bimi-hosting/xometry-cmc.pem?raw";
import xometrySvg from "../../fixtures/bimi-hosting/xometry-cmc.svg?raw";

export { paypalPem, paypalSvg, xometryPem, xometrySvg };

/** `sha256sum test/fixtures/bimi-hosting/paypal-vmc.svg` */
export const PAYPAL_SVG_SHA256 = "977f6761f83a0b43812636fa8efd1a34a2c766fa4b3376dafa014065c7c184dc";
/** PayPal's VMC (DigiCert) is valid 2024-09-09 to 2025-09-08; Xometry's CMC 2024-10-10 to 2025-10-10. */
export const INSIDE_BOTH = Date.parse("2025-03-01T12:00:00Z");

export const SITE = "https://dmarc.example.net";

/** Storage is shared within a test file and one team hosts a name: each test starts with nothing hosted. */
export async function clearHosted(): Promise<void> {
  await env.DB.prepare("DELETE FROM hosted_bimi").run();
}

export function pinClock(at: number = INSIDE_BOTH): void {
  vi.useFakeTimers({ toFake: ["Date"], now: at });
}

/** A request through the Worker's fetch export with SITE_URL set, as a deployment has it. */
export async function callSite(path: string, init: RequestInit & { token?: string } = {}): Promise<Response> {
  const headers = new Headers(init.headers);
  if (init.token) headers.set("authorization", `Bearer ${init.token}`);
  const ctx = createExecutionContext();
  const request = new Request(`${SITE}${path}`, { ...init, headers }) as Parameters<typeof worker.fetch>[0];
  const res = await worker.fetch(request, { ...env, SITE_URL: SITE } as Env, ctx);
  await waitOnExecutionContext(ctx);
  return res;
}

/** A logo that breaks SVG Tiny PS in several ways (a script, an external image, no tiny-ps profile). */
export const BAD_SVG = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 10 10"><title>Brand</title><script>alert(1)</script><image href="https://cdn.example/x.png"/></svg>`;

/** A valid SVG Tiny PS logo that is in no certificate. */
export const PLAIN_SVG = `<svg xmlns="http://www.w3.org/2000/svg" version="1.2" baseProfile="tiny-ps" viewBox="0 0 100 100"><title>Example Brand</title><circle cx="50" cy="50" r="40" fill="#1a73e8"/></svg>`;
