// Every read and write of a domain's DMARC failure samples, behind one narrow interface (insert a
// sample, list a page, count), so callers never see where they live: the domain's report object
// (docs/decisions.md D127), whose alarm purges them after 30 days (D106). Rows hold only what D106 lets
// the service keep. Does I/O (the domain's Durable Object).
import type { Services } from "../../services";
import { domainStore } from "../domains/domain-store";

/** One stored failure sample, as the store takes and returns it. */
export interface FailureRow {
  id: number;
  reportingOrg: string | null;
  /** Epoch ms, or null when the report had no readable Arrival-Date. */
  arrivalDate: number | null;
  sourceIp: string | null;
  authFailure: string | null;
  authResults: string | null;
  identityAlignment: string | null;
  dkimDomain: string | null;
  dkimSelector: string | null;
  deliveryResult: string | null;
  /** Epoch ms the service received the report. */
  receivedAt: number;
}

export type NewFailure = Omit<FailureRow, "id" | "receivedAt">;

/** Received-at bounds in epoch ms: from inclusive, to exclusive; either may be absent. */
export interface ReceivedRange {
  fromMs?: number;
  toMs?: number;
}

export async function insertFailure(svc: Pick<Services, "env">, domainId: number, row: NewFailure, receivedAt: Date): Promise<void> {
  await domainStore(svc, { id: domainId }).insertFailure({ ...row, receivedAt: receivedAt.getTime() });
}

/** A page of one domain's samples, newest received first. */
export async function listFailures(
  svc: Pick<Services, "env">,
  domainId: number,
  range: ReceivedRange,
  page: { limit: number; offset: number },
): Promise<FailureRow[]> {
  return domainStore(svc, { id: domainId }).listFailures(range, page.limit, page.offset);
}

export async function countFailures(svc: Pick<Services, "env">, domainId: number, range: ReceivedRange): Promise<number> {
  return domainStore(svc, { id: domainId }).countFailures(range);
}
