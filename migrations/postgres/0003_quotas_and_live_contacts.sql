CREATE INDEX "contacts_account_live_idx" ON "contacts" USING btree ("account_id","deleted_at") WHERE deleted_at is null;--> statement-breakpoint
CREATE INDEX "groups_photo_idx" ON "groups" USING btree ("photo_media_id") WHERE photo_media_id is not null;--> statement-breakpoint
CREATE INDEX "media_objects_account_bytes_idx" ON "media_objects" USING btree ("account_id","byte_length");--> statement-breakpoint
CREATE INDEX "media_objects_created_idx" ON "media_objects" USING btree ("created_at");