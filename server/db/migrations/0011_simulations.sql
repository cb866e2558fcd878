CREATE TABLE "simulation_devices" (
	"simulation_id" integer NOT NULL,
	"device_id" bigint NOT NULL,
	"position" integer NOT NULL,
	CONSTRAINT "simulation_devices_simulation_id_device_id_pk" PRIMARY KEY("simulation_id","device_id")
);
--> statement-breakpoint
CREATE TABLE "simulations" (
	"id" serial PRIMARY KEY NOT NULL,
	"product_id" integer NOT NULL,
	"interval_seconds" integer NOT NULL,
	"mode" text NOT NULL,
	"fixed_values" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"events" boolean DEFAULT false NOT NULL,
	"running" boolean DEFAULT false NOT NULL,
	"messages_sent" bigint DEFAULT 0 NOT NULL,
	"create_time" timestamp with time zone DEFAULT now() NOT NULL,
	"start_time" timestamp with time zone,
	"stop_time" timestamp with time zone,
	CONSTRAINT "simulations_interval_check" CHECK (interval_seconds BETWEEN 1 AND 3600),
	CONSTRAINT "simulations_mode_check" CHECK (mode IN ('random', 'fixed'))
);
--> statement-breakpoint
ALTER TABLE "simulation_devices" ADD CONSTRAINT "simulation_devices_simulation_id_simulations_id_fk" FOREIGN KEY ("simulation_id") REFERENCES "public"."simulations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "simulation_devices" ADD CONSTRAINT "simulation_devices_device_id_devices_id_fk" FOREIGN KEY ("device_id") REFERENCES "public"."devices"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "simulations" ADD CONSTRAINT "simulations_product_id_products_id_fk" FOREIGN KEY ("product_id") REFERENCES "public"."products"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "simulation_devices_device_idx" ON "simulation_devices" USING btree ("device_id");