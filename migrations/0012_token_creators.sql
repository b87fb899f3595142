-- Who made each API token (docs/decisions.md D151): the member who made it in the dashboard, null for the admin API
-- (the operator) and for tokens made before this column. A member who leaves or loses write has theirs revoked
-- through the (team_id, created_by_user_id) index (D152).
ALTER TABLE `tokens` ADD `created_by_user_id` integer;--> statement-breakpoint
CREATE INDEX `tokens_creator_idx` ON `tokens` (`team_id`,`created_by_user_id`);