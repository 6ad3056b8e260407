CREATE TABLE `accounts` (
	`id` text PRIMARY KEY NOT NULL,
	`email` text NOT NULL,
	`plan` text NOT NULL,
	`api_key_id` text NOT NULL,
	`api_secret_hash` text NOT NULL,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `accounts_email_unique` ON `accounts` (`email`);--> statement-breakpoint
CREATE UNIQUE INDEX `accounts_apiKeyId_unique` ON `accounts` (`api_key_id`);--> statement-breakpoint
CREATE TABLE `contacts` (
	`id` text PRIMARY KEY NOT NULL,
	`account_id` text NOT NULL,
	`phone` text NOT NULL,
	`first_name` text NOT NULL,
	`last_name` text NOT NULL,
	`company_name` text DEFAULT '' NOT NULL,
	`last_message_at` integer,
	`preview_text` text DEFAULT '' NOT NULL,
	`last_inbound_at` integer,
	`last_outbound_at` integer,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`account_id`) REFERENCES `accounts`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `contacts_account_phone_uq` ON `contacts` (`account_id`,`phone`);--> statement-breakpoint
CREATE INDEX `contacts_account_last_date_idx` ON `contacts` (`account_id`,`last_message_at`,`id`);--> statement-breakpoint
CREATE INDEX `contacts_account_first_name_idx` ON `contacts` (`account_id`,`first_name`,`id`);--> statement-breakpoint
CREATE INDEX `contacts_account_last_name_idx` ON `contacts` (`account_id`,`last_name`,`id`);--> statement-breakpoint
CREATE INDEX `contacts_account_created_idx` ON `contacts` (`account_id`,`created_at`,`id`);--> statement-breakpoint
CREATE TABLE `group_members` (
	`group_id` text NOT NULL,
	`number` text NOT NULL,
	`added_at` integer NOT NULL,
	PRIMARY KEY(`group_id`, `number`),
	FOREIGN KEY (`group_id`) REFERENCES `groups`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `group_members_number_idx` ON `group_members` (`number`,`group_id`);--> statement-breakpoint
CREATE TABLE `groups` (
	`id` text PRIMARY KEY NOT NULL,
	`account_id` text NOT NULL,
	`member_key` text NOT NULL,
	`line_number` text NOT NULL,
	`display_name` text DEFAULT '' NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`account_id`) REFERENCES `accounts`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`line_number`) REFERENCES `service_numbers`(`number`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `groups_account_members_uq` ON `groups` (`account_id`,`member_key`);--> statement-breakpoint
CREATE TABLE `idempotency_keys` (
	`account_id` text NOT NULL,
	`key` text NOT NULL,
	`request_hash` text NOT NULL,
	`response_status` integer NOT NULL,
	`response_body` text NOT NULL,
	`created_at` integer NOT NULL,
	PRIMARY KEY(`account_id`, `key`),
	FOREIGN KEY (`account_id`) REFERENCES `accounts`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE TABLE `messages` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`handle` text NOT NULL,
	`account_id` text NOT NULL,
	`is_outbound` integer NOT NULL,
	`message_type` text NOT NULL,
	`status` text NOT NULL,
	`error_code` integer,
	`error_message` text,
	`error_detail` text,
	`content` text DEFAULT '' NOT NULL,
	`media_url` text DEFAULT '' NOT NULL,
	`send_style` text DEFAULT '' NOT NULL,
	`status_callback` text,
	`line_number` text NOT NULL,
	`number` text NOT NULL,
	`recipients` text,
	`contact_id` text,
	`group_id` text,
	`was_downgraded` integer,
	`date_sent` integer NOT NULL,
	`date_updated` integer NOT NULL,
	FOREIGN KEY (`account_id`) REFERENCES `accounts`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`contact_id`) REFERENCES `contacts`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`group_id`) REFERENCES `groups`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `messages_handle_unique` ON `messages` (`handle`);--> statement-breakpoint
CREATE INDEX `messages_account_date_idx` ON `messages` (`account_id`,`date_sent`,`id`);--> statement-breakpoint
CREATE INDEX `messages_account_contact_date_idx` ON `messages` (`account_id`,`contact_id`,`date_sent`,`id`);--> statement-breakpoint
CREATE INDEX `messages_account_number_date_idx` ON `messages` (`account_id`,`number`,`date_sent`,`id`);--> statement-breakpoint
CREATE INDEX `messages_account_group_date_idx` ON `messages` (`account_id`,`group_id`,`date_sent`,`id`);--> statement-breakpoint
CREATE INDEX `messages_account_status_date_idx` ON `messages` (`account_id`,`status`,`date_sent`,`id`);--> statement-breakpoint
CREATE TABLE `number_pins` (
	`account_id` text NOT NULL,
	`end_user_number` text NOT NULL,
	`line_number` text NOT NULL,
	`created_at` integer NOT NULL,
	PRIMARY KEY(`account_id`, `end_user_number`),
	FOREIGN KEY (`account_id`) REFERENCES `accounts`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`line_number`) REFERENCES `service_numbers`(`number`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE TABLE `receive_webhooks` (
	`account_id` text NOT NULL,
	`url` text NOT NULL,
	`created_at` integer NOT NULL,
	PRIMARY KEY(`account_id`, `url`),
	FOREIGN KEY (`account_id`) REFERENCES `accounts`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE TABLE `service_numbers` (
	`number` text PRIMARY KEY NOT NULL,
	`account_id` text NOT NULL,
	`pinned_count` integer DEFAULT 0 NOT NULL,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`account_id`) REFERENCES `accounts`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `service_numbers_account_load_idx` ON `service_numbers` (`account_id`,`pinned_count`);--> statement-breakpoint
CREATE TABLE `status_events` (
	`id` text PRIMARY KEY NOT NULL,
	`message_handle` text NOT NULL,
	`status` text NOT NULL,
	`error_code` integer,
	`error_message` text,
	`source` text NOT NULL,
	`applied` integer NOT NULL,
	`implied` integer DEFAULT false NOT NULL,
	`not_applied_reason` text,
	`received_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `status_events_handle_idx` ON `status_events` (`message_handle`,`received_at`);