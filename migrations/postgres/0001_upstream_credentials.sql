ALTER TABLE "accounts" ADD COLUMN "upstream_key_id" text;--> statement-breakpoint
ALTER TABLE "accounts" ADD COLUMN "upstream_secret" text;--> statement-breakpoint
ALTER TABLE "accounts" ADD CONSTRAINT "accounts_upstreamKeyId_unique" UNIQUE("upstream_key_id");