-- Apps published on /appconfig (domain, description, publish status, create time) and the alarm notifications of
-- /applymanage. Apps that existed before stay published (default 1).
CREATE TABLE "app_alarms" (
	"id" serial PRIMARY KEY NOT NULL,
	"app_id" integer NOT NULL,
	"name" text NOT NULL,
	"level" smallint NOT NULL,
	"notify_type" text NOT NULL,
	"receiver" text NOT NULL,
	"content" text,
	"create_time" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "apps" ADD COLUMN "domain" text;--> statement-breakpoint
ALTER TABLE "apps" ADD COLUMN "description" text;--> statement-breakpoint
ALTER TABLE "apps" ADD COLUMN "publish_status" smallint DEFAULT 1 NOT NULL;--> statement-breakpoint
ALTER TABLE "apps" ADD COLUMN "create_time" timestamp with time zone DEFAULT now() NOT NULL;--> statement-breakpoint
ALTER TABLE "app_alarms" ADD CONSTRAINT "app_alarms_app_id_apps_id_fk" FOREIGN KEY ("app_id") REFERENCES "public"."apps"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "app_alarms_app_idx" ON "app_alarms" USING btree ("app_id");