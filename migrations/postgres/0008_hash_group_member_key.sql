DROP INDEX "groups_account_members_line_uq";--> statement-breakpoint
CREATE UNIQUE INDEX "groups_account_members_line_uq" ON "groups" USING btree ("account_id",md5(member_key),"line_number");