-- D1 keeps each domain's current state (docs/decisions.md D134-D139): a check copied into the domain's object stays
-- only as a primary-key guard row for 20 minutes, the history kept before waits to be copied, and alerts
-- resolved more than 90 days ago and DKIM keys retired more than 400 days ago are purged through their own indexes.
ALTER TABLE `checks` ADD `archived_at` integer;--> statement-breakpoint
CREATE INDEX `checks_unarchived_idx` ON `checks` (`domain_id`,`created_at`) WHERE archived_at IS NULL;--> statement-breakpoint
CREATE INDEX `checks_archived_idx` ON `checks` (`archived_at`) WHERE archived_at IS NOT NULL;--> statement-breakpoint
CREATE INDEX `alerts_resolved_idx` ON `alerts` (`resolved_at`) WHERE resolved_at IS NOT NULL;--> statement-breakpoint
CREATE INDEX `dkim_keys_retired_idx` ON `dkim_keys` (`retired_at`) WHERE retired_at IS NOT NULL;