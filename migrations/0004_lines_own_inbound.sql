CREATE TABLE `unrouted_inbound` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`transport_handle` text,
	`from_number` text NOT NULL,
	`to_number` text NOT NULL,
	`content` text DEFAULT '' NOT NULL,
	`media_url` text DEFAULT '' NOT NULL,
	`service` text NOT NULL,
	`transport_group_id` text,
	`participants` text,
	`source` text NOT NULL,
	`received_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `unrouted_inbound_transport_handle_uq` ON `unrouted_inbound` (`source`,`transport_handle`) WHERE transport_handle is not null;--> statement-breakpoint
DROP INDEX `groups_transport_group_uq`;--> statement-breakpoint
CREATE UNIQUE INDEX `groups_account_transport_group_uq` ON `groups` (`account_id`,`transport_group_id`) WHERE transport_group_id is not null;--> statement-breakpoint
CREATE INDEX `groups_line_idx` ON `groups` (`line_number`);--> statement-breakpoint
DROP INDEX `number_pins_end_user_idx`;--> statement-breakpoint
CREATE INDEX `number_pins_line_idx` ON `number_pins` (`line_number`);