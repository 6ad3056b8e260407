CREATE TABLE "account_events" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"account_id" text NOT NULL,
	"type" text NOT NULL,
	"data" text NOT NULL,
	"occurred_at" bigint NOT NULL,
	"written_by" bigint DEFAULT (pg_current_xact_id()::text)::bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "accounts" (
	"id" text PRIMARY KEY NOT NULL,
	"email" text NOT NULL,
	"plan" text NOT NULL,
	"api_key_id" text NOT NULL,
	"api_secret_hash" text NOT NULL,
	"webhook_secret" text,
	"previous_webhook_secret" text,
	"previous_webhook_secret_expires_at" bigint,
	"webhook_global_secret" text,
	"created_at" bigint NOT NULL,
	CONSTRAINT "accounts_email_unique" UNIQUE("email"),
	CONSTRAINT "accounts_apiKeyId_unique" UNIQUE("api_key_id")
);
--> statement-breakpoint
CREATE TABLE "contacts" (
	"id" text collate "C" PRIMARY KEY NOT NULL,
	"account_id" text NOT NULL,
	"phone" text collate "C" NOT NULL,
	"first_name" text collate "C" NOT NULL,
	"last_name" text collate "C" NOT NULL,
	"company_name" text DEFAULT '' NOT NULL,
	"assigned_to_email" text DEFAULT '' NOT NULL,
	"tags" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"custom_variables" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"opted_out" boolean DEFAULT false NOT NULL,
	"deleted_at" bigint,
	"last_message_at" bigint,
	"preview_text" text DEFAULT '' NOT NULL,
	"last_inbound_at" bigint,
	"last_outbound_at" bigint,
	"created_at" bigint NOT NULL,
	"updated_at" bigint DEFAULT 0 NOT NULL
);
--> statement-breakpoint
CREATE TABLE "group_members" (
	"group_id" text NOT NULL,
	"number" text NOT NULL,
	"added_at" bigint NOT NULL,
	CONSTRAINT "group_members_group_id_number_pk" PRIMARY KEY("group_id","number")
);
--> statement-breakpoint
CREATE TABLE "groups" (
	"id" text PRIMARY KEY NOT NULL,
	"account_id" text NOT NULL,
	"member_key" text NOT NULL,
	"line_number" text NOT NULL,
	"display_name" text DEFAULT '' NOT NULL,
	"transport_group_id" text,
	"photo_media_id" text,
	"created_at" bigint NOT NULL,
	"updated_at" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "idempotency_keys" (
	"account_id" text NOT NULL,
	"key" text NOT NULL,
	"request_hash" text NOT NULL,
	"response_status" bigint NOT NULL,
	"response_body" text NOT NULL,
	"created_at" bigint NOT NULL,
	CONSTRAINT "idempotency_keys_account_id_key_pk" PRIMARY KEY("account_id","key")
);
--> statement-breakpoint
CREATE TABLE "inbox_reads" (
	"account_id" text NOT NULL,
	"conversation_kind" text NOT NULL,
	"conversation_id" text NOT NULL,
	"read_through_at" bigint NOT NULL,
	"read_through_id" bigint NOT NULL,
	CONSTRAINT "inbox_reads_account_id_conversation_kind_conversation_id_pk" PRIMARY KEY("account_id","conversation_kind","conversation_id")
);
--> statement-breakpoint
CREATE TABLE "inbox_sessions" (
	"token_hash" text PRIMARY KEY NOT NULL,
	"account_id" text NOT NULL,
	"api_secret_hash" text NOT NULL,
	"created_at" bigint NOT NULL,
	"expires_at" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "media_objects" (
	"id" text PRIMARY KEY NOT NULL,
	"account_id" text NOT NULL,
	"source_url" text NOT NULL,
	"content_type" text NOT NULL,
	"bytes" "bytea",
	"byte_length" bigint NOT NULL,
	"remote_url" text,
	"created_at" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "messages" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"handle" text NOT NULL,
	"account_id" text NOT NULL,
	"is_outbound" boolean NOT NULL,
	"message_type" text NOT NULL,
	"status" text NOT NULL,
	"error_code" bigint,
	"error_message" text,
	"error_detail" text,
	"content" text DEFAULT '' NOT NULL,
	"media_url" text DEFAULT '' NOT NULL,
	"send_style" text DEFAULT '' NOT NULL,
	"status_callback" text,
	"line_number" text NOT NULL,
	"number" text NOT NULL,
	"recipients" jsonb,
	"contact_id" text,
	"group_id" text,
	"was_downgraded" boolean,
	"reply_to_handle" text,
	"reply_to_part_index" bigint,
	"seat_id" text,
	"opted_out" boolean DEFAULT false NOT NULL,
	"transport_handle" text,
	"handed_over_at" bigint,
	"date_sent" bigint NOT NULL,
	"date_updated" bigint NOT NULL,
	CONSTRAINT "messages_handle_unique" UNIQUE("handle")
);
--> statement-breakpoint
CREATE TABLE "number_pins" (
	"account_id" text NOT NULL,
	"end_user_number" text NOT NULL,
	"line_number" text NOT NULL,
	"created_at" bigint NOT NULL,
	CONSTRAINT "number_pins_account_id_end_user_number_pk" PRIMARY KEY("account_id","end_user_number")
);
--> statement-breakpoint
CREATE TABLE "orphan_status_events" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"transport_handle" text NOT NULL,
	"status" text NOT NULL,
	"error_code" bigint,
	"error_message" text,
	"was_downgraded" boolean,
	"source" text NOT NULL,
	"source_event_id" text,
	"received_at" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "rate_limit_buckets" (
	"key" text PRIMARY KEY NOT NULL,
	"tokens" double precision NOT NULL,
	"updated_at" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "sandbox_steps" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"message_handle" text NOT NULL,
	"step_index" bigint NOT NULL,
	"kind" text NOT NULL,
	"status" text,
	"error_code" bigint,
	"error_message" text,
	"was_downgraded" boolean,
	"inbound_from" text,
	"inbound_content" text,
	"group_id" text,
	"due_at" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "service_numbers" (
	"number" text PRIMARY KEY NOT NULL,
	"account_id" text NOT NULL,
	"pinned_count" bigint DEFAULT 0 NOT NULL,
	"created_at" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "sign_in_failures" (
	"key" text PRIMARY KEY NOT NULL,
	"failures" integer NOT NULL,
	"started_at" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "status_events" (
	"id" text PRIMARY KEY NOT NULL,
	"message_handle" text NOT NULL,
	"status" text NOT NULL,
	"error_code" bigint,
	"error_message" text,
	"source" text NOT NULL,
	"source_event_id" text,
	"applied" boolean NOT NULL,
	"implied" boolean DEFAULT false NOT NULL,
	"not_applied_reason" text,
	"received_at" bigint NOT NULL,
	"seq" bigserial NOT NULL,
	"written_by" bigint DEFAULT (pg_current_xact_id()::text)::bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "unrouted_inbound" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"transport_handle" text,
	"from_number" text NOT NULL,
	"to_number" text NOT NULL,
	"content" text DEFAULT '' NOT NULL,
	"media_url" text DEFAULT '' NOT NULL,
	"service" text NOT NULL,
	"transport_group_id" text,
	"participants" jsonb,
	"source" text NOT NULL,
	"received_at" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "webhook_attempts" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"delivery_seq" bigint NOT NULL,
	"attempted_at" bigint NOT NULL,
	"duration_ms" bigint NOT NULL,
	"status_code" bigint,
	"response_excerpt" text DEFAULT '' NOT NULL,
	"error" text
);
--> statement-breakpoint
CREATE TABLE "webhook_deliveries" (
	"seq" bigserial PRIMARY KEY NOT NULL,
	"webhook_id" text NOT NULL,
	"account_id" text NOT NULL,
	"message_handle" text NOT NULL,
	"event_type" text NOT NULL,
	"url" text NOT NULL,
	"payload" text NOT NULL,
	"state" text NOT NULL,
	"attempt_count" bigint DEFAULT 0 NOT NULL,
	"next_attempt_at" bigint NOT NULL,
	"lease_expires_at" bigint,
	"last_status_code" bigint,
	"last_error" text,
	"created_at" bigint NOT NULL,
	"updated_at" bigint NOT NULL,
	"completed_at" bigint,
	"signing_secret" text,
	CONSTRAINT "webhook_deliveries_webhookId_unique" UNIQUE("webhook_id")
);
--> statement-breakpoint
CREATE TABLE "webhook_subscriptions" (
	"account_id" text NOT NULL,
	"type" text NOT NULL,
	"url" text NOT NULL,
	"secret" text,
	"sendblue_numbers" jsonb,
	"given_as_object" boolean DEFAULT false NOT NULL,
	"created_at" bigint NOT NULL,
	CONSTRAINT "webhook_subscriptions_account_id_type_url_pk" PRIMARY KEY("account_id","type","url")
);
--> statement-breakpoint
ALTER TABLE "account_events" ADD CONSTRAINT "account_events_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "contacts" ADD CONSTRAINT "contacts_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "group_members" ADD CONSTRAINT "group_members_group_id_groups_id_fk" FOREIGN KEY ("group_id") REFERENCES "public"."groups"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "groups" ADD CONSTRAINT "groups_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "groups" ADD CONSTRAINT "groups_line_number_service_numbers_number_fk" FOREIGN KEY ("line_number") REFERENCES "public"."service_numbers"("number") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "idempotency_keys" ADD CONSTRAINT "idempotency_keys_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "inbox_reads" ADD CONSTRAINT "inbox_reads_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "inbox_sessions" ADD CONSTRAINT "inbox_sessions_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "media_objects" ADD CONSTRAINT "media_objects_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "messages" ADD CONSTRAINT "messages_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "messages" ADD CONSTRAINT "messages_contact_id_contacts_id_fk" FOREIGN KEY ("contact_id") REFERENCES "public"."contacts"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "messages" ADD CONSTRAINT "messages_group_id_groups_id_fk" FOREIGN KEY ("group_id") REFERENCES "public"."groups"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "number_pins" ADD CONSTRAINT "number_pins_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "number_pins" ADD CONSTRAINT "number_pins_line_number_service_numbers_number_fk" FOREIGN KEY ("line_number") REFERENCES "public"."service_numbers"("number") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "service_numbers" ADD CONSTRAINT "service_numbers_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "webhook_attempts" ADD CONSTRAINT "webhook_attempts_delivery_seq_webhook_deliveries_seq_fk" FOREIGN KEY ("delivery_seq") REFERENCES "public"."webhook_deliveries"("seq") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "webhook_deliveries" ADD CONSTRAINT "webhook_deliveries_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "webhook_subscriptions" ADD CONSTRAINT "webhook_subscriptions_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "account_events_account_idx" ON "account_events" USING btree ("account_id","written_by","id");--> statement-breakpoint
CREATE UNIQUE INDEX "contacts_account_phone_uq" ON "contacts" USING btree ("account_id","phone");--> statement-breakpoint
CREATE INDEX "contacts_account_last_date_idx" ON "contacts" USING btree ("account_id","last_message_at" NULLS FIRST,"id");--> statement-breakpoint
CREATE INDEX "contacts_account_first_name_idx" ON "contacts" USING btree ("account_id","first_name","id");--> statement-breakpoint
CREATE INDEX "contacts_account_last_name_idx" ON "contacts" USING btree ("account_id","last_name","id");--> statement-breakpoint
CREATE INDEX "contacts_account_created_idx" ON "contacts" USING btree ("account_id","created_at","id");--> statement-breakpoint
CREATE INDEX "contacts_account_updated_idx" ON "contacts" USING btree ("account_id","updated_at","id");--> statement-breakpoint
CREATE INDEX "group_members_number_idx" ON "group_members" USING btree ("number","group_id");--> statement-breakpoint
CREATE UNIQUE INDEX "groups_account_members_uq" ON "groups" USING btree ("account_id","member_key");--> statement-breakpoint
CREATE UNIQUE INDEX "groups_account_transport_group_uq" ON "groups" USING btree ("account_id","transport_group_id") WHERE transport_group_id is not null;--> statement-breakpoint
CREATE INDEX "groups_line_idx" ON "groups" USING btree ("line_number");--> statement-breakpoint
CREATE INDEX "idempotency_keys_created_idx" ON "idempotency_keys" USING btree ("created_at");--> statement-breakpoint
CREATE INDEX "inbox_sessions_account_idx" ON "inbox_sessions" USING btree ("account_id","expires_at");--> statement-breakpoint
CREATE INDEX "inbox_sessions_expires_idx" ON "inbox_sessions" USING btree ("expires_at");--> statement-breakpoint
CREATE INDEX "media_objects_account_idx" ON "media_objects" USING btree ("account_id","created_at");--> statement-breakpoint
CREATE UNIQUE INDEX "messages_transport_handle_uq" ON "messages" USING btree ("transport_handle") WHERE transport_handle is not null;--> statement-breakpoint
CREATE INDEX "messages_awaiting_handover_idx" ON "messages" USING btree ("id") WHERE handed_over_at is null and is_outbound and status = 'QUEUED';--> statement-breakpoint
CREATE INDEX "messages_account_date_idx" ON "messages" USING btree ("account_id","date_sent","id","is_outbound");--> statement-breakpoint
CREATE INDEX "messages_account_contact_date_idx" ON "messages" USING btree ("account_id","contact_id","date_sent","id");--> statement-breakpoint
CREATE INDEX "messages_account_number_date_idx" ON "messages" USING btree ("account_id","number","date_sent","id");--> statement-breakpoint
CREATE INDEX "messages_account_group_date_idx" ON "messages" USING btree ("account_id","group_id","date_sent","id");--> statement-breakpoint
CREATE INDEX "messages_account_status_date_idx" ON "messages" USING btree ("account_id","status","date_sent","id");--> statement-breakpoint
CREATE INDEX "number_pins_line_idx" ON "number_pins" USING btree ("line_number");--> statement-breakpoint
CREATE INDEX "orphan_status_events_handle_idx" ON "orphan_status_events" USING btree ("transport_handle","id");--> statement-breakpoint
CREATE UNIQUE INDEX "orphan_status_events_source_event_uq" ON "orphan_status_events" USING btree ("source","source_event_id") WHERE source_event_id is not null;--> statement-breakpoint
CREATE UNIQUE INDEX "sandbox_steps_message_step_uq" ON "sandbox_steps" USING btree ("message_handle","step_index");--> statement-breakpoint
CREATE INDEX "sandbox_steps_due_idx" ON "sandbox_steps" USING btree ("due_at","id");--> statement-breakpoint
CREATE INDEX "service_numbers_account_load_idx" ON "service_numbers" USING btree ("account_id","pinned_count");--> statement-breakpoint
CREATE INDEX "sign_in_failures_started_idx" ON "sign_in_failures" USING btree ("started_at");--> statement-breakpoint
CREATE INDEX "status_events_handle_idx" ON "status_events" USING btree ("message_handle","received_at","seq");--> statement-breakpoint
CREATE UNIQUE INDEX "status_events_applied_uq" ON "status_events" USING btree ("message_handle","status") WHERE applied;--> statement-breakpoint
CREATE UNIQUE INDEX "status_events_source_event_uq" ON "status_events" USING btree ("source","source_event_id") WHERE source_event_id is not null;--> statement-breakpoint
CREATE UNIQUE INDEX "status_events_seq_uq" ON "status_events" USING btree ("seq");--> statement-breakpoint
CREATE INDEX "status_events_written_idx" ON "status_events" USING btree ("written_by","seq");--> statement-breakpoint
CREATE UNIQUE INDEX "unrouted_inbound_transport_handle_uq" ON "unrouted_inbound" USING btree ("source","transport_handle") WHERE transport_handle is not null;--> statement-breakpoint
CREATE INDEX "webhook_attempts_delivery_idx" ON "webhook_attempts" USING btree ("delivery_seq","id");--> statement-breakpoint
CREATE INDEX "webhook_deliveries_due_idx" ON "webhook_deliveries" USING btree ("state","next_attempt_at");--> statement-breakpoint
CREATE INDEX "webhook_deliveries_order_idx" ON "webhook_deliveries" USING btree ("message_handle","url","seq");--> statement-breakpoint
CREATE INDEX "webhook_deliveries_account_idx" ON "webhook_deliveries" USING btree ("account_id","state","seq");--> statement-breakpoint
CREATE INDEX "webhook_deliveries_account_seq_idx" ON "webhook_deliveries" USING btree ("account_id","seq");--> statement-breakpoint
CREATE INDEX "webhook_deliveries_failed_idx" ON "webhook_deliveries" USING btree ("completed_at") WHERE state = 'failed';