// Disposable-address domains from the `disposable-email-domains` list, loaded once per isolate on first use. No network I/O.

let domains: Promise<ReadonlySet<string>> | null = null;

function load(): Promise<ReadonlySet<string>> {
  // A dynamic import keeps the ~120k-entry list out of the startup path of requests that never need it.
  domains ??= import("disposable-email-domains").then((m) => new Set<string>(m.default as string[]));
  return domains;
}

/** The domain or any parent domain (sub.mailinator.com) is on the list. */
export async function isDisposableDomain(domain: string): Promise<boolean> {
  const set = await load();
  const labels = domain.split(".");
  for (let i = 0; i < labels.length - 1; i++) if (set.has(labels.slice(i).join("."))) return true;
  return false;
}
