CREATE TABLE "account_event_counters" (
	"account_id" text PRIMARY KEY NOT NULL,
	"last_seq" bigint NOT NULL
);
--> statement-breakpoint
DROP INDEX "account_events_account_idx";--> statement-breakpoint
DROP INDEX "groups_account_members_uq";--> statement-breakpoint
-- Events logged before keep their global id as their number, and every account goes on after the
-- highest id ever given: a Last-Event-ID a client kept still stands where it stood.
ALTER TABLE "account_events" ADD COLUMN "seq" bigint;--> statement-breakpoint
UPDATE "account_events" SET "seq" = "id";--> statement-breakpoint
ALTER TABLE "account_events" ALTER COLUMN "seq" SET NOT NULL;--> statement-breakpoint
INSERT INTO "account_event_counters" ("account_id", "last_seq")
  SELECT "id", (SELECT CASE WHEN "is_called" THEN "last_value" ELSE 0 END FROM "account_events_id_seq") FROM "accounts";--> statement-breakpoint
ALTER TABLE "status_events" ADD COLUMN "repeats" bigint DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "account_event_counters" ADD CONSTRAINT "account_event_counters_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "account_events_account_seq_uq" ON "account_events" USING btree ("account_id","seq");--> statement-breakpoint
CREATE UNIQUE INDEX "groups_account_members_line_uq" ON "groups" USING btree ("account_id","member_key","line_number");--> statement-breakpoint
ALTER TABLE "account_events" DROP COLUMN "written_by";