-- Data-parsing scripts (数据解析, docs/device-access.md): one per product of the 透传/自定义 data format (data_type 1),
-- its draft as last saved and the version the broker runs (published: null until the first 发布). Deleted with the
-- product.
CREATE TABLE IF NOT EXISTS "product_scripts" (
	"product_id" integer PRIMARY KEY NOT NULL,
	"draft" text NOT NULL,
	"draft_time" timestamp with time zone DEFAULT now() NOT NULL,
	"published" text,
	"published_time" timestamp with time zone,
	"version" integer DEFAULT 0 NOT NULL
);
--> statement-breakpoint
ALTER TABLE "product_scripts" ADD CONSTRAINT "product_scripts_product_id_products_id_fk" FOREIGN KEY ("product_id") REFERENCES "public"."products"("id") ON DELETE cascade ON UPDATE no action;
