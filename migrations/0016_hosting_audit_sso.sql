CREATE TABLE `audit_chain_heads` (
	`team_id` integer PRIMARY KEY NOT NULL,
	`sealed_seq` integer DEFAULT 0 NOT NULL,
	`head_hash` text,
	`pruned_through_seq` integer DEFAULT 0 NOT NULL,
	`pruned_hash` text,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`team_id`) REFERENCES `teams`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE TABLE `audit_entries` (
	`team_id` integer NOT NULL,
	`seq` integer NOT NULL,
	`at` integer NOT NULL,
	`actor_kind` text NOT NULL,
	`actor_id` text NOT NULL,
	`actor_label` text NOT NULL,
	`face` text NOT NULL,
	`verb` text NOT NULL,
	`target_type` text,
	`target_id` text,
	`summary` text NOT NULL,
	`ip` text,
	`user_agent` text,
	`hash` text,
	PRIMARY KEY(`team_id`, `seq`),
	FOREIGN KEY (`team_id`) REFERENCES `teams`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `audit_entries_at_idx` ON `audit_entries` (`team_id`,`at`);--> statement-breakpoint
CREATE INDEX `audit_entries_actor_idx` ON `audit_entries` (`team_id`,`actor_id`);--> statement-breakpoint
CREATE INDEX `audit_entries_verb_idx` ON `audit_entries` (`team_id`,`verb`);--> statement-breakpoint
CREATE INDEX `audit_entries_target_idx` ON `audit_entries` (`team_id`,`target_type`,`target_id`);--> statement-breakpoint
CREATE TABLE `hosted_bimi` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`domain_id` integer NOT NULL,
	`team_id` integer NOT NULL,
	`domain_name` text NOT NULL,
	`selector` text NOT NULL,
	`logo_svg` text,
	`logo_sha256` text,
	`logo_uploaded_at` integer,
	`certificate_pem` text,
	`certificate_url` text,
	`certificate_uploaded_at` integer,
	`mark_kind` text,
	`certificate_not_after` integer,
	`validation` text,
	`validated_at` integer,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`domain_id`) REFERENCES `domains`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`team_id`) REFERENCES `teams`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `hosted_bimi_name_selector_uq` ON `hosted_bimi` (`domain_name`,`selector`);--> statement-breakpoint
CREATE INDEX `hosted_bimi_team_idx` ON `hosted_bimi` (`team_id`);--> statement-breakpoint
CREATE INDEX `hosted_bimi_not_after_idx` ON `hosted_bimi` (`certificate_not_after`);--> statement-breakpoint
CREATE TABLE `hosted_mta_sts` (
	`domain_id` integer PRIMARY KEY NOT NULL,
	`team_id` integer NOT NULL,
	`domain_name` text NOT NULL,
	`state` text NOT NULL,
	`mode` text NOT NULL,
	`mx_patterns` text NOT NULL,
	`max_age` integer NOT NULL,
	`policy_id` text NOT NULL,
	`policy_changed_at` integer NOT NULL,
	`id_delivery` text NOT NULL,
	`published_id` text,
	`published_checked_at` integer,
	`retiring_since` integer,
	`retiring_max_age` integer,
	`safe_to_remove_at` integer,
	`custom_hostname_id` text,
	`hostname_status` text,
	`certificate_status` text,
	`hostname_details` text,
	`hostname_checked_at` integer,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`domain_id`) REFERENCES `domains`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`team_id`) REFERENCES `teams`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `hosted_mta_sts_name_uq` ON `hosted_mta_sts` (`domain_name`);--> statement-breakpoint
CREATE INDEX `hosted_mta_sts_team_idx` ON `hosted_mta_sts` (`team_id`);--> statement-breakpoint
CREATE TABLE `sso_domains` (
	`team_id` integer NOT NULL,
	`domain` text NOT NULL,
	`verification_token` text NOT NULL,
	`verified_at` integer,
	`created_at` integer NOT NULL,
	PRIMARY KEY(`team_id`, `domain`),
	FOREIGN KEY (`team_id`) REFERENCES `teams`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `sso_domains_domain_idx` ON `sso_domains` (`domain`);--> statement-breakpoint
CREATE TABLE `sso_logins` (
	`state_hash` text PRIMARY KEY NOT NULL,
	`team_id` integer NOT NULL,
	`nonce` text NOT NULL,
	`code_verifier` text NOT NULL,
	`browser_hash` text NOT NULL,
	`next` text,
	`created_at` integer NOT NULL,
	`expires_at` integer NOT NULL,
	`used_at` integer,
	FOREIGN KEY (`team_id`) REFERENCES `teams`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `sso_logins_expires_idx` ON `sso_logins` (`expires_at`);--> statement-breakpoint
CREATE TABLE `team_sso` (
	`team_id` integer PRIMARY KEY NOT NULL,
	`issuer` text NOT NULL,
	`client_id` text NOT NULL,
	`client_secret_enc` text,
	`discovery` text NOT NULL,
	`discovered_at` integer NOT NULL,
	`enforced` integer DEFAULT false NOT NULL,
	`auto_join` integer DEFAULT false NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`team_id`) REFERENCES `teams`(`id`) ON UPDATE no action ON DELETE cascade
);
