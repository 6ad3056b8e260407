CREATE TABLE `account_event_counters` (
	`account_id` text PRIMARY KEY NOT NULL,
	`last_seq` integer NOT NULL,
	FOREIGN KEY (`account_id`) REFERENCES `accounts`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
DROP INDEX `account_events_account_idx`;--> statement-breakpoint
-- Events logged before keep their global id as their number, and every account goes on after the
-- highest id ever given: a Last-Event-ID a client kept still stands where it stood.
ALTER TABLE `account_events` ADD `seq` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
UPDATE `account_events` SET `seq` = `id`;--> statement-breakpoint
INSERT INTO `account_event_counters` (`account_id`, `last_seq`)
  SELECT `id`, coalesce((SELECT `seq` FROM `sqlite_sequence` WHERE `name` = 'account_events'), 0) FROM `accounts`;--> statement-breakpoint
CREATE UNIQUE INDEX `account_events_account_seq_uq` ON `account_events` (`account_id`,`seq`);--> statement-breakpoint
DROP INDEX `groups_account_members_uq`;--> statement-breakpoint
CREATE UNIQUE INDEX `groups_account_members_line_uq` ON `groups` (`account_id`,`member_key`,`line_number`);--> statement-breakpoint
ALTER TABLE `status_events` ADD `repeats` integer DEFAULT 0 NOT NULL;