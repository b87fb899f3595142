-- Who made each API token (docs/decisions.md D151): created_by is 'member' (created_by_user_id names them) or
-- 'operator' (the admin API); null for tokens made before this migration, shown as unknown. A member who leaves
-- or loses write has the tokens they made revoked through the (team_id, created_by_user_id) index (D152).
ALTER TABLE `tokens` ADD `created_by` text;--> statement-breakpoint
ALTER TABLE `tokens` ADD `created_by_user_id` integer;--> statement-breakpoint
CREATE INDEX `tokens_creator_idx` ON `tokens` (`team_id`,`created_by_user_id`);