DROP INDEX `webhook_deliveries_due_idx`;--> statement-breakpoint
CREATE INDEX `webhook_deliveries_lease_idx` ON `webhook_deliveries` (`lease_expires_at`) WHERE state = 'delivering';--> statement-breakpoint
CREATE INDEX `webhook_deliveries_due_idx` ON `webhook_deliveries` (`next_attempt_at`,`seq`,`account_id`) WHERE state = 'pending';--> statement-breakpoint
PRAGMA foreign_keys=OFF;--> statement-breakpoint
CREATE TABLE `__new_webhook_attempts` (
	`id` integer PRIMARY KEY NOT NULL,
	`delivery_seq` integer NOT NULL,
	`attempted_at` integer NOT NULL,
	`duration_ms` integer NOT NULL,
	`status_code` integer,
	`response_excerpt` text DEFAULT '' NOT NULL,
	`error` text,
	FOREIGN KEY (`delivery_seq`) REFERENCES `webhook_deliveries`(`seq`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
INSERT INTO `__new_webhook_attempts`("id", "delivery_seq", "attempted_at", "duration_ms", "status_code", "response_excerpt", "error") SELECT "id", "delivery_seq", "attempted_at", "duration_ms", "status_code", "response_excerpt", "error" FROM `webhook_attempts`;--> statement-breakpoint
DROP TABLE `webhook_attempts`;--> statement-breakpoint
ALTER TABLE `__new_webhook_attempts` RENAME TO `webhook_attempts`;--> statement-breakpoint
PRAGMA foreign_keys=ON;--> statement-breakpoint
CREATE INDEX `webhook_attempts_delivery_idx` ON `webhook_attempts` (`delivery_seq`,`id`);