-- Checks move to the domain objects (docs/decisions.md D134-D135): D1 keeps a copied check only as the
-- primary-key guard against a second run of the same check id, and the pre-existing history waits to be copied.
ALTER TABLE `checks` ADD `archived_at` integer;--> statement-breakpoint
CREATE INDEX `checks_unarchived_idx` ON `checks` (`domain_id`,`created_at`) WHERE archived_at IS NULL;--> statement-breakpoint
CREATE INDEX `checks_archived_idx` ON `checks` (`archived_at`) WHERE archived_at IS NOT NULL;