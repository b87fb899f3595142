CREATE TABLE `dmarc_failures` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`domain_id` integer NOT NULL,
	`reporting_org` text,
	`arrival_date` integer,
	`source_ip` text,
	`auth_failure` text,
	`auth_results` text,
	`identity_alignment` text,
	`dkim_domain` text,
	`dkim_selector` text,
	`delivery_result` text,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`domain_id`) REFERENCES `domains`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `dmarc_failures_domain_received_idx` ON `dmarc_failures` (`domain_id`,`created_at`);--> statement-breakpoint
CREATE INDEX `dmarc_failures_received_idx` ON `dmarc_failures` (`created_at`);--> statement-breakpoint
CREATE TABLE `tls_failures` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`policy_id` integer NOT NULL,
	`domain_id` integer NOT NULL,
	`day` text NOT NULL,
	`result_type` text NOT NULL,
	`sending_mta_ip` text,
	`receiving_mx_hostname` text,
	`receiving_ip` text,
	`failed_count` integer NOT NULL,
	`failure_reason_code` text,
	FOREIGN KEY (`policy_id`) REFERENCES `tls_policies`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`domain_id`) REFERENCES `domains`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `tls_failures_domain_day_idx` ON `tls_failures` (`domain_id`,`day`);--> statement-breakpoint
CREATE INDEX `tls_failures_policy_idx` ON `tls_failures` (`policy_id`);--> statement-breakpoint
CREATE TABLE `tls_policies` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`report_id` integer NOT NULL,
	`domain_id` integer NOT NULL,
	`day` text NOT NULL,
	`policy_type` text NOT NULL,
	`policy_domain` text NOT NULL,
	`policy_strings` text,
	`mx_hosts` text,
	`successful` integer NOT NULL,
	`failed` integer NOT NULL,
	FOREIGN KEY (`report_id`) REFERENCES `tls_reports`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`domain_id`) REFERENCES `domains`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `tls_policies_domain_day_idx` ON `tls_policies` (`domain_id`,`day`);--> statement-breakpoint
CREATE INDEX `tls_policies_report_idx` ON `tls_policies` (`report_id`);--> statement-breakpoint
CREATE TABLE `tls_reports` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`domain_id` integer NOT NULL,
	`org_name` text NOT NULL,
	`report_id` text NOT NULL,
	`contact` text,
	`date_begin` integer NOT NULL,
	`date_end` integer NOT NULL,
	`day` text NOT NULL,
	`successful` integer NOT NULL,
	`failed` integer NOT NULL,
	`via` text NOT NULL,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`domain_id`) REFERENCES `domains`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `tls_reports_identity_uq` ON `tls_reports` (`domain_id`,`org_name`,`report_id`);--> statement-breakpoint
CREATE INDEX `tls_reports_domain_day_idx` ON `tls_reports` (`domain_id`,`day`);--> statement-breakpoint
CREATE INDEX `tls_reports_received_idx` ON `tls_reports` (`created_at`);--> statement-breakpoint
CREATE INDEX `dmarc_rows_domain_source_idx` ON `dmarc_rows` (`domain_id`,`source_ip`);