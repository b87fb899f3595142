CREATE TABLE `reports` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`org_name` text NOT NULL,
	`report_id` text NOT NULL,
	`email` text,
	`version` text,
	`date_begin` integer NOT NULL,
	`date_end` integer NOT NULL,
	`records` integer NOT NULL,
	`messages` integer NOT NULL,
	`pass` integer NOT NULL,
	`policy` text,
	`received_at` integer NOT NULL,
	`summarised_at` integer
);
--> statement-breakpoint
CREATE UNIQUE INDEX `reports_identity_uq` ON `reports` (`org_name`,`report_id`);--> statement-breakpoint
CREATE INDEX `reports_end_idx` ON `reports` (`date_end`);--> statement-breakpoint
CREATE INDEX `reports_received_idx` ON `reports` (`received_at`);--> statement-breakpoint
CREATE TABLE `rows` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`report_ref` integer,
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
	`messages` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `rows_day_idx` ON `rows` (`day`);--> statement-breakpoint
CREATE INDEX `rows_report_idx` ON `rows` (`report_ref`);--> statement-breakpoint
CREATE INDEX `rows_source_idx` ON `rows` (`source_ip`);--> statement-breakpoint
CREATE TABLE `tls_failures` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`policy_ref` integer NOT NULL,
	`report_ref` integer NOT NULL,
	`day` text NOT NULL,
	`result_type` text NOT NULL,
	`sending_mta_ip` text,
	`receiving_mx_hostname` text,
	`receiving_ip` text,
	`failed_count` integer NOT NULL,
	`failure_reason_code` text
);
--> statement-breakpoint
CREATE INDEX `tls_failures_day_idx` ON `tls_failures` (`day`);--> statement-breakpoint
CREATE INDEX `tls_failures_report_idx` ON `tls_failures` (`report_ref`);--> statement-breakpoint
CREATE TABLE `tls_policies` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`report_ref` integer NOT NULL,
	`day` text NOT NULL,
	`policy_type` text NOT NULL,
	`policy_domain` text NOT NULL,
	`policy_strings` text,
	`mx_hosts` text,
	`successful` integer NOT NULL,
	`failed` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `tls_policies_day_idx` ON `tls_policies` (`day`);--> statement-breakpoint
CREATE INDEX `tls_policies_report_idx` ON `tls_policies` (`report_ref`);--> statement-breakpoint
CREATE TABLE `tls_reports` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`org_name` text NOT NULL,
	`report_id` text NOT NULL,
	`contact` text,
	`date_begin` integer NOT NULL,
	`date_end` integer NOT NULL,
	`day` text NOT NULL,
	`successful` integer NOT NULL,
	`failed` integer NOT NULL,
	`via` text NOT NULL,
	`received_at` integer NOT NULL,
	`summarised_at` integer
);
--> statement-breakpoint
CREATE UNIQUE INDEX `tls_reports_identity_uq` ON `tls_reports` (`org_name`,`report_id`);--> statement-breakpoint
CREATE INDEX `tls_reports_day_idx` ON `tls_reports` (`day`);--> statement-breakpoint
CREATE INDEX `tls_reports_received_idx` ON `tls_reports` (`received_at`);