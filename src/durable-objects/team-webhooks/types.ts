// The shapes that cross the RPC boundary of a team's webhook log object (docs/decisions.md D140-D145).
// Times are epoch milliseconds.

export type DeliveryStatus = "pending" | "delivered" | "failed";

/** One delivery as the object holds it. */
export interface DeliveryRecord {
  id: number;
  endpointId: number;
  eventId: string;
  eventType: string;
  status: DeliveryStatus;
  attempts: number;
  responseStatus: number | null;
  responseBody: string | null;
  responseHeaders: Record<string, string> | null;
  error: string | null;
  durationMs: number | null;
  nextRetryAt: number | null;
  leasedUntil: number | null;
  deliveredAt: number | null;
  createdAt: number;
  updatedAt: number;
}

/** One event of the team's log: its outbound body as built by the outbox (D10). */
export interface EventRecord {
  id: string;
  domainId: number | null;
  type: string;
  /** The outbound body as JSON text (it crosses the RPC boundary as it is stored). */
  payload: string;
  createdAt: number;
}

export interface FanOutInput {
  teamId: number;
  event: EventRecord;
  /** The matching enabled endpoints (the service applied matches()). */
  endpointIds: number[];
  nowMs: number;
  /** New delivery ids stay above this while legacy_deliveries exists in D1 (D142). */
  idFloor: number;
}

export interface FanOutResult {
  /** Deliveries this call created. */
  created: number[];
  /** The event's deliveries still pending and never attempted (created now or by an earlier run). */
  pending: Array<{ id: number; endpointId: number }>;
}

export interface TestDeliveryInput {
  teamId: number;
  event: EventRecord;
  endpointId: number;
  nowMs: number;
  idFloor: number;
}

export interface ClaimInput {
  teamId: number;
  deliveryId: number;
  /** The endpoint the message or the route named: another endpoint's delivery is not found. */
  endpointId: number;
  /** D1's enabled flag of the endpoint, read by the caller. */
  endpointEnabled: boolean;
  /** Test and redeliver: attempted even when the endpoint is disabled. */
  manual: boolean;
  nowMs: number;
  /** How long a claimed attempt holds the delivery. */
  leaseMs: number;
  /** A message may arrive this much before next_retry_at and still count as due. */
  earlyToleranceMs: number;
}

export type ClaimResult =
  | { kind: "missing" }
  /** Delivered or failed already; the endpoint's streak comes along so that D1's copy can be healed. */
  | { kind: "settled"; row: DeliveryRecord; streak: StreakState | null }
  /** The endpoint is disabled: marked failed without sending. */
  | { kind: "skipped"; row: DeliveryRecord }
  /** Not due yet (a hop of a long wait, or an early duplicate). */
  | { kind: "early"; row: DeliveryRecord }
  /** Another consumer holds the attempt. */
  | { kind: "busy"; row: DeliveryRecord }
  | { kind: "claimed"; row: DeliveryRecord; event: EventRecord };

/** How an outcome moves the endpoint's streak: none for a retrying attempt (D11). */
export type StreakChange = "success" | "failure" | "gone" | null;

/** D1's values of the endpoint, used once, when the object meets the endpoint for the first time. */
export interface StreakSeed {
  failureCount: number;
  lastSuccessAt: number | null;
  lastFailureAt: number | null;
}

export interface StreakState extends StreakSeed {
  endpointId: number;
  disable: "gone" | "consecutive_failures" | null;
  seq: number;
}

/** An attempt's outcome: the delivery's fields it sets, and the streak change it makes. */
export interface OutcomeInput
  extends Pick<DeliveryRecord, "status" | "attempts" | "responseStatus" | "responseBody" | "responseHeaders" | "error" | "durationMs" | "nextRetryAt"> {
  teamId: number;
  deliveryId: number;
  nowMs: number;
  streak: StreakChange;
  seed: StreakSeed;
}

export interface OutcomeResult {
  /** The delivery after the outcome, or as it was when it was no longer pending (nothing written). */
  row: DeliveryRecord | null;
  /** The streak after the change, when the outcome changed it (written to D1 by the caller). */
  streak: StreakState | null;
}

export interface DeliveryListQuery {
  endpointId: number;
  status?: DeliveryStatus;
  eventType?: string;
  limit: number;
  offset: number;
}

/** A delivery moved from D1's legacy_deliveries, with its event's body (D145). */
export interface LegacyDelivery extends DeliveryRecord {
  event: EventRecord;
}
