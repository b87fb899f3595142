// Rules on a parsed DMARC record (RFC 9989 §5.3, removed RFC 7489 tags) and the suggested record. Pure, no I/O.
import type { Finding } from "../types";
import type { DmarcRecord } from "./parse";

const f = (rule: string, severity: Finding["severity"], description: string, fix: string | null = null): Finding => ({ rule, severity, description, fix });

export function recordFindings(r: DmarcRecord, policyDomain: string): Finding[] {
  const out: Finding[] = [...r.findings];
  const fix = suggestRecord(r);
  for (const bad of r.invalidPolicyTags) {
    const published = r.p !== null && r.p !== "none" ? ` The published p=${r.p} does not apply.` : "";
    out.push(
      f(
        "dmarc.invalid-policy-tag",
        "High",
        `${bad.name}=${bad.value} is not none, quarantine or reject, so receivers set the whole policy aside: ${r.policyApplies ? "because rua holds a valid URI they act as if the record were p=none (monitoring only)" : "with no valid rua URI they apply no DMARC at all"} (RFC 7489 §6.6.3 step 6, RFC 9989 §4.10).${published} Fix the ${bad.name} value or remove the tag.`,
        fix,
      ),
    );
  }
  if (r.p === null && !r.invalidPolicyTags.some((t) => t.name === "p")) {
    out.push(
      f(
        "dmarc.p-missing",
        "Medium",
        `The record has no valid p tag. RFC 9989 receivers treat it as p=none${r.policyApplies ? "" : " only when a valid rua exists, and this record has none, so no DMARC applies (§4.10.1)"}; RFC 7489 receivers require p and ignore the record.`,
        fix,
      ),
    );
  } else if (r.tags[1]?.name !== "p") {
    out.push(f("dmarc.p-not-second", "Info", "p is not the second tag; RFC 9989 allows any order, but RFC 7489 receivers required p right after v.", fix));
  }
  if (r.effective.p === "none" && r.invalidPolicyTags.length === 0)
    out.push(
      f(
        "dmarc.policy-none",
        "Medium",
        `p=none only monitors: failing mail from ${policyDomain} is delivered normally. Move to quarantine, then reject, once reports show all sources pass.`,
      ),
    );
  if (r.p !== null && r.p !== "none" && r.sp === "none") {
    out.push(f("dmarc.sp-none", "Medium", `sp=none with p=${r.p} leaves every subdomain unprotected (and disqualifies BIMI).`));
  }
  if (r.t)
    out.push(
      f(
        "dmarc.testing-mode",
        "Low",
        "t=y asks receivers not to apply the policy (RFC 9989 §5.3 test mode; unrelated to DKIM's t=y). Remove it when testing is over.",
      ),
    );
  if (r.pct !== null && r.pct < 100) {
    out.push(
      f(
        "dmarc.pct-partial",
        "Medium",
        `pct=${r.pct}: pct was removed by RFC 9989, but RFC 7489 receivers still apply the policy to only ${r.pct}% of failing mail.${r.pct === 0 ? " For testing, use t=y (kept with pct=0 for older receivers)." : ""}`,
        fix,
      ),
    );
  } else if (r.pct !== null) {
    out.push(f("dmarc.pct-removed", "Info", "pct was removed by RFC 9989; pct=100 is the old default and can be deleted.", fix));
  }
  if (r.rf !== null) out.push(f("dmarc.rf-removed", "Info", "rf was removed by RFC 9989 (failure reports are always AFRF); it can be deleted.", fix));
  if (r.ri !== null) out.push(f("dmarc.ri-removed", "Info", "ri was removed by RFC 9989 (aggregate reports are daily); it can be deleted.", fix));
  if (r.rua.length === 0)
    out.push(f("dmarc.rua-missing", "Low", "No rua: no aggregate reports will be sent, so failing sources stay invisible (RFC 9989 §5.3)."));
  if (r.rua.length > 2) out.push(f("dmarc.rua-too-many", "Low", `${r.rua.length} rua URIs: some reporters send to only the first two.`));
  for (const u of [...r.rua, ...r.ruf]) {
    if (!u.valid) out.push(f("dmarc.uri-invalid", "Medium", `"${u.uri}" is not a valid report URI; receivers ignore it.`));
    else if (u.scheme !== "mailto")
      out.push(f("dmarc.uri-not-mailto", "Low", `"${u.uri}" is not mailto:; receivers are only required to support mailto (RFC 9989 §5.3).`));
    if (u.size !== null) out.push(f("dmarc.uri-size-obsolete", "Info", `The size limit "!${u.size}" in "${u.uri}" is obsolete in RFC 9989; remove it.`, fix));
  }
  if (r.fo.length > 0 && r.ruf.length === 0) out.push(f("dmarc.fo-without-ruf", "Low", "fo only affects failure reports, and there is no ruf.", fix));
  if (r.fo.includes("0") && r.fo.includes("1")) out.push(f("dmarc.fo-redundant", "Info", "fo=0:1 is redundant: 1 already covers 0.", fix));
  return out;
}

/** A corrected record: v and p first, duplicates/unknown/removed tags dropped, pct=0 turned into t=y. */
export function suggestRecord(r: DmarcRecord): string {
  const parts = ["v=DMARC1", `p=${r.p ?? "none"}`];
  const keep = (n: string, v: string): void => {
    parts.push(`${n}=${v}`);
  };
  if (r.sp !== null) keep("sp", r.sp);
  if (r.np !== null) keep("np", r.np);
  if (r.psd !== "u") keep("psd", r.psd);
  if (r.t || r.pct === 0) keep("t", "y");
  // pct<100 still limits enforcement at RFC 7489 receivers: keep it so behaviour does not change for them.
  if (r.pct !== null && r.pct < 100) keep("pct", String(r.pct));
  if (r.adkim === "s") keep("adkim", "s");
  if (r.aspf === "s") keep("aspf", "s");
  const uris = (list: DmarcRecord["rua"]): string =>
    list
      .filter((u) => u.valid)
      .map((u) => (u.size !== null ? u.uri.slice(0, u.uri.lastIndexOf("!")) : u.uri))
      .join(",");
  if (uris(r.rua)) keep("rua", uris(r.rua));
  if (uris(r.ruf)) {
    keep("ruf", uris(r.ruf));
    const fo = r.fo.includes("1") ? r.fo.filter((x) => x !== "0") : r.fo;
    if (fo.length > 0 && !(fo.length === 1 && fo[0] === "0")) keep("fo", fo.join(":"));
  }
  return parts.join("; ");
}
