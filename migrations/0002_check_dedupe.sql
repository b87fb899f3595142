ALTER TABLE `domains` ADD `pending_check_id` text;--> statement-breakpoint
ALTER TABLE `domains` ADD `pending_check_at` integer;