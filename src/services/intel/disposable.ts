// Disposable-address domains from the `disposable-email-domains` list, unpacked once per isolate on
// first use from the compact form in disposable-list.ts (docs/decisions.md D52). No network I/O.
import { DISPOSABLE_COUNT, DISPOSABLE_PACKED } from "./disposable-list";

let domains: Promise<readonly string[]> | null = null;

async function unpack(): Promise<readonly string[]> {
  const bin = atob(DISPOSABLE_PACKED);
  const packed = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) packed[i] = bin.charCodeAt(i);
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

function load(): Promise<readonly string[]> {
  domains ??= unpack().catch((e) => {
    domains = null; // a failed unpack is retried by the next caller instead of being remembered
    throw e;
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

/** The domain or any parent domain (sub.mailinator.com) is on the list. */
export async function isDisposableDomain(domain: string): Promise<boolean> {
  const list = await load();
  const labels = domain.toLowerCase().split(".");
  for (let i = 0; i < labels.length - 1; i++) if (has(list, labels.slice(i).join("."))) return true;
  return false;
}
