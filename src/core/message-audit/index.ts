// Public API of the message audit (SPF, DKIM, DMARC, ARC, one-click unsubscribe, bulk-sender rules). No I/O here.
export { auditMessage, type AuditDeps, type MessageAudit } from "./audit";
export { PROVIDERS, type ProviderTable, type ProviderRow, type RowId, type RowState, type Requirement } from "./providers";
export { parseReceived, parseAuthResults, deriveEnvelope, type EnvelopeInput } from "./trace";
