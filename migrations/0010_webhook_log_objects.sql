-- The webhook event and delivery logs move to one Durable Object per team (docs/decisions.md D140).
-- The old table is kept, renamed, for the mover that copies its rows into the team objects (keeping
-- their ids) and drops it once it is empty (D145). D1's events table stays the outbox.
ALTER TABLE `deliveries` RENAME TO `legacy_deliveries`;--> statement-breakpoint
ALTER TABLE `webhook_endpoints` ADD `stats_seq` integer DEFAULT 0 NOT NULL;
