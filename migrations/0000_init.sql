CREATE TABLE `alerts` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`team_id` integer NOT NULL,
	`domain_id` integer,
	`kind` text NOT NULL,
	`subject` text NOT NULL,
	`severity` text NOT NULL,
	`title` text NOT NULL,
	`body` text,
	`occurrences` integer DEFAULT 1 NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	`resolved_at` integer,
	FOREIGN KEY (`team_id`) REFERENCES `teams`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`domain_id`) REFERENCES `domains`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `alerts_team_created_idx` ON `alerts` (`team_id`,`created_at`);--> statement-breakpoint
CREATE UNIQUE INDEX `alerts_open_subject_uq` ON `alerts` (`team_id`,`domain_id`,`kind`,`subject`) WHERE resolved_at IS NULL;--> statement-breakpoint
CREATE TABLE `checks` (
	`id` text PRIMARY KEY NOT NULL,
	`domain_id` integer NOT NULL,
	`status` text NOT NULL,
	`trigger` text NOT NULL,
	`score` integer,
	`grade` text,
	`dmarc_policy` text,
	`posture` text,
	`stale_parts` text,
	`queries` integer DEFAULT 0 NOT NULL,
	`duration_ms` integer,
	`error` text,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`domain_id`) REFERENCES `domains`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `checks_domain_created_idx` ON `checks` (`domain_id`,`created_at`);--> statement-breakpoint
CREATE TABLE `deliveries` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`endpoint_id` integer NOT NULL,
	`event_id` text NOT NULL,
	`team_id` integer NOT NULL,
	`event_type` text NOT NULL,
	`status` text NOT NULL,
	`attempts` integer DEFAULT 0 NOT NULL,
	`response_status` integer,
	`response_body` text,
	`response_headers` text,
	`error` text,
	`duration_ms` integer,
	`next_retry_at` integer,
	`delivered_at` integer,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`endpoint_id`) REFERENCES `webhook_endpoints`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`event_id`) REFERENCES `events`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `deliveries_event_endpoint_uq` ON `deliveries` (`event_id`,`endpoint_id`);--> statement-breakpoint
CREATE INDEX `deliveries_endpoint_created_idx` ON `deliveries` (`endpoint_id`,`created_at`);--> statement-breakpoint
CREATE INDEX `deliveries_status_retry_idx` ON `deliveries` (`status`,`next_retry_at`);--> statement-breakpoint
CREATE INDEX `deliveries_created_idx` ON `deliveries` (`created_at`);--> statement-breakpoint
CREATE TABLE `diffs` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`domain_id` integer NOT NULL,
	`check_id` text NOT NULL,
	`category` text NOT NULL,
	`field` text NOT NULL,
	`before` text,
	`after` text,
	`severity` text NOT NULL,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`domain_id`) REFERENCES `domains`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`check_id`) REFERENCES `checks`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `diffs_domain_created_idx` ON `diffs` (`domain_id`,`created_at`);--> statement-breakpoint
CREATE INDEX `diffs_check_idx` ON `diffs` (`check_id`);--> statement-breakpoint
CREATE TABLE `dkim_keys` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`selector_id` integer NOT NULL,
	`fingerprint` text NOT NULL,
	`type` text NOT NULL,
	`bits` integer,
	`record` text NOT NULL,
	`first_seen_at` integer NOT NULL,
	`last_seen_at` integer NOT NULL,
	`retired_at` integer,
	`retired_reason` text,
	FOREIGN KEY (`selector_id`) REFERENCES `dkim_selectors`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `dkim_keys_selector_fp_uq` ON `dkim_keys` (`selector_id`,`fingerprint`);--> statement-breakpoint
CREATE TABLE `dkim_selectors` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`domain_id` integer NOT NULL,
	`selector` text NOT NULL,
	`source` text NOT NULL,
	`status` text NOT NULL,
	`health` text DEFAULT 'warning' NOT NULL,
	`provider` text,
	`delegated_to` text,
	`record` text,
	`key_type` text,
	`key_bits` integer,
	`key_fingerprint` text,
	`key_testing` integer,
	`key_first_seen_at` integer,
	`rotations` integer DEFAULT 0 NOT NULL,
	`issues` text,
	`first_seen_at` integer,
	`last_seen_at` integer,
	`missing_since` integer,
	`last_report_at` integer,
	`stale_notified_at` integer,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`domain_id`) REFERENCES `domains`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `dkim_selectors_domain_selector_uq` ON `dkim_selectors` (`domain_id`,`selector`);--> statement-breakpoint
CREATE TABLE `dmarc_reports` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`domain_id` integer NOT NULL,
	`org_name` text NOT NULL,
	`report_id` text NOT NULL,
	`email` text,
	`version` text,
	`date_begin` integer NOT NULL,
	`date_end` integer NOT NULL,
	`records` integer NOT NULL,
	`messages` integer NOT NULL,
	`policy` text,
	`status` text NOT NULL,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`domain_id`) REFERENCES `domains`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `dmarc_reports_identity_uq` ON `dmarc_reports` (`domain_id`,`org_name`,`report_id`);--> statement-breakpoint
CREATE INDEX `dmarc_reports_domain_end_idx` ON `dmarc_reports` (`domain_id`,`date_end`);--> statement-breakpoint
CREATE TABLE `dmarc_rows` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`report_id` integer NOT NULL,
	`domain_id` integer NOT NULL,
	`day` text NOT NULL,
	`source_ip` text NOT NULL,
	`header_from` text,
	`disposition` text,
	`dkim_aligned` integer NOT NULL,
	`spf_aligned` integer NOT NULL,
	`dkim_domain` text,
	`dkim_selector` text,
	`dkim_result` text,
	`spf_domain` text,
	`spf_result` text,
	`messages` integer NOT NULL,
	FOREIGN KEY (`report_id`) REFERENCES `dmarc_reports`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`domain_id`) REFERENCES `domains`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `dmarc_rows_domain_day_idx` ON `dmarc_rows` (`domain_id`,`day`);--> statement-breakpoint
CREATE INDEX `dmarc_rows_report_idx` ON `dmarc_rows` (`report_id`);--> statement-breakpoint
CREATE TABLE `domains` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`team_id` integer NOT NULL,
	`name` text NOT NULL,
	`client` text,
	`verified` integer DEFAULT false NOT NULL,
	`verification_token` text NOT NULL,
	`verified_at` integer,
	`report_token` text NOT NULL,
	`score` integer,
	`grade` text,
	`dmarc_policy` text,
	`last_checked_at` integer,
	`next_check_at` integer,
	`last_check_id` text,
	`registration_expires_at` integer,
	`registration_checked_at` integer,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`team_id`) REFERENCES `teams`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `domains_team_name_uq` ON `domains` (`team_id`,`name`);--> statement-breakpoint
CREATE UNIQUE INDEX `domains_report_token_uq` ON `domains` (`report_token`);--> statement-breakpoint
CREATE INDEX `domains_due_idx` ON `domains` (`verified`,`next_check_at`);--> statement-breakpoint
CREATE INDEX `domains_name_idx` ON `domains` (`name`);--> statement-breakpoint
CREATE TABLE `events` (
	`id` text PRIMARY KEY NOT NULL,
	`team_id` integer NOT NULL,
	`domain_id` integer,
	`type` text NOT NULL,
	`payload` text NOT NULL,
	`created_at` integer NOT NULL,
	`fanned_out_at` integer,
	FOREIGN KEY (`team_id`) REFERENCES `teams`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `events_pending_fanout_idx` ON `events` (`fanned_out_at`,`created_at`);--> statement-breakpoint
CREATE INDEX `events_team_created_idx` ON `events` (`team_id`,`created_at`);--> statement-breakpoint
CREATE TABLE `notifications` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`team_id` integer NOT NULL,
	`kind` text NOT NULL,
	`recipient` text NOT NULL,
	`subject` text NOT NULL,
	`body` text NOT NULL,
	`sent_at` integer,
	`error` text,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`team_id`) REFERENCES `teams`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `notifications_team_idx` ON `notifications` (`team_id`,`created_at`);--> statement-breakpoint
CREATE TABLE `public_cache` (
	`kind` text NOT NULL,
	`key` text NOT NULL,
	`value` text NOT NULL,
	`expires_at` integer NOT NULL,
	PRIMARY KEY(`kind`, `key`)
);
--> statement-breakpoint
CREATE TABLE `teams` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`name` text NOT NULL,
	`plan` text NOT NULL,
	`owner_email` text NOT NULL,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE `tokens` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`team_id` integer NOT NULL,
	`name` text NOT NULL,
	`scope` text NOT NULL,
	`token_hash` text NOT NULL,
	`prefix` text NOT NULL,
	`created_at` integer NOT NULL,
	`last_used_at` integer,
	`revoked_at` integer,
	FOREIGN KEY (`team_id`) REFERENCES `teams`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `tokens_hash_uq` ON `tokens` (`token_hash`);--> statement-breakpoint
CREATE INDEX `tokens_team_idx` ON `tokens` (`team_id`);--> statement-breakpoint
CREATE TABLE `webhook_endpoints` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`team_id` integer NOT NULL,
	`url` text NOT NULL,
	`description` text,
	`events` text NOT NULL,
	`domain_ids` text,
	`enabled` integer DEFAULT true NOT NULL,
	`secret_enc` text NOT NULL,
	`previous_secret_enc` text,
	`previous_secret_expires_at` integer,
	`failure_count` integer DEFAULT 0 NOT NULL,
	`disabled_at` integer,
	`disabled_reason` text,
	`last_success_at` integer,
	`last_failure_at` integer,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`team_id`) REFERENCES `teams`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `webhook_endpoints_team_idx` ON `webhook_endpoints` (`team_id`);