CREATE TABLE `report_summaries_due` (
	`domain_id` integer NOT NULL,
	`kind` text NOT NULL,
	`org_name` text NOT NULL,
	`report_id` text NOT NULL,
	`due_at` integer NOT NULL,
	PRIMARY KEY(`domain_id`, `kind`, `org_name`, `report_id`),
	FOREIGN KEY (`domain_id`) REFERENCES `domains`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `report_summaries_due_at_idx` ON `report_summaries_due` (`due_at`);