-- People and rights (issue 14): roles granting menu entries and rights, users with a role and an enabled flag,
-- sessions that say where they came from (the security centre lists and revokes them), and the sign-in history.
-- Names resolve through search_path (public or a per-test schema).
CREATE TABLE IF NOT EXISTS "roles" (
	"id" serial PRIMARY KEY NOT NULL,
	"name" text NOT NULL,
	"remark" text,
	"builtin" boolean DEFAULT false NOT NULL,
	"is_admin" boolean DEFAULT false NOT NULL,
	"menus" jsonb,
	"rights" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"create_time" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "roles_name_unique" UNIQUE("name")
);--> statement-breakpoint
-- menus NULL: every menu entry but 系统管理 (entries added later included); rights may use * for a family or action.
INSERT INTO "roles" ("id", "name", "remark", "builtin", "is_admin", "menus", "rights") VALUES
	(1, '管理员', '全部菜单与操作，管理人员、角色与安全', true, true, NULL, '["*"]'::jsonb),
	(2, '运维', '全部业务菜单，可新增、编辑、绑定、推流、部署与下发指令，不可删除', true, false, NULL,
	 '["*.create","*.edit","*.bind","*.push","*.deploy","*.downlink"]'::jsonb),
	(3, '只读', '全部业务菜单，只能查看', true, false, NULL, '[]'::jsonb)
ON CONFLICT DO NOTHING;--> statement-breakpoint
SELECT setval(pg_get_serial_sequence('roles', 'id'), GREATEST((SELECT max(id) FROM roles), 3));--> statement-breakpoint
ALTER TABLE "users" ADD COLUMN "role_id" integer DEFAULT 3 NOT NULL REFERENCES "roles"("id") ON DELETE RESTRICT;--> statement-breakpoint
ALTER TABLE "users" ADD COLUMN "enabled" boolean DEFAULT true NOT NULL;--> statement-breakpoint
UPDATE "users" SET "role_id" = 1 WHERE "username" = 'admin';--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "users_role_id_idx" ON "users" USING btree ("role_id");--> statement-breakpoint
ALTER TABLE "sessions" ADD COLUMN "id" serial NOT NULL;--> statement-breakpoint
ALTER TABLE "sessions" ADD COLUMN "address" text;--> statement-breakpoint
ALTER TABLE "sessions" ADD COLUMN "user_agent" text;--> statement-breakpoint
CREATE UNIQUE INDEX IF NOT EXISTS "sessions_id_uq" ON "sessions" USING btree ("id");--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "sessions_user_id_idx" ON "sessions" USING btree ("user_id");--> statement-breakpoint
CREATE TABLE IF NOT EXISTS "login_history" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY NOT NULL,
	"user_id" integer REFERENCES "users"("id") ON DELETE SET NULL,
	"username" text NOT NULL,
	"address" text NOT NULL,
	"user_agent" text,
	"success" boolean NOT NULL,
	"result" text NOT NULL,
	"ts" timestamp with time zone DEFAULT now() NOT NULL
);--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "login_history_ts_idx" ON "login_history" USING btree ("ts" DESC NULLS FIRST, "id" DESC NULLS FIRST);
