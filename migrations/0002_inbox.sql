CREATE TABLE `inbox_reads` (
	`account_id` text NOT NULL,
	`conversation_kind` text NOT NULL,
	`conversation_id` text NOT NULL,
	`read_through_at` integer NOT NULL,
	`read_through_id` integer NOT NULL,
	PRIMARY KEY(`account_id`, `conversation_kind`, `conversation_id`),
	FOREIGN KEY (`account_id`) REFERENCES `accounts`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE TABLE `inbox_sessions` (
	`token_hash` text PRIMARY KEY NOT NULL,
	`account_id` text NOT NULL,
	`api_secret_hash` text NOT NULL,
	`created_at` integer NOT NULL,
	`expires_at` integer NOT NULL,
	FOREIGN KEY (`account_id`) REFERENCES `accounts`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `inbox_sessions_account_idx` ON `inbox_sessions` (`account_id`,`expires_at`);