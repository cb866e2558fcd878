CREATE TABLE "device_counts" (
	"product_id" integer NOT NULL,
	"status" text NOT NULL,
	"total" bigint NOT NULL,
	CONSTRAINT "device_counts_product_id_status_pk" PRIMARY KEY("product_id","status")
);
--> statement-breakpoint
CREATE TABLE "devices" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "devices_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"product_id" integer NOT NULL,
	"device_name" text NOT NULL,
	"status" text DEFAULT 'INACTIVE' NOT NULL,
	"enabled" boolean DEFAULT true NOT NULL,
	"remark" text,
	"project_id" integer,
	"username" text NOT NULL,
	"client_id" text NOT NULL,
	"secret" text NOT NULL,
	"longitude" double precision,
	"latitude" double precision,
	"addr" text,
	"gw_id" bigint,
	"create_time" timestamp with time zone DEFAULT now() NOT NULL,
	"last_time" timestamp with time zone,
	"status_time" timestamp with time zone,
	CONSTRAINT "devices_status_check" CHECK (status IN ('INACTIVE', 'ONLINE', 'OFFLINE', 'DISABLE'))
);
--> statement-breakpoint
ALTER TABLE "device_counts" ADD CONSTRAINT "device_counts_product_id_products_id_fk" FOREIGN KEY ("product_id") REFERENCES "public"."products"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "devices" ADD CONSTRAINT "devices_product_id_products_id_fk" FOREIGN KEY ("product_id") REFERENCES "public"."products"("id") ON DELETE restrict ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "devices" ADD CONSTRAINT "devices_project_id_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "public"."projects"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "devices" ADD CONSTRAINT "devices_gw_id_devices_id_fk" FOREIGN KEY ("gw_id") REFERENCES "public"."devices"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "devices_product_name_uq" ON "devices" USING btree ("product_id","device_name");--> statement-breakpoint
CREATE INDEX "devices_product_id_idx" ON "devices" USING btree ("product_id","id","device_name");--> statement-breakpoint
CREATE INDEX "devices_status_id_idx" ON "devices" USING btree ("status","id");--> statement-breakpoint
CREATE INDEX "devices_project_id_idx" ON "devices" USING btree ("project_id","id") WHERE project_id IS NOT NULL;--> statement-breakpoint
CREATE INDEX "devices_gw_id_idx" ON "devices" USING btree ("gw_id") WHERE gw_id IS NOT NULL;