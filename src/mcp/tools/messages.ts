// Message tools: audit one raw message as the big mailbox providers would (compute only, nothing stored).
import { auditRawMessage } from "../../services/message-audit/audit";
import { AuditBody } from "../../services/message-audit/inputs";
import { tool } from "../kit";

export const messageTools = [
  tool({
    name: "audit_message",
    title: "Audit a message as Gmail, Yahoo and Microsoft would",
    description:
      "Audits a raw RFC 5322 message (headers and body, or only the headers; at most 1 MB): SPF with the matched mechanism and lookup path, every DKIM signature, DMARC (policy, alignment, result and disposition), the ARC chain and whether a receiver trusting its sealer could deliver a DMARC failure, RFC 8058 one-click unsubscribe, reverse DNS, TLS on the last hop, and the Gmail, Yahoo and Microsoft bulk-sender tables with the fix for each unmet row. Give ip, helo and mail_from when known; otherwise give trusted_authserv_id (the user's receiving server, e.g. mx.google.com) so they are read from its own header fields. A DNS failure is a temperror, never a fail. Nothing is stored.",
    input: AuditBody,
    effect: "compute",
    openWorld: true,
    // The message's own header fields (written by its sender) are echoed in these.
    untrusted: ["envelope", "one_click.list_unsubscribe", "one_click.list_unsubscribe_post", "arc.sets[].aar", "providers[].rows[].detail"],
    run: async ({ svc }, input) => ({ data: await auditRawMessage(svc, input) }),
  }),
];
