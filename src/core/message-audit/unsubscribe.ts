// One-click unsubscribe (RFC 8058 §3): List-Unsubscribe with an HTTPS URI, List-Unsubscribe-Post with
// exactly "List-Unsubscribe=One-Click", both covered by a valid DKIM signature. Pure, no I/O.
import type { HeaderField } from "../dkim/message";
import type { SignatureReport } from "../dkim/verify-signature";

export type OneClickStatus = "present" | "absent" | "invalid" | "unsigned";

export interface OneClickCheck {
  status: OneClickStatus;
  list_unsubscribe: string | null;
  list_unsubscribe_post: string | null;
  https_uri: string | null;
  /** d= of the passing, From-aligned signature whose h= covers both fields. */
  signed_by: string | null;
  problems: string[];
  fix: string | null;
}

const unfold = (s: string): string => s.replace(/\r\n/g, "").trim();

/** The angle-bracketed URIs of List-Unsubscribe (RFC 2369 §3.2). */
export function listUnsubscribeUris(value: string): string[] {
  return [...unfold(value).matchAll(/<\s*([^>]*?)\s*>/g)].map((m) => m[1] ?? "");
}

const isHttps = (u: string): boolean => {
  try {
    return new URL(u).protocol === "https:";
  } catch {
    return false;
  }
};

export function checkOneClick(headers: HeaderField[], signatures: Array<Pick<SignatureReport, "domain" | "result" | "aligned" | "headers">>): OneClickCheck {
  const lu = headers.filter((h) => h.key === "list-unsubscribe");
  const lup = headers.filter((h) => h.key === "list-unsubscribe-post");
  const luValue = lu[0] ? unfold(lu[0].value) : null;
  const lupValue = lup[0] ? unfold(lup[0].value) : null;
  const out: OneClickCheck = {
    status: "absent",
    list_unsubscribe: luValue,
    list_unsubscribe_post: lupValue,
    https_uri: null,
    signed_by: null,
    problems: [],
    fix: null,
  };
  if (luValue === null && lupValue === null) {
    out.fix = 'Add "List-Unsubscribe: <https://…>" and "List-Unsubscribe-Post: List-Unsubscribe=One-Click", and sign both with DKIM (RFC 8058).';
    return out;
  }
  if (lu.length > 1) out.problems.push(`${lu.length} List-Unsubscribe fields; send exactly one`);
  if (luValue === null) out.problems.push("List-Unsubscribe-Post without List-Unsubscribe");
  else {
    out.https_uri = listUnsubscribeUris(luValue).find(isHttps) ?? null;
    // §3.1: "The List-Unsubscribe header field MUST contain one HTTPS URI."
    if (out.https_uri === null) out.problems.push("List-Unsubscribe has no https URI (RFC 8058 §3.1)");
  }
  // §3.1: the POST body must be exactly this key/value pair.
  if (lupValue === null) out.problems.push("no List-Unsubscribe-Post field (RFC 8058 §3.1)");
  else if (lupValue !== "List-Unsubscribe=One-Click")
    out.problems.push(`List-Unsubscribe-Post is "${lupValue}", not exactly "List-Unsubscribe=One-Click" (RFC 8058 §3.1)`);
  if (out.problems.length > 0) {
    out.status = "invalid";
    out.fix = 'Send one "List-Unsubscribe: <https://…>" (an https URI that accepts a POST) and "List-Unsubscribe-Post: List-Unsubscribe=One-Click".';
    return out;
  }
  // §4: a valid DKIM signature must cover both fields; the bulk-sender rules want it aligned with From.
  const covering = signatures.find((s) => {
    const h = new Set(s.headers.map((x) => x.toLowerCase()));
    return s.result === "pass" && s.aligned && h.has("list-unsubscribe") && h.has("list-unsubscribe-post");
  });
  if (!covering) {
    out.status = "unsigned";
    out.problems.push("no passing DKIM signature aligned with From has both fields in h= (RFC 8058 §4)");
    out.fix = "Add list-unsubscribe and list-unsubscribe-post to h= of the DKIM signature made with the From domain.";
    return out;
  }
  out.status = "present";
  out.signed_by = covering.domain;
  return out;
}
