CREATE TABLE `channel_subscribers` (
	`channel_id` integer NOT NULL,
	`user_id` integer NOT NULL,
	`team_id` integer NOT NULL,
	`created_at` integer NOT NULL,
	PRIMARY KEY(`channel_id`, `user_id`),
	FOREIGN KEY (`channel_id`) REFERENCES `notification_channels`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`team_id`) REFERENCES `teams`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `channel_subscribers_user_idx` ON `channel_subscribers` (`team_id`,`user_id`);--> statement-breakpoint
CREATE TABLE `digest_sends` (
	`team_id` integer NOT NULL,
	`user_id` integer NOT NULL,
	`period` text NOT NULL,
	`status` text NOT NULL,
	`created_at` integer NOT NULL,
	`sent_at` integer,
	PRIMARY KEY(`team_id`, `user_id`, `period`),
	FOREIGN KEY (`team_id`) REFERENCES `teams`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE TABLE `member_digest_prefs` (
	`team_id` integer NOT NULL,
	`user_id` integer NOT NULL,
	`frequency` text NOT NULL,
	`updated_at` integer NOT NULL,
	PRIMARY KEY(`team_id`, `user_id`),
	FOREIGN KEY (`team_id`) REFERENCES `teams`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE TABLE `notification_attempts` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`team_id` integer NOT NULL,
	`message_id` integer NOT NULL,
	`attempt` integer NOT NULL,
	`status` integer,
	`error` text,
	`duration_ms` integer,
	`response_excerpt` text,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`team_id`) REFERENCES `teams`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`message_id`) REFERENCES `notification_messages`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `notification_attempts_message_idx` ON `notification_attempts` (`message_id`);--> statement-breakpoint
CREATE TABLE `notification_channels` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`team_id` integer NOT NULL,
	`kind` text NOT NULL,
	`name` text NOT NULL,
	`email_mode` text,
	`address` text,
	`confirmed_at` integer,
	`confirm_token_hash` text,
	`confirm_expires_at` integer,
	`target_enc` text,
	`target_hint` text,
	`enabled` integer DEFAULT true NOT NULL,
	`failure_count` integer DEFAULT 0 NOT NULL,
	`disabled_at` integer,
	`disabled_reason` text,
	`last_success_at` integer,
	`last_failure_at` integer,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`team_id`) REFERENCES `teams`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `notification_channels_team_idx` ON `notification_channels` (`team_id`);--> statement-breakpoint
CREATE TABLE `notification_cooldowns` (
	`rule_id` integer NOT NULL,
	`domain_id` integer NOT NULL,
	`kind` text NOT NULL,
	`last_sent_at` integer NOT NULL,
	`message_id` integer,
	PRIMARY KEY(`rule_id`, `domain_id`, `kind`),
	FOREIGN KEY (`rule_id`) REFERENCES `notification_rules`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE TABLE `notification_items` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`team_id` integer NOT NULL,
	`channel_id` integer NOT NULL,
	`message_id` integer,
	`rule_id` integer,
	`event_id` text NOT NULL,
	`alert_id` integer NOT NULL,
	`domain_id` integer,
	`action` text NOT NULL,
	`alert` text NOT NULL,
	`dedup_key` text,
	`suppressed` integer DEFAULT false NOT NULL,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`team_id`) REFERENCES `teams`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`channel_id`) REFERENCES `notification_channels`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`message_id`) REFERENCES `notification_messages`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `notification_items_event_uq` ON `notification_items` (`channel_id`,`event_id`);--> statement-breakpoint
CREATE INDEX `notification_items_message_idx` ON `notification_items` (`message_id`);--> statement-breakpoint
CREATE INDEX `notification_items_alert_idx` ON `notification_items` (`channel_id`,`alert_id`);--> statement-breakpoint
CREATE TABLE `notification_messages` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`team_id` integer NOT NULL,
	`channel_id` integer NOT NULL,
	`kind` text NOT NULL,
	`status` text NOT NULL,
	`send_after` integer NOT NULL,
	`attempts` integer DEFAULT 0 NOT NULL,
	`next_retry_at` integer,
	`lease_until` integer,
	`requests` integer DEFAULT 0 NOT NULL,
	`last_status` integer,
	`last_error` text,
	`response_excerpt` text,
	`sent_to` text,
	`delivered_at` integer,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`team_id`) REFERENCES `teams`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`channel_id`) REFERENCES `notification_channels`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `notification_messages_channel_idx` ON `notification_messages` (`channel_id`,`created_at`);--> statement-breakpoint
CREATE INDEX `notification_messages_due_idx` ON `notification_messages` (`status`,`next_retry_at`);--> statement-breakpoint
CREATE TABLE `notification_rules` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`team_id` integer NOT NULL,
	`channel_id` integer NOT NULL,
	`kinds` text,
	`min_severity` text NOT NULL,
	`domain_ids` text,
	`cooldown_minutes` integer DEFAULT 60 NOT NULL,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`team_id`) REFERENCES `teams`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`channel_id`) REFERENCES `notification_channels`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `notification_rules_team_idx` ON `notification_rules` (`team_id`);--> statement-breakpoint
CREATE INDEX `notification_rules_channel_idx` ON `notification_rules` (`channel_id`);--> statement-breakpoint
CREATE TABLE `team_digest_settings` (
	`team_id` integer PRIMARY KEY NOT NULL,
	`time_zone` text NOT NULL,
	`hour` integer NOT NULL,
	`weekday` integer NOT NULL,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`team_id`) REFERENCES `teams`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
ALTER TABLE `dev_outbox` ADD `raw` text;