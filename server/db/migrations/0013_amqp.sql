CREATE TABLE "access_keys" (
	"id" serial PRIMARY KEY NOT NULL,
	"user_id" integer NOT NULL,
	"access_key" text NOT NULL,
	"access_secret" text NOT NULL,
	"enabled" boolean DEFAULT true NOT NULL,
	"create_time" timestamp with time zone DEFAULT now() NOT NULL,
	"last_used_time" timestamp with time zone,
	CONSTRAINT "access_keys_access_key_unique" UNIQUE("access_key")
);
--> statement-breakpoint
CREATE TABLE "amqp_queue" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "amqp_queue_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"group_id" integer NOT NULL,
	"device_id" bigint NOT NULL,
	"message_id" text NOT NULL,
	"topic" text NOT NULL,
	"generate_time" bigint NOT NULL,
	"payload" text NOT NULL,
	"create_time" timestamp with time zone DEFAULT now() NOT NULL,
	"owner" text,
	"lease_until" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "consumer_groups" (
	"id" serial PRIMARY KEY NOT NULL,
	"project_code" text NOT NULL,
	"name" text NOT NULL,
	"dropped" bigint DEFAULT 0 NOT NULL,
	"create_time" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "subscription_groups" (
	"subscription_id" integer NOT NULL,
	"group_id" integer NOT NULL,
	CONSTRAINT "subscription_groups_subscription_id_group_id_pk" PRIMARY KEY("subscription_id","group_id")
);
--> statement-breakpoint
CREATE TABLE "subscriptions" (
	"id" serial PRIMARY KEY NOT NULL,
	"product_id" integer NOT NULL,
	"project_code" text NOT NULL,
	"msg_types" text DEFAULT 'post' NOT NULL,
	"create_time" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "access_keys" ADD CONSTRAINT "access_keys_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "amqp_queue" ADD CONSTRAINT "amqp_queue_group_id_consumer_groups_id_fk" FOREIGN KEY ("group_id") REFERENCES "public"."consumer_groups"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "consumer_groups" ADD CONSTRAINT "consumer_groups_project_code_projects_code_fk" FOREIGN KEY ("project_code") REFERENCES "public"."projects"("code") ON DELETE cascade ON UPDATE cascade;--> statement-breakpoint
ALTER TABLE "subscription_groups" ADD CONSTRAINT "subscription_groups_subscription_id_subscriptions_id_fk" FOREIGN KEY ("subscription_id") REFERENCES "public"."subscriptions"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "subscription_groups" ADD CONSTRAINT "subscription_groups_group_id_consumer_groups_id_fk" FOREIGN KEY ("group_id") REFERENCES "public"."consumer_groups"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "subscriptions" ADD CONSTRAINT "subscriptions_product_id_products_id_fk" FOREIGN KEY ("product_id") REFERENCES "public"."products"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "subscriptions" ADD CONSTRAINT "subscriptions_project_code_projects_code_fk" FOREIGN KEY ("project_code") REFERENCES "public"."projects"("code") ON DELETE cascade ON UPDATE cascade;--> statement-breakpoint
CREATE INDEX "access_keys_user_idx" ON "access_keys" USING btree ("user_id","id");--> statement-breakpoint
CREATE INDEX "amqp_queue_group_id_idx" ON "amqp_queue" USING btree ("group_id","id");--> statement-breakpoint
CREATE INDEX "amqp_queue_create_time_idx" ON "amqp_queue" USING btree ("create_time");--> statement-breakpoint
CREATE UNIQUE INDEX "consumer_groups_project_name_uq" ON "consumer_groups" USING btree ("project_code","name");--> statement-breakpoint
CREATE INDEX "consumer_groups_create_time_idx" ON "consumer_groups" USING btree ("create_time" DESC NULLS LAST,"id" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "subscription_groups_group_idx" ON "subscription_groups" USING btree ("group_id");--> statement-breakpoint
CREATE UNIQUE INDEX "subscriptions_product_uq" ON "subscriptions" USING btree ("product_id");--> statement-breakpoint
CREATE INDEX "subscriptions_create_time_idx" ON "subscriptions" USING btree ("create_time" DESC NULLS LAST,"id" DESC NULLS LAST);--> statement-breakpoint
-- Every project has a consumer group named 'default' from its creation (SPEC.md "Server subscription").
INSERT INTO consumer_groups (project_code, name) SELECT code, 'default' FROM projects ON CONFLICT DO NOTHING;--> statement-breakpoint
CREATE OR REPLACE FUNCTION consumer_groups_default() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO consumer_groups (project_code, name) VALUES (NEW.code, 'default') ON CONFLICT DO NOTHING;
    RETURN NULL;
END $$;--> statement-breakpoint
CREATE TRIGGER projects_default_consumer_group AFTER INSERT ON projects FOR EACH ROW EXECUTE FUNCTION consumer_groups_default();
