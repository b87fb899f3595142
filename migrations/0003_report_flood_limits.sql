CREATE TABLE `dmarc_refusals` (
	`domain_id` integer NOT NULL,
	`day` text NOT NULL,
	`reason` text NOT NULL,
	`count` integer NOT NULL,
	PRIMARY KEY(`domain_id`, `day`, `reason`),
	FOREIGN KEY (`domain_id`) REFERENCES `domains`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
ALTER TABLE `domains` ADD `ownership_checked_at` integer;--> statement-breakpoint
ALTER TABLE `domains` ADD `ownership_missing_since` integer;--> statement-breakpoint
CREATE INDEX `dmarc_reports_domain_received_idx` ON `dmarc_reports` (`domain_id`,`created_at`);