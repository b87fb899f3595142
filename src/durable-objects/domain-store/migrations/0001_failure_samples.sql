CREATE TABLE `failures` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`reporting_org` text,
	`arrival_date` integer,
	`source_ip` text,
	`auth_failure` text,
	`auth_results` text,
	`identity_alignment` text,
	`dkim_domain` text,
	`dkim_selector` text,
	`delivery_result` text,
	`received_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `failures_received_idx` ON `failures` (`received_at`);