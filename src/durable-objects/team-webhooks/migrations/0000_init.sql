CREATE TABLE `deliveries` (
	`id` integer PRIMARY KEY NOT NULL,
	`endpoint_id` integer NOT NULL,
	`event_id` text NOT NULL,
	`event_type` text NOT NULL,
	`status` text NOT NULL,
	`attempts` integer NOT NULL,
	`response_status` integer,
	`response_body` text,
	`response_headers` text,
	`error` text,
	`duration_ms` integer,
	`next_retry_at` integer,
	`leased_until` integer,
	`delivered_at` integer,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `deliveries_event_endpoint_uq` ON `deliveries` (`event_id`,`endpoint_id`);--> statement-breakpoint
CREATE INDEX `deliveries_endpoint_created_idx` ON `deliveries` (`endpoint_id`,`created_at`);--> statement-breakpoint
CREATE INDEX `deliveries_status_retry_idx` ON `deliveries` (`status`,`next_retry_at`);--> statement-breakpoint
CREATE INDEX `deliveries_created_idx` ON `deliveries` (`created_at`);--> statement-breakpoint
CREATE TABLE `endpoint_streaks` (
	`endpoint_id` integer PRIMARY KEY NOT NULL,
	`failure_count` integer NOT NULL,
	`last_success_at` integer,
	`last_failure_at` integer,
	`disable` text,
	`seq` integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE `events` (
	`id` text PRIMARY KEY NOT NULL,
	`domain_id` integer,
	`type` text NOT NULL,
	`payload` text NOT NULL,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `events_created_idx` ON `events` (`created_at`);--> statement-breakpoint
CREATE INDEX `events_domain_idx` ON `events` (`domain_id`,`created_at`);