CREATE TABLE `account_events` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`account_id` text NOT NULL,
	`type` text NOT NULL,
	`data` text NOT NULL,
	`occurred_at` integer NOT NULL,
	FOREIGN KEY (`account_id`) REFERENCES `accounts`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `account_events_account_idx` ON `account_events` (`account_id`,`id`);--> statement-breakpoint
CREATE TABLE `media_objects` (
	`id` text PRIMARY KEY NOT NULL,
	`account_id` text NOT NULL,
	`source_url` text NOT NULL,
	`content_type` text NOT NULL,
	`bytes` blob,
	`byte_length` integer NOT NULL,
	`remote_url` text,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`account_id`) REFERENCES `accounts`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `media_objects_account_idx` ON `media_objects` (`account_id`,`created_at`);--> statement-breakpoint
CREATE TABLE `webhook_subscriptions` (
	`account_id` text NOT NULL,
	`type` text NOT NULL,
	`url` text NOT NULL,
	`secret` text,
	`sendblue_numbers` text,
	`given_as_object` integer DEFAULT false NOT NULL,
	`created_at` integer NOT NULL,
	PRIMARY KEY(`account_id`, `type`, `url`),
	FOREIGN KEY (`account_id`) REFERENCES `accounts`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
ALTER TABLE `accounts` ADD `webhook_global_secret` text;--> statement-breakpoint
ALTER TABLE `contacts` ADD `assigned_to_email` text DEFAULT '' NOT NULL;--> statement-breakpoint
ALTER TABLE `contacts` ADD `tags` text DEFAULT '[]' NOT NULL;--> statement-breakpoint
ALTER TABLE `contacts` ADD `custom_variables` text DEFAULT '{}' NOT NULL;--> statement-breakpoint
ALTER TABLE `contacts` ADD `opted_out` integer DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE `contacts` ADD `deleted_at` integer;--> statement-breakpoint
ALTER TABLE `contacts` ADD `updated_at` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
CREATE INDEX `contacts_account_updated_idx` ON `contacts` (`account_id`,`updated_at`,`id`);--> statement-breakpoint
ALTER TABLE `groups` ADD `photo_media_id` text;--> statement-breakpoint
ALTER TABLE `messages` ADD `reply_to_handle` text;--> statement-breakpoint
ALTER TABLE `messages` ADD `reply_to_part_index` integer;--> statement-breakpoint
ALTER TABLE `messages` ADD `seat_id` text;--> statement-breakpoint
ALTER TABLE `messages` ADD `opted_out` integer DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE `webhook_deliveries` ADD `signing_secret` text;--> statement-breakpoint
UPDATE `contacts` SET `updated_at` = `created_at`;--> statement-breakpoint
INSERT INTO `webhook_subscriptions` (`account_id`, `type`, `url`, `given_as_object`, `created_at`)
	SELECT `account_id`, 'receive', `url`, 0, `created_at` FROM `receive_webhooks`;
