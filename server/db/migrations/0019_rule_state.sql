CREATE TABLE "rule_ticks" (
	"rule_id" integer NOT NULL,
	"tick" timestamp with time zone NOT NULL,
	CONSTRAINT "rule_ticks_rule_id_tick_pk" PRIMARY KEY("rule_id","tick")
);
--> statement-breakpoint
CREATE TABLE "rule_holds" (
	"rule_id" integer NOT NULL,
	"device_id" bigint NOT NULL,
	"since" timestamp with time zone NOT NULL,
	"fired" boolean DEFAULT false NOT NULL,
	CONSTRAINT "rule_holds_rule_id_device_id_pk" PRIMARY KEY("rule_id","device_id")
);
--> statement-breakpoint
ALTER TABLE "rule_ticks" ADD CONSTRAINT "rule_ticks_rule_id_rules_id_fk" FOREIGN KEY ("rule_id") REFERENCES "public"."rules"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "rule_holds" ADD CONSTRAINT "rule_holds_rule_id_rules_id_fk" FOREIGN KEY ("rule_id") REFERENCES "public"."rules"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "rule_holds" ADD CONSTRAINT "rule_holds_device_id_devices_id_fk" FOREIGN KEY ("device_id") REFERENCES "public"."devices"("id") ON DELETE cascade ON UPDATE no action;
