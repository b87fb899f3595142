CREATE TABLE `dmarc_daily` (
	`domain_id` integer NOT NULL,
	`day` text NOT NULL,
	`reports` integer NOT NULL,
	`messages` integer NOT NULL,
	`pass` integer NOT NULL,
	`fail` integer NOT NULL,
	`top_failing` text NOT NULL,
	`seq` integer NOT NULL,
	PRIMARY KEY(`domain_id`, `day`),
	FOREIGN KEY (`domain_id`) REFERENCES `domains`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE TABLE `dmarc_reporter_days` (
	`domain_id` integer NOT NULL,
	`day` text NOT NULL,
	`org_name` text NOT NULL,
	`last_at` integer NOT NULL,
	PRIMARY KEY(`domain_id`, `day`, `org_name`),
	FOREIGN KEY (`domain_id`) REFERENCES `domains`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
-- Report rows move to one Durable Object per domain (docs/decisions.md D120). The old tables are kept,
-- renamed, for the mover that copies them into the objects and drops each once it is empty (D126).
ALTER TABLE `dmarc_reports` RENAME TO `legacy_dmarc_reports`;--> statement-breakpoint
ALTER TABLE `dmarc_rows` RENAME TO `legacy_dmarc_rows`;--> statement-breakpoint
ALTER TABLE `tls_failures` RENAME TO `legacy_tls_failures`;--> statement-breakpoint
ALTER TABLE `tls_policies` RENAME TO `legacy_tls_policies`;--> statement-breakpoint
ALTER TABLE `tls_reports` RENAME TO `legacy_tls_reports`;