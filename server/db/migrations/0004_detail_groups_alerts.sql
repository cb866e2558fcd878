CREATE TABLE "alert_events" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "alert_events_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"type" smallint NOT NULL,
	"status" smallint DEFAULT 0 NOT NULL,
	"project_id" integer,
	"device_id" bigint,
	"device_name" text NOT NULL,
	"product_key" text,
	"params" text,
	"ts" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "alert_events_type_check" CHECK (type BETWEEN 1 AND 3)
);
--> statement-breakpoint
CREATE TABLE "apps" (
	"id" serial PRIMARY KEY NOT NULL,
	"name" text NOT NULL,
	"company" text,
	"active_status" smallint DEFAULT 0 NOT NULL,
	"use_status" smallint DEFAULT 0 NOT NULL,
	"recent_time" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "device_files" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "device_files_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"device_id" bigint NOT NULL,
	"file_name" text NOT NULL,
	"stored_name" text NOT NULL,
	"size" bigint NOT NULL,
	"content_type" text,
	"create_time" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "device_files_stored_name_unique" UNIQUE("stored_name")
);
--> statement-breakpoint
CREATE TABLE "device_groups" (
	"id" serial PRIMARY KEY NOT NULL,
	"name" text NOT NULL,
	"parent_id" integer,
	"level" smallint NOT NULL,
	"project_code" text NOT NULL,
	"remark" text,
	"create_time" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "device_groups_level_check" CHECK (level BETWEEN 1 AND 3)
);
--> statement-breakpoint
CREATE TABLE "device_messages" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "device_messages_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"device_id" bigint NOT NULL,
	"ts" timestamp with time zone NOT NULL,
	"method" text NOT NULL,
	"identifier" text,
	"data" jsonb NOT NULL
);
--> statement-breakpoint
CREATE TABLE "device_properties" (
	"device_id" bigint NOT NULL,
	"identifier" text NOT NULL,
	"value" jsonb,
	"desired" jsonb,
	"ts" timestamp with time zone NOT NULL,
	CONSTRAINT "device_properties_device_id_identifier_pk" PRIMARY KEY("device_id","identifier")
);
--> statement-breakpoint
CREATE TABLE "group_devices" (
	"group_id" integer NOT NULL,
	"device_id" bigint NOT NULL,
	"create_time" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "group_devices_group_id_device_id_pk" PRIMARY KEY("group_id","device_id")
);
--> statement-breakpoint
CREATE TABLE "project_users" (
	"id" serial PRIMARY KEY NOT NULL,
	"project_id" integer NOT NULL,
	"user_id" integer NOT NULL,
	"create_time" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "property_records" (
	"device_id" bigint NOT NULL,
	"identifier" text NOT NULL,
	"ts" timestamp with time zone NOT NULL,
	"value" jsonb,
	CONSTRAINT "property_records_device_id_identifier_ts_pk" PRIMARY KEY("device_id","identifier","ts")
);
--> statement-breakpoint
CREATE TABLE "tags" (
	"id" serial PRIMARY KEY NOT NULL,
	"type" smallint NOT NULL,
	"object_id" bigint NOT NULL,
	"key" text NOT NULL,
	"value" text NOT NULL,
	"create_time" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "alert_events" ADD CONSTRAINT "alert_events_project_id_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "public"."projects"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "alert_events" ADD CONSTRAINT "alert_events_device_id_devices_id_fk" FOREIGN KEY ("device_id") REFERENCES "public"."devices"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "device_files" ADD CONSTRAINT "device_files_device_id_devices_id_fk" FOREIGN KEY ("device_id") REFERENCES "public"."devices"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "device_groups" ADD CONSTRAINT "device_groups_parent_id_device_groups_id_fk" FOREIGN KEY ("parent_id") REFERENCES "public"."device_groups"("id") ON DELETE restrict ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "device_groups" ADD CONSTRAINT "device_groups_project_code_projects_code_fk" FOREIGN KEY ("project_code") REFERENCES "public"."projects"("code") ON DELETE cascade ON UPDATE cascade;--> statement-breakpoint
ALTER TABLE "device_messages" ADD CONSTRAINT "device_messages_device_id_devices_id_fk" FOREIGN KEY ("device_id") REFERENCES "public"."devices"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "device_properties" ADD CONSTRAINT "device_properties_device_id_devices_id_fk" FOREIGN KEY ("device_id") REFERENCES "public"."devices"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "group_devices" ADD CONSTRAINT "group_devices_group_id_device_groups_id_fk" FOREIGN KEY ("group_id") REFERENCES "public"."device_groups"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "group_devices" ADD CONSTRAINT "group_devices_device_id_devices_id_fk" FOREIGN KEY ("device_id") REFERENCES "public"."devices"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "project_users" ADD CONSTRAINT "project_users_project_id_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "public"."projects"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "project_users" ADD CONSTRAINT "project_users_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "property_records" ADD CONSTRAINT "property_records_device_id_devices_id_fk" FOREIGN KEY ("device_id") REFERENCES "public"."devices"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "alert_events_ts_idx" ON "alert_events" USING btree ("ts" DESC NULLS FIRST,"id" DESC NULLS FIRST);--> statement-breakpoint
CREATE INDEX "alert_events_project_ts_idx" ON "alert_events" USING btree ("project_id","ts" DESC NULLS FIRST,"id" DESC NULLS FIRST);--> statement-breakpoint
CREATE INDEX "alert_events_pending_idx" ON "alert_events" USING btree ("type","project_id") WHERE status = 0;--> statement-breakpoint
CREATE INDEX "device_files_device_idx" ON "device_files" USING btree ("device_id","id" DESC NULLS FIRST);--> statement-breakpoint
CREATE INDEX "device_groups_parent_idx" ON "device_groups" USING btree ("parent_id");--> statement-breakpoint
CREATE INDEX "device_groups_create_time_idx" ON "device_groups" USING btree ("create_time" DESC NULLS FIRST,"id" DESC NULLS FIRST);--> statement-breakpoint
CREATE INDEX "device_messages_device_ts_idx" ON "device_messages" USING btree ("device_id","ts" DESC NULLS FIRST,"id" DESC NULLS FIRST);--> statement-breakpoint
CREATE INDEX "group_devices_device_idx" ON "group_devices" USING btree ("device_id");--> statement-breakpoint
CREATE UNIQUE INDEX "project_users_project_user_uq" ON "project_users" USING btree ("project_id","user_id");--> statement-breakpoint
CREATE UNIQUE INDEX "tags_object_key_uq" ON "tags" USING btree ("type","object_id","key");