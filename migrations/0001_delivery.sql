CREATE TABLE `orphan_status_events` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`transport_handle` text NOT NULL,
	`status` text NOT NULL,
	`error_code` integer,
	`error_message` text,
	`was_downgraded` integer,
	`source` text NOT NULL,
	`source_event_id` text,
	`received_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `orphan_status_events_handle_idx` ON `orphan_status_events` (`transport_handle`,`id`);--> statement-breakpoint
CREATE UNIQUE INDEX `orphan_status_events_source_event_uq` ON `orphan_status_events` (`source`,`source_event_id`) WHERE source_event_id is not null;--> statement-breakpoint
CREATE TABLE `sandbox_steps` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`message_handle` text NOT NULL,
	`step_index` integer NOT NULL,
	`kind` text NOT NULL,
	`status` text,
	`error_code` integer,
	`error_message` text,
	`was_downgraded` integer,
	`inbound_from` text,
	`inbound_content` text,
	`group_id` text,
	`due_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `sandbox_steps_message_step_uq` ON `sandbox_steps` (`message_handle`,`step_index`);--> statement-breakpoint
CREATE INDEX `sandbox_steps_due_idx` ON `sandbox_steps` (`due_at`,`id`);--> statement-breakpoint
CREATE TABLE `webhook_attempts` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`delivery_seq` integer NOT NULL,
	`attempted_at` integer NOT NULL,
	`duration_ms` integer NOT NULL,
	`status_code` integer,
	`response_excerpt` text DEFAULT '' NOT NULL,
	`error` text,
	FOREIGN KEY (`delivery_seq`) REFERENCES `webhook_deliveries`(`seq`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `webhook_attempts_delivery_idx` ON `webhook_attempts` (`delivery_seq`,`id`);--> statement-breakpoint
CREATE TABLE `webhook_deliveries` (
	`seq` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`webhook_id` text NOT NULL,
	`account_id` text NOT NULL,
	`message_handle` text NOT NULL,
	`event_type` text NOT NULL,
	`url` text NOT NULL,
	`payload` text NOT NULL,
	`state` text NOT NULL,
	`attempt_count` integer DEFAULT 0 NOT NULL,
	`next_attempt_at` integer NOT NULL,
	`lease_expires_at` integer,
	`last_status_code` integer,
	`last_error` text,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	`completed_at` integer,
	FOREIGN KEY (`account_id`) REFERENCES `accounts`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `webhook_deliveries_webhookId_unique` ON `webhook_deliveries` (`webhook_id`);--> statement-breakpoint
CREATE INDEX `webhook_deliveries_due_idx` ON `webhook_deliveries` (`state`,`next_attempt_at`);--> statement-breakpoint
CREATE INDEX `webhook_deliveries_order_idx` ON `webhook_deliveries` (`message_handle`,`url`,`seq`);--> statement-breakpoint
CREATE INDEX `webhook_deliveries_account_idx` ON `webhook_deliveries` (`account_id`,`state`,`seq`);--> statement-breakpoint
CREATE INDEX `webhook_deliveries_account_seq_idx` ON `webhook_deliveries` (`account_id`,`seq`);--> statement-breakpoint
CREATE INDEX `webhook_deliveries_failed_idx` ON `webhook_deliveries` (`completed_at`) WHERE state = 'failed';--> statement-breakpoint
ALTER TABLE `accounts` ADD `webhook_secret` text;--> statement-breakpoint
ALTER TABLE `accounts` ADD `previous_webhook_secret` text;--> statement-breakpoint
ALTER TABLE `accounts` ADD `previous_webhook_secret_expires_at` integer;--> statement-breakpoint
ALTER TABLE `groups` ADD `transport_group_id` text;--> statement-breakpoint
CREATE UNIQUE INDEX `groups_transport_group_uq` ON `groups` (`transport_group_id`) WHERE transport_group_id is not null;--> statement-breakpoint
ALTER TABLE `messages` ADD `transport_handle` text;--> statement-breakpoint
ALTER TABLE `messages` ADD `handed_over_at` integer;--> statement-breakpoint
CREATE UNIQUE INDEX `messages_transport_handle_uq` ON `messages` (`transport_handle`) WHERE transport_handle is not null;--> statement-breakpoint
CREATE INDEX `messages_awaiting_handover_idx` ON `messages` (`id`) WHERE handed_over_at is null and is_outbound = 1 and status = 'QUEUED';--> statement-breakpoint
ALTER TABLE `status_events` ADD `source_event_id` text;--> statement-breakpoint
CREATE UNIQUE INDEX `status_events_applied_uq` ON `status_events` (`message_handle`,`status`) WHERE applied = 1;--> statement-breakpoint
CREATE UNIQUE INDEX `status_events_source_event_uq` ON `status_events` (`source`,`source_event_id`) WHERE source_event_id is not null;--> statement-breakpoint
CREATE INDEX `number_pins_end_user_idx` ON `number_pins` (`end_user_number`,`created_at`);