-- Dynamic registration (一型一密, docs/device-access.md): each product's ProductSecret, drawn by the database from its
-- strong random source (gen_random_uuid, PostgreSQL 13+ and PGlite alike: 122 random bits as 32 hex characters), and
-- its two switches, both off: 动态注册 (a device may fetch its DeviceSecret with the ProductSecret) and 免预注册 (a
-- device not yet on the platform may be created by it).
ALTER TABLE "products" ADD COLUMN IF NOT EXISTS "product_secret" text DEFAULT replace(gen_random_uuid()::text, '-', '') NOT NULL;
--> statement-breakpoint
ALTER TABLE "products" ADD COLUMN IF NOT EXISTS "dynamic_register" boolean DEFAULT false NOT NULL;
--> statement-breakpoint
ALTER TABLE "products" ADD COLUMN IF NOT EXISTS "no_pre_register" boolean DEFAULT false NOT NULL;
--> statement-breakpoint
-- When dynamic registration handed the device its DeviceSecret: a second registration is refused (6289, as Alibaba's
-- "device is already active"), as it is for a device that has ever connected.
ALTER TABLE "devices" ADD COLUMN IF NOT EXISTS "registered_at" timestamp with time zone;
--> statement-breakpoint
-- Sub-devices a gateway reported it found (thing/list/found), for the operator to add on the gateway's 子设备 tab.
CREATE TABLE IF NOT EXISTS "found_devices" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "found_devices_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"gw_id" bigint NOT NULL,
	"product_key" text NOT NULL,
	"device_name" text NOT NULL,
	"found_time" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "found_devices" ADD CONSTRAINT "found_devices_gw_id_devices_id_fk" FOREIGN KEY ("gw_id") REFERENCES "public"."devices"("id") ON DELETE cascade ON UPDATE no action;
--> statement-breakpoint
CREATE UNIQUE INDEX IF NOT EXISTS "found_devices_gw_name_uq" ON "found_devices" USING btree ("gw_id","product_key","device_name");
