-- Remote configuration (远程配置, docs/device-access.md): a product's configuration files, numbered per product (the
-- newest is current), its pushes to devices and each device's state in a push.
CREATE TABLE IF NOT EXISTS "remote_config_versions" (
	"id" serial PRIMARY KEY NOT NULL,
	"product_id" integer NOT NULL,
	"version" integer NOT NULL,
	"config_id" text NOT NULL,
	"format" text NOT NULL,
	"content" text NOT NULL,
	"size" integer NOT NULL,
	"sha256" text NOT NULL,
	"remark" text,
	"restored_from" integer,
	"create_time" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "remote_config_versions_config_id_unique" UNIQUE("config_id"),
	CONSTRAINT "remote_config_versions_format_check" CHECK (format IN ('json', 'text'))
);
--> statement-breakpoint
ALTER TABLE "remote_config_versions" ADD CONSTRAINT "remote_config_versions_product_id_products_id_fk" FOREIGN KEY ("product_id") REFERENCES "public"."products"("id") ON DELETE cascade ON UPDATE no action;
--> statement-breakpoint
CREATE UNIQUE INDEX IF NOT EXISTS "remote_config_versions_product_version_uq" ON "remote_config_versions" USING btree ("product_id","version");
--> statement-breakpoint
CREATE TABLE IF NOT EXISTS "remote_config_pushes" (
	"id" serial PRIMARY KEY NOT NULL,
	"product_id" integer NOT NULL,
	"version_id" integer NOT NULL,
	"scope" text NOT NULL,
	"group_id" integer,
	"group_name" text,
	"total" integer NOT NULL,
	"create_time" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "remote_config_pushes" ADD CONSTRAINT "remote_config_pushes_product_id_products_id_fk" FOREIGN KEY ("product_id") REFERENCES "public"."products"("id") ON DELETE cascade ON UPDATE no action;
--> statement-breakpoint
ALTER TABLE "remote_config_pushes" ADD CONSTRAINT "remote_config_pushes_version_id_remote_config_versions_id_fk" FOREIGN KEY ("version_id") REFERENCES "public"."remote_config_versions"("id") ON DELETE cascade ON UPDATE no action;
--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "remote_config_pushes_product_idx" ON "remote_config_pushes" USING btree ("product_id","id");
--> statement-breakpoint
CREATE TABLE IF NOT EXISTS "remote_config_push_devices" (
	"push_id" integer NOT NULL,
	"device_id" bigint NOT NULL,
	"device_name" text NOT NULL,
	"message_id" text NOT NULL,
	"state" text NOT NULL,
	"code" integer,
	"message" text,
	"replied_at" timestamp with time zone,
	CONSTRAINT "remote_config_push_devices_push_id_device_id_pk" PRIMARY KEY("push_id","device_id"),
	CONSTRAINT "remote_config_push_devices_state_check" CHECK (state IN ('pushing', 'succeeded', 'failed', 'offline'))
);
--> statement-breakpoint
ALTER TABLE "remote_config_push_devices" ADD CONSTRAINT "remote_config_push_devices_push_id_remote_config_pushes_id_fk" FOREIGN KEY ("push_id") REFERENCES "public"."remote_config_pushes"("id") ON DELETE cascade ON UPDATE no action;
--> statement-breakpoint
ALTER TABLE "remote_config_push_devices" ADD CONSTRAINT "remote_config_push_devices_device_id_devices_id_fk" FOREIGN KEY ("device_id") REFERENCES "public"."devices"("id") ON DELETE cascade ON UPDATE no action;
--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "remote_config_push_devices_reply_idx" ON "remote_config_push_devices" USING btree ("device_id","message_id");
