-- Issue 12: rules (scene linkage and alert rules), their journal, notification channels and notification records; the
-- alert events table gains the rule that raised an alert and its lifecycle (handled with a remark, recovered, cleared).
-- One open alert per (rule, device): the partial unique index. Seeded demo alerts have no rule and stay as they were.
CREATE TABLE "notifications" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "notifications_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"channel_id" integer,
	"rule_id" integer,
	"alert_id" bigint,
	"product_key" text,
	"device_name" text,
	"app_name" text NOT NULL,
	"notify_type" text NOT NULL,
	"message_type" text NOT NULL,
	"recipient" text NOT NULL,
	"content" text NOT NULL,
	"status" text DEFAULT 'pending' NOT NULL,
	"attempts" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"ts" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "notify_channels" (
	"id" serial PRIMARY KEY NOT NULL,
	"name" text NOT NULL,
	"type" text NOT NULL,
	"config" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"create_time" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "notify_channels_type_check" CHECK (type IN ('webhook', 'dingtalk', 'wecom', 'email'))
);
--> statement-breakpoint
CREATE TABLE "rule_logs" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "rule_logs_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"rule_id" integer,
	"rule_name" text NOT NULL,
	"project_id" integer,
	"device_id" bigint,
	"device_name" text,
	"product_key" text,
	"trigger_type" text NOT NULL,
	"input" jsonb,
	"results" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"success" boolean NOT NULL,
	"ts" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "rules" (
	"id" serial PRIMARY KEY NOT NULL,
	"name" text NOT NULL,
	"type" smallint DEFAULT 1 NOT NULL,
	"project_id" integer,
	"product_id" integer NOT NULL,
	"device_id" bigint,
	"enabled" boolean DEFAULT false NOT NULL,
	"description" text,
	"triggers" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"match" text DEFAULT 'all' NOT NULL,
	"conditions" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"duration_seconds" integer DEFAULT 0 NOT NULL,
	"time_window" jsonb,
	"actions" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"auto_clear" boolean DEFAULT true NOT NULL,
	"create_time" timestamp with time zone DEFAULT now() NOT NULL,
	"update_time" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "rules_type_check" CHECK (type IN (1, 2)),
	CONSTRAINT "rules_match_check" CHECK (match IN ('all', 'any'))
);
--> statement-breakpoint
ALTER TABLE "alert_events" ADD COLUMN "rule_id" integer;--> statement-breakpoint
ALTER TABLE "alert_events" ADD COLUMN "input" jsonb;--> statement-breakpoint
ALTER TABLE "alert_events" ADD COLUMN "handle_time" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "alert_events" ADD COLUMN "remark" text;--> statement-breakpoint
ALTER TABLE "alert_events" ADD COLUMN "recover_time" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "alert_events" ADD COLUMN "clear_time" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "notifications" ADD CONSTRAINT "notifications_channel_id_notify_channels_id_fk" FOREIGN KEY ("channel_id") REFERENCES "public"."notify_channels"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "notifications" ADD CONSTRAINT "notifications_rule_id_rules_id_fk" FOREIGN KEY ("rule_id") REFERENCES "public"."rules"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "rule_logs" ADD CONSTRAINT "rule_logs_rule_id_rules_id_fk" FOREIGN KEY ("rule_id") REFERENCES "public"."rules"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "rules" ADD CONSTRAINT "rules_project_id_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "public"."projects"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "rules" ADD CONSTRAINT "rules_product_id_products_id_fk" FOREIGN KEY ("product_id") REFERENCES "public"."products"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "rules" ADD CONSTRAINT "rules_device_id_devices_id_fk" FOREIGN KEY ("device_id") REFERENCES "public"."devices"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "notifications_ts_idx" ON "notifications" USING btree ("ts" DESC NULLS LAST,"id" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "notifications_product_ts_idx" ON "notifications" USING btree ("product_key","ts" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "rule_logs_ts_idx" ON "rule_logs" USING btree ("ts" DESC NULLS LAST,"id" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "rule_logs_rule_ts_idx" ON "rule_logs" USING btree ("rule_id","ts" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "rules_product_idx" ON "rules" USING btree ("product_id");--> statement-breakpoint
CREATE INDEX "rules_project_idx" ON "rules" USING btree ("project_id");--> statement-breakpoint
ALTER TABLE "alert_events" ADD CONSTRAINT "alert_events_rule_id_rules_id_fk" FOREIGN KEY ("rule_id") REFERENCES "public"."rules"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "alert_events_open_uq" ON "alert_events" USING btree ("rule_id","device_id") WHERE clear_time IS NULL AND rule_id IS NOT NULL AND device_id IS NOT NULL;