DROP INDEX `messages_account_date_idx`;--> statement-breakpoint
CREATE INDEX `messages_account_date_idx` ON `messages` (`account_id`,`date_sent`,`id`,`is_outbound`);