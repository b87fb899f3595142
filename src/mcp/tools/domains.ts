// Domain tools: list, add, posture with fixes, verify, check, delete, check history and diffs. Each
// calls the verb the REST route calls, with the same ServiceContext and input schema.
import { z } from "zod";
import { pageMeta, PaginationQuery } from "../../lib/pagination";
import { createDomain } from "../../services/domains/create-domain";
import { deleteDomain } from "../../services/domains/delete-domain";
import { getDomainDetail } from "../../services/domains/domain-detail";
import { listChecks, listDiffs } from "../../services/checks/history";
import { CreateDomainBody } from "../../services/domains/inputs";
import { listDomains } from "../../services/domains/list-domains";
import { requestCheck } from "../../services/domains/request-check";
import { verifyDomain } from "../../services/domains/verify-domain";
import { domainView, reportAddress, verificationRecord } from "../../services/domains/views";
import { tool } from "../kit";
import { domainId } from "./ids";

const OneDomain = z.object({ domain_id: domainId });
const DomainPage = PaginationQuery.extend({ domain_id: domainId });

export const domainTools = [
  tool({
    name: "list_domains",
    title: "List monitored domains",
    description:
      "Lists the team's monitored domains, newest first, with each one's id, name, verification state, latest score (0-100), grade, DMARC policy and check times. Start here to find a domain's id for the other domain tools. Paginated: page from 1, per_page 1-200 (default 25); meta.total is the count.",
    input: PaginationQuery,
    effect: "read",
    run: async ({ svc, ctx }, q) => {
      const { items, total } = await listDomains(svc, ctx, q);
      return { data: items, meta: pageMeta(q, total) };
    },
  }),
  tool({
    name: "add_domain",
    title: "Add a domain to monitor",
    description:
      "Adds a domain to the team. It stays pending until its owner publishes the ownership TXT record returned in data.verification (host and value) and calls verify_domain. Also returns dmarc_report_address, the mailbox to put in the domain's DMARC rua tag. Fails with conflict when the domain is already in the team or the plan's domain allowance is used.",
    input: CreateDomainBody,
    effect: "write",
    run: async ({ svc, ctx }, body) => {
      const row = await createDomain(svc, ctx, body);
      return { data: { ...domainView(row), verification: verificationRecord(row), dmarc_report_address: reportAddress(row, svc.config) } };
    },
  }),
  tool({
    name: "get_domain_posture",
    title: "Domain posture with fixes",
    description:
      "The domain's latest stored email-authentication posture: score and grade, each part (SPF, DMARC, DKIM, BIMI, MTA-STS, TLS-RPT, MX, DANE, blocklists) with its record and status, findings with severity, and data.plan: the remediation plan, ordered steps to grade A, each with the exact records to publish (host, type, value, TXT strings), what it closes, the projected score and grade after it, and the human decision it needs, if any (gate). The dashboard and the API show the same plan. Use it to audit a monitored domain or to answer 'what should I change in DNS'. A part marked stale kept its last good value because its lookup failed.",
    input: OneDomain,
    effect: "read",
    run: async ({ svc, ctx }, { domain_id }) => ({ data: await getDomainDetail(svc, ctx, domain_id) }),
  }),
  tool({
    name: "verify_domain",
    title: "Verify domain ownership",
    description:
      "Looks up the domain's ownership TXT record now. When it matches, the domain becomes verified and its first check is queued. data.verified says the outcome and data.reason why; an already verified domain answers verified: true. Fails with dependency_unavailable when DNS could not be reached (that is not a missing record).",
    input: OneDomain,
    effect: "write",
    openWorld: true,
    idempotent: true,
    run: async ({ svc, ctx }, { domain_id }) => {
      const out = await verifyDomain(svc, ctx, domain_id);
      return { data: { ...out, domain: domainView(out.domain) } };
    },
  }),
  tool({
    name: "check_domain",
    title: "Queue a posture check",
    description:
      "Queues a fresh posture check of a verified domain and returns its check_id. The result appears in get_domain_posture and list_domain_checks once the queue has run it (usually seconds). A check already pending is returned instead of a second one. Fails with domain_not_verified for a pending domain.",
    input: OneDomain,
    effect: "write",
    idempotent: true,
    run: async ({ svc, ctx }, { domain_id }) => ({ data: await requestCheck(svc, ctx, domain_id) }),
  }),
  tool({
    name: "delete_domain",
    title: "Delete a domain",
    description:
      "Stops monitoring the domain and permanently deletes its check history, diffs, DKIM inventory, DMARC reports and alerts. Irreversible: confirm with the user first.",
    input: OneDomain,
    effect: "destroy",
    run: async ({ svc, ctx }, { domain_id }) => {
      await deleteDomain(svc, ctx, domain_id);
      return { data: { deleted: true, domain_id } };
    },
  }),
  tool({
    name: "list_domain_checks",
    title: "Check history",
    description:
      "The domain's checks, newest first: when, score, grade, status, trigger (scheduled, manual, ...), stale parts and DNS query counts. Use it for score history or to see whether a requested check has run. Paginated like list_domains.",
    input: DomainPage,
    effect: "read",
    run: async ({ svc, ctx }, { domain_id, ...q }) => {
      const { items, total } = await listChecks(svc, ctx, domain_id, q);
      return { data: items, meta: pageMeta(q, total) };
    },
  }),
  tool({
    name: "list_domain_diffs",
    title: "DNS changes between checks",
    description:
      "Every change found between two consecutive checks, newest first: category (spf, dmarc, dkim, ...), field, before, after and severity. Use it to answer 'what changed in this domain's DNS and when'. Paginated like list_domains.",
    input: DomainPage,
    effect: "read",
    run: async ({ svc, ctx }, { domain_id, ...q }) => {
      const { items, total } = await listDiffs(svc, ctx, domain_id, q);
      return { data: items, meta: pageMeta(q, total) };
    },
  }),
];
