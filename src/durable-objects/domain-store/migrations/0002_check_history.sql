CREATE TABLE `checks` (
	`id` text PRIMARY KEY NOT NULL,
	`status` text NOT NULL,
	`trigger` text NOT NULL,
	`score` integer,
	`grade` text,
	`dmarc_policy` text,
	`posture` text,
	`stale_parts` text,
	`queries` integer NOT NULL,
	`duration_ms` integer,
	`error` text,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `checks_created_idx` ON `checks` (`created_at`);--> statement-breakpoint
CREATE TABLE `diffs` (
	`id` integer PRIMARY KEY NOT NULL,
	`check_id` text NOT NULL,
	`category` text NOT NULL,
	`field` text NOT NULL,
	`before` text,
	`after` text,
	`severity` text NOT NULL,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `diffs_created_idx` ON `diffs` (`created_at`);--> statement-breakpoint
CREATE INDEX `diffs_check_idx` ON `diffs` (`check_id`);