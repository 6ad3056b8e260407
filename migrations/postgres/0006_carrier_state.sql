CREATE TABLE "carrier_state" (
	"carrier" text NOT NULL,
	"key" text NOT NULL,
	"value" text NOT NULL,
	"updated_at" bigint NOT NULL,
	CONSTRAINT "carrier_state_carrier_key_pk" PRIMARY KEY("carrier","key")
);
