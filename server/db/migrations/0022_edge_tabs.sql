-- Issue 13, the edge instance detail's remaining tabs (after Alibaba Link IoT Edge): the instance's settings, the
-- platform rules it runs at the edge (场景联动), its functions (函数计算), stream-analysis jobs (流数据分析) and message
-- routes (消息路由). All are part of the deployment document.
ALTER TABLE "edge_instances" ADD COLUMN "settings" jsonb DEFAULT '{}'::jsonb NOT NULL;--> statement-breakpoint
CREATE TABLE "edge_instance_rules" (
	"instance_id" integer NOT NULL REFERENCES "edge_instances"("id") ON DELETE cascade,
	"rule_id" integer NOT NULL REFERENCES "rules"("id") ON DELETE cascade,
	CONSTRAINT "edge_instance_rules_instance_id_rule_id_pk" PRIMARY KEY("instance_id","rule_id")
);--> statement-breakpoint
CREATE INDEX "edge_instance_rules_rule_idx" ON "edge_instance_rules" USING btree ("rule_id");--> statement-breakpoint
CREATE TABLE "edge_functions" (
	"id" serial PRIMARY KEY NOT NULL,
	"instance_id" integer NOT NULL REFERENCES "edge_instances"("id") ON DELETE cascade,
	"name" text NOT NULL,
	"runtime" text NOT NULL,
	"handler" text NOT NULL,
	"code" text DEFAULT '' NOT NULL,
	"memory_mb" integer NOT NULL,
	"timeout_seconds" integer NOT NULL,
	"mode" text NOT NULL,
	"env" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"description" text,
	"create_time" timestamp with time zone DEFAULT now() NOT NULL
);--> statement-breakpoint
CREATE UNIQUE INDEX "edge_functions_instance_name_uq" ON "edge_functions" USING btree ("instance_id","name");--> statement-breakpoint
CREATE TABLE "edge_streams" (
	"id" serial PRIMARY KEY NOT NULL,
	"instance_id" integer NOT NULL REFERENCES "edge_instances"("id") ON DELETE cascade,
	"name" text NOT NULL,
	"source_topic" text NOT NULL,
	"window_type" text NOT NULL,
	"window_seconds" integer NOT NULL,
	"statement" text NOT NULL,
	"target_type" text NOT NULL,
	"target_name" text,
	"description" text,
	"create_time" timestamp with time zone DEFAULT now() NOT NULL
);--> statement-breakpoint
CREATE UNIQUE INDEX "edge_streams_instance_name_uq" ON "edge_streams" USING btree ("instance_id","name");--> statement-breakpoint
CREATE TABLE "edge_routes" (
	"id" serial PRIMARY KEY NOT NULL,
	"instance_id" integer NOT NULL REFERENCES "edge_instances"("id") ON DELETE cascade,
	"source_type" text NOT NULL,
	"source_name" text,
	"topic_filter" text NOT NULL,
	"target_type" text NOT NULL,
	"target_name" text,
	"qos" smallint NOT NULL,
	"create_time" timestamp with time zone DEFAULT now() NOT NULL
);--> statement-breakpoint
CREATE INDEX "edge_routes_instance_idx" ON "edge_routes" USING btree ("instance_id");
