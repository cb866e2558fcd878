-- Device shadow (设备影子, docs/device-access.md "设备影子"): one JSON document per device, Alibaba's layout: the state
-- the device reported, the state the console or API desires, each key's update time (metadata) and the document's
-- version. Deleted with its device.
CREATE TABLE IF NOT EXISTS "device_shadows" (
	"device_id" bigint PRIMARY KEY NOT NULL,
	"reported" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"desired" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"metadata" jsonb DEFAULT '{"reported":{},"desired":{}}'::jsonb NOT NULL,
	"version" bigint DEFAULT 0 NOT NULL,
	"update_time" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "device_shadows" ADD CONSTRAINT "device_shadows_device_id_devices_id_fk" FOREIGN KEY ("device_id") REFERENCES "public"."devices"("id") ON DELETE cascade ON UPDATE no action;
