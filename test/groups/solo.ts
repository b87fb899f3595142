// Files that run in a runner of their own, not in a group (test/groups/select.ts): each depends on
// state that another file may change in a shared database or isolate, and says which in its line.
export const SOLO_FILES: readonly string[] = [
  // moves the legacy report tables, which the every-minute cron of other files drops when empty
  "test/cron/report-moves.test.ts",
  // the same, for the legacy webhook delivery log
  "test/cron/webhook-log-moves.test.ts",
  // runs every cron job over the whole database
  "test/entry/scheduled.test.ts",
  // counts rows in the legacy tables that other files' crons drop
  "test/routes/admin/report-moves.test.ts",
  // reads sender identities from public_cache, which other files fill for the same addresses
  "test/routes/dmarc/sources.test.ts",
  // the same public_cache of sender identities
  "test/routes/dmarc/analytics.test.ts",
  // one cron run reaches a bounded number of teams: other files' teams would crowd them out
  "test/services/digests.test.ts",
  // the disposable-domain list is loaded once per isolate
  "test/services/disposable-asset.test.ts",
];
