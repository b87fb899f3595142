// Record-level SPF rules (all, redirect, trailing terms, size, legacy records) and the mechanical fix. I/O only via the Resolver.
import type { Lookup } from "../dns/types";
import type { Finding } from "../types";
import type { SpfNode } from "./analysis-types";
import { formatSpf, parseSpf } from "./parse";
import type { Mechanism, ParsedSpf, Term } from "./types";

/** Rules about the domain itself: presence, the deprecated SPF RR type, Sender ID leftovers, size. */
export async function rootFindings(domain: string, tree: SpfNode, spfTypeLookup: Promise<Lookup<string>>): Promise<Finding[]> {
  const out: Finding[] = [];
  if (tree.recordsFound.length === 0 && tree.error === null) {
    out.push({
      rule: "spf.none",
      severity: "Medium",
      description: `${domain} publishes no SPF record, so receivers get "none" for mail claiming it (RFC 7208 §4.5). A domain that sends no mail should publish exactly "v=spf1 -all".`,
      fix: null,
    });
  }
  // RFC 7208 §3.1 / §14.1: the SPF RR type (99) is deprecated; only TXT is used. Best effort: errors ignored.
  const rr99 = await spfTypeLookup;
  if (rr99.kind === "records") {
    out.push({
      rule: "spf.rr-type-99",
      severity: "Low",
      description: `${domain} still publishes the deprecated SPF resource record type (99); receivers only read TXT (RFC 7208 §3.1, §14.1). Delete the SPF-type record and keep the TXT one.`,
      fix: null,
    });
  }
  for (const txt of tree.otherTxt.filter((t) => /^spf2\.0\//i.test(t))) {
    out.push({
      rule: "spf.sender-id",
      severity: "Low",
      description: `${domain} has a leftover Sender ID record "${txt}" (RFC 4406, experimental and abandoned). Delete it.`,
      fix: null,
    });
  }
  if (tree.record !== null) {
    const bytes = new TextEncoder().encode(tree.record).length;
    // RFC 7208 §3.4: keep answers under 512 bytes for UDP; 450 leaves room for the rest of the DNS answer.
    if (bytes > 512)
      out.push({
        rule: "spf.record-length",
        severity: "Medium",
        description: `The SPF record is ${bytes} bytes: answers over 512 bytes may need TCP and some receivers fail them (RFC 7208 §3.4).`,
        fix: null,
      });
    else if (bytes > 450)
      out.push({
        rule: "spf.record-length",
        severity: "Low",
        description: `The SPF record is ${bytes} bytes; RFC 7208 §3.4 advises staying under 450 so the whole DNS answer fits in 512 bytes.`,
        fix: null,
      });
  }
  return out;
}

type Transform = (terms: Term[], parsed: ParsedSpf) => Term[];

const replaceAll =
  (to: string): Transform =>
  (terms) =>
    terms.map((t) => (t.kind === "mechanism" && t.name === "all" ? { ...t, qualifier: to as Mechanism["qualifier"], raw: `${to}all` } : t));
const dropAfterAll: Transform = (terms, p) => terms.filter((t) => !p.ignoredAfterAll.includes(t));
const dropRedirect: Transform = (terms) => terms.filter((t) => !(t.kind === "modifier" && t.name === "redirect"));
const dedupeIncludes: Transform = (terms) =>
  terms.filter((t, i) => t.kind !== "mechanism" || t.name !== "include" || terms.findIndex((u) => u.raw.toLowerCase() === t.raw.toLowerCase()) === i);
const appendAll: Transform = (terms) => [
  ...terms,
  { kind: "mechanism", qualifier: "~", name: "all", domainSpec: null, network: null, cidr4: null, cidr6: null, raw: "~all", position: -1 },
];

/** Applies transforms to the root record; null when the record can't be fixed mechanically or nothing changes. */
function fixed(root: ParsedSpf, transforms: Transform[]): string | null {
  const out = formatSpf(transforms.reduce((terms, t) => t(terms, root), root.terms));
  return out === formatSpf(root.terms) ? null : out;
}

/** Parses the root after splitting glued terms ("ip4:1.2.3.4~all"), so the combined fix covers them too. */
function unglued(record: string): ParsedSpf {
  let text = record;
  for (let i = 0; i < 10; i++) {
    const g = parseSpf(text).errors.find((e) => e.message.includes("glued"));
    if (!g) break;
    text = `${text.slice(0, g.position)} ${text.slice(g.position)}`;
  }
  return parseSpf(text);
}

/** Rules about the effective policy: all qualifiers, redirect, trailing terms, duplicate includes. */
export function policyFindings(tree: SpfNode, includeCounts: Map<string, number>): { findings: Finding[]; fix: string | null } {
  const out: Finding[] = [];
  if (!tree.parsed || tree.record === null) return { findings: out, fix: null };
  // Glued terms are fixed mechanically first; any other syntax error leaves nothing safe to reason about.
  const root = tree.parsed.errors.length > 0 ? unglued(tree.record) : tree.parsed;
  if (root.errors.length > 0) return { findings: out, fix: null };
  const transforms: Transform[] = [];
  const hasAll = root.mechanisms.some((m) => m.name === "all");

  if (root.ignoredAfterAll.length > 0) {
    transforms.push(dropAfterAll);
    out.push({
      rule: "spf.terms-after-all",
      severity: "Low",
      description: `Terms after "all" are never evaluated (RFC 7208 §5.1): ${root.ignoredAfterAll.map((t) => t.raw).join(" ")}. Move them before "all" or delete them.`,
      fix: fixed(root, [dropAfterAll]),
    });
  }
  if (root.redirect && hasAll) {
    transforms.push(dropRedirect);
    out.push({
      rule: "spf.redirect-ignored",
      severity: "Low",
      description: `${root.redirect.raw} is ignored because the record contains "all" (RFC 7208 §6.1).`,
      fix: fixed(root, [dropRedirect]),
    });
  }
  for (const m of root.unknownModifiers) {
    out.push({
      rule: "spf.unknown-modifier",
      severity: "Info",
      description: `Unknown modifier "${m.raw}" is ignored by receivers (RFC 7208 §6); check it is not a typo of redirect= or exp=.`,
      fix: null,
    });
  }
  const dupes = [...includeCounts].filter(([, n]) => n > 1);
  if (dupes.length > 0) {
    transforms.push(dedupeIncludes);
    out.push({
      rule: "spf.duplicate-include",
      severity: "Low",
      description: `Included more than once: ${dupes.map(([d, n]) => `${d} (${n}×)`).join(", ")}. Each copy costs DNS lookups toward the limit of 10 (RFC 7208 §4.6.4).`,
      fix: fixed(root, [dedupeIncludes]),
    });
  }

  // The effective "all" may come from a redirect target (RFC 7208 §6.1).
  let policy: SpfNode = tree;
  const parsedOf = (n: SpfNode): ParsedSpf | null => (n === tree ? root : n.parsed);
  for (let i = 0; i < 10 && !parsedOf(policy)?.mechanisms.some((m) => m.name === "all"); i++) {
    const next = policy.terms.find((t) => t.term.toLowerCase().startsWith("redirect="))?.child;
    if (!next?.parsed) break;
    policy = next;
  }
  const all = parsedOf(policy)?.mechanisms.find((m) => m.name === "all");
  const where = policy === tree ? "" : ` (reached through redirect to ${policy.domain})`;
  const own = policy === tree;
  if (!all && !root.redirect) {
    transforms.push(appendAll);
    out.push({
      rule: "spf.all-missing",
      severity: "Medium",
      description: `The record has no "all" mechanism, so unlisted senders get the default "neutral" (RFC 7208 §4.7), which gives no protection. End it with "~all", then "-all" once DMARC is enforced.`,
      fix: fixed(root, [appendAll]),
    });
  } else if (all?.qualifier === "+") {
    if (own) transforms.push(replaceAll("~"));
    out.push({
      rule: "spf.all-pass",
      severity: "Critical",
      description: `"${all.raw}"${where} authorises every host on the Internet to send as this domain (RFC 7208 §5.1). Use "~all" or "-all".`,
      fix: own ? fixed(root, [replaceAll("~")]) : null,
    });
  } else if (all?.qualifier === "?") {
    if (own) transforms.push(replaceAll("~"));
    out.push({
      rule: "spf.all-neutral",
      severity: "Medium",
      description: `"?all"${where} gives unlisted senders "neutral", the same as having no policy (RFC 7208 §8.2). Use "~all" or "-all".`,
      fix: own ? fixed(root, [replaceAll("~")]) : null,
    });
  } else if (all?.qualifier === "~") {
    out.push({
      rule: "spf.all-softfail",
      severity: "Info",
      description: `"~all"${where} is right during rollout; switch to "-all" once all sending sources are listed and DMARC is at enforcement (RFC 7208 §8.5).`,
      fix: own ? fixed(root, [replaceAll("-")]) : null,
    });
  }
  const combined = formatSpf(transforms.reduce((terms, t) => t(terms, root), root.terms));
  return { findings: out, fix: combined === tree.record ? null : combined };
}
