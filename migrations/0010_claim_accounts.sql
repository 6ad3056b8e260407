DROP INDEX `webhook_deliveries_due_idx`;--> statement-breakpoint
CREATE INDEX `webhook_deliveries_due_idx` ON `webhook_deliveries` (`state`,`next_attempt_at`,`seq`,`account_id`);