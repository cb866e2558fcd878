-- Issue 27, OTA firmware upgrades (docs/ota.md): firmware packages, verification and upgrade batches, each device's
-- task in a batch, the versions devices inform per module, and the key that signs download URLs.
CREATE TABLE "ota_packages" (
	"id" serial PRIMARY KEY NOT NULL,
	"name" text NOT NULL,
	"product_id" integer NOT NULL REFERENCES "products"("id") ON DELETE cascade,
	"module" text DEFAULT 'default' NOT NULL,
	"version" text NOT NULL,
	"source_versions" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"sign_method" text NOT NULL,
	"file_name" text NOT NULL,
	"stored_name" text NOT NULL,
	"size" bigint NOT NULL,
	"md5" text NOT NULL,
	"sha256" text NOT NULL,
	"description" text,
	"verified" boolean DEFAULT false NOT NULL,
	"create_time" timestamp with time zone DEFAULT now() NOT NULL
);--> statement-breakpoint
CREATE UNIQUE INDEX "ota_packages_product_module_version_uq" ON "ota_packages" USING btree ("product_id","module","version");--> statement-breakpoint
CREATE TABLE "ota_batches" (
	"id" serial PRIMARY KEY NOT NULL,
	"package_id" integer NOT NULL REFERENCES "ota_packages"("id") ON DELETE cascade,
	"kind" text NOT NULL,
	"scope" text NOT NULL,
	"scope_ids" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"source_versions" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"dynamic" boolean DEFAULT false NOT NULL,
	"start_time" timestamp with time zone,
	"end_time" timestamp with time zone,
	"rate_per_minute" integer,
	"timeout_minutes" integer NOT NULL,
	"retries" integer DEFAULT 0 NOT NULL,
	"status" text DEFAULT 'running' NOT NULL,
	"create_time" timestamp with time zone DEFAULT now() NOT NULL
);--> statement-breakpoint
CREATE INDEX "ota_batches_package_idx" ON "ota_batches" USING btree ("package_id");--> statement-breakpoint
CREATE INDEX "ota_batches_status_idx" ON "ota_batches" USING btree ("status");--> statement-breakpoint
CREATE TABLE "ota_tasks" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY NOT NULL,
	"batch_id" integer NOT NULL REFERENCES "ota_batches"("id") ON DELETE cascade,
	"device_id" bigint NOT NULL REFERENCES "devices"("id") ON DELETE cascade,
	"state" text DEFAULT 'pending' NOT NULL,
	"step" integer,
	"reason" text,
	"attempts" integer DEFAULT 0 NOT NULL,
	"from_version" text,
	"pushed_at" timestamp with time zone,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "ota_tasks_state_check" CHECK (state IN ('pending', 'pushed', 'upgrading', 'succeeded', 'failed', 'cancelled'))
);--> statement-breakpoint
CREATE UNIQUE INDEX "ota_tasks_batch_device_uq" ON "ota_tasks" USING btree ("batch_id","device_id");--> statement-breakpoint
CREATE INDEX "ota_tasks_batch_state_idx" ON "ota_tasks" USING btree ("batch_id","state","id");--> statement-breakpoint
CREATE INDEX "ota_tasks_device_idx" ON "ota_tasks" USING btree ("device_id","state");--> statement-breakpoint
CREATE TABLE "ota_modules" (
	"device_id" bigint NOT NULL REFERENCES "devices"("id") ON DELETE cascade,
	"module" text NOT NULL,
	"version" text NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "ota_modules_device_id_module_pk" PRIMARY KEY("device_id","module")
);--> statement-breakpoint
CREATE TABLE "ota_secret" (
	"id" smallint PRIMARY KEY NOT NULL,
	"secret" text NOT NULL
);
