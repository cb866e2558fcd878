-- Data forwarding (数据流转, docs/forwarding.md): destinations (configuration, secrets encrypted), flows (a SQL
-- statement per flow), one route per (flow, destination) with its position in device_messages (the id of the last
-- message it handled: the message store is the outbox), its lease (one process sends a route at a time) and figures,
-- and the dead letters a route gave up on.
CREATE TABLE IF NOT EXISTS "forward_destinations" (
	"id" serial PRIMARY KEY NOT NULL,
	"project_id" integer NOT NULL,
	"name" text NOT NULL,
	"kind" text NOT NULL,
	"config" jsonb NOT NULL,
	"secrets" text,
	"remark" text,
	"create_time" timestamp with time zone DEFAULT now() NOT NULL,
	"update_time" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "forward_destinations" ADD CONSTRAINT "forward_destinations_project_id_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "public"."projects"("id") ON DELETE cascade ON UPDATE no action;
--> statement-breakpoint
CREATE UNIQUE INDEX IF NOT EXISTS "forward_destinations_project_name_uq" ON "forward_destinations" USING btree ("project_id","name");
--> statement-breakpoint
CREATE TABLE IF NOT EXISTS "forward_flows" (
	"id" serial PRIMARY KEY NOT NULL,
	"project_id" integer NOT NULL,
	"name" text NOT NULL,
	"sql" text NOT NULL,
	"enabled" boolean DEFAULT false NOT NULL,
	"remark" text,
	"create_time" timestamp with time zone DEFAULT now() NOT NULL,
	"update_time" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "forward_flows" ADD CONSTRAINT "forward_flows_project_id_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "public"."projects"("id") ON DELETE cascade ON UPDATE no action;
--> statement-breakpoint
CREATE UNIQUE INDEX IF NOT EXISTS "forward_flows_project_name_uq" ON "forward_flows" USING btree ("project_id","name");
--> statement-breakpoint
CREATE TABLE IF NOT EXISTS "forward_routes" (
	"id" serial PRIMARY KEY NOT NULL,
	"flow_id" integer NOT NULL,
	"destination_id" integer NOT NULL,
	"position" bigint DEFAULT 0 NOT NULL,
	"owner" text,
	"lease_until" timestamp with time zone,
	"sent" bigint DEFAULT 0 NOT NULL,
	"failed" bigint DEFAULT 0 NOT NULL,
	"dropped" bigint DEFAULT 0 NOT NULL,
	"dead" bigint DEFAULT 0 NOT NULL,
	"last_error" text,
	"last_error_time" timestamp with time zone
);
--> statement-breakpoint
ALTER TABLE "forward_routes" ADD CONSTRAINT "forward_routes_flow_id_forward_flows_id_fk" FOREIGN KEY ("flow_id") REFERENCES "public"."forward_flows"("id") ON DELETE cascade ON UPDATE no action;
--> statement-breakpoint
ALTER TABLE "forward_routes" ADD CONSTRAINT "forward_routes_destination_id_forward_destinations_id_fk" FOREIGN KEY ("destination_id") REFERENCES "public"."forward_destinations"("id") ON DELETE restrict ON UPDATE no action;
--> statement-breakpoint
CREATE UNIQUE INDEX IF NOT EXISTS "forward_routes_flow_destination_uq" ON "forward_routes" USING btree ("flow_id","destination_id");
--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "forward_routes_destination_idx" ON "forward_routes" USING btree ("destination_id");
--> statement-breakpoint
CREATE TABLE IF NOT EXISTS "forward_dead_letters" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"route_id" integer NOT NULL,
	"message_id" bigint NOT NULL,
	"record" jsonb NOT NULL,
	"error" text NOT NULL,
	"attempts" integer NOT NULL,
	"create_time" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "forward_dead_letters" ADD CONSTRAINT "forward_dead_letters_route_id_forward_routes_id_fk" FOREIGN KEY ("route_id") REFERENCES "public"."forward_routes"("id") ON DELETE cascade ON UPDATE no action;
--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "forward_dead_letters_route_idx" ON "forward_dead_letters" USING btree ("route_id","id");
