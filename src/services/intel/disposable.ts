// Disposable-address domains from the `disposable-email-domains` list. The packed list is a static
// asset beside the Worker, not part of its script (docs/decisions.md D52, D59): fetched through the
// ASSETS binding and unpacked once per isolate on first use, then held in memory.
import { dependencyUnavailable } from "../../lib/errors";
import { DISPOSABLE_ASSET, DISPOSABLE_BYTES, DISPOSABLE_COUNT, DISPOSABLE_SHA256 } from "./disposable-list";

/** What the list needs of the ASSETS binding. */
export interface AssetFetcher {
  fetch(request: Request): Promise<Response>;
}

let domains: Promise<readonly string[]> | null = null;

const hex = (buf: ArrayBuffer) => Array.from(new Uint8Array(buf), (b) => b.toString(16).padStart(2, "0")).join("");

async function unpack(assets: AssetFetcher): Promise<readonly string[]> {
  // Only the path matters to the assets binding; the host is a placeholder.
  const res = await assets.fetch(new Request(`https://assets.invalid${DISPOSABLE_ASSET}`));
  if (!res.ok) throw new Error(`disposable list asset answered ${res.status}`);
  const packed = await res.arrayBuffer();
  // The asset must be the one this code was generated with: a stale or cut file is an error, never a shorter list.
  if (packed.byteLength !== DISPOSABLE_BYTES || hex(await crypto.subtle.digest("SHA-256", packed)) !== DISPOSABLE_SHA256)
    throw new Error(`disposable list asset is not the generated one (${packed.byteLength} bytes)`);
  // DecompressionStream is native in workerd and Node, so the list costs no inflate code in the bundle.
  const text = await new Response(new Blob([packed]).stream().pipeThrough(new DecompressionStream("deflate-raw"))).text();
  const out = new Array<string>(DISPOSABLE_COUNT);
  let prev = "";
  let n = 0;
  for (const line of text.split("\n")) {
    prev = prev.slice(0, Number.parseInt(line.charAt(0), 36)) + line.slice(1);
    out[n++] = prev;
  }
  if (n !== DISPOSABLE_COUNT) throw new Error(`disposable list unpacked to ${n} domains, expected ${DISPOSABLE_COUNT}`);
  return out;
}

function load(assets: AssetFetcher): Promise<readonly string[]> {
  domains ??= unpack(assets).catch((e) => {
    domains = null; // a failed load is retried by the next caller instead of being remembered
    console.error(JSON.stringify({ level: "error", msg: "disposable list unavailable", error: String(e) }));
    throw dependencyUnavailable("The disposable-domain list could not be loaded; try again shortly.");
  });
  return domains;
}

/** Binary search in the sorted list (code-unit order, as the generator sorted it). */
function has(list: readonly string[], name: string): boolean {
  let lo = 0;
  let hi = list.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >>> 1;
    const v = list[mid] as string;
    if (v === name) return true;
    if (v < name) lo = mid + 1;
    else hi = mid - 1;
  }
  return false;
}

/**
 * The domain or any parent domain (sub.mailinator.com) is on the list. An unloadable list is a 503
 * (dependency_unavailable), never "not disposable".
 */
export async function isDisposableDomain(assets: AssetFetcher, domain: string): Promise<boolean> {
  const list = await load(assets);
  const labels = domain.toLowerCase().split(".");
  for (let i = 0; i < labels.length - 1; i++) if (has(list, labels.slice(i).join("."))) return true;
  return false;
}
