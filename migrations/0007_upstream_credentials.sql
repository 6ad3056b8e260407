ALTER TABLE `accounts` ADD `upstream_key_id` text;--> statement-breakpoint
ALTER TABLE `accounts` ADD `upstream_secret` text;--> statement-breakpoint
CREATE UNIQUE INDEX `accounts_upstreamKeyId_unique` ON `accounts` (`upstream_key_id`);