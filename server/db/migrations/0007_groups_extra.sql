-- Extra indexes and triggers for issue 5 (groups) that schema.ts cannot express. Names resolve through search_path.
-- One name per parent; roots (no parent) are unique per project. The server checks first and answers 分组名称已存在;
-- this catches two creates racing.
CREATE UNIQUE INDEX "device_groups_sibling_name_uq" ON "device_groups" USING btree ("project_code", (coalesce("parent_id", 0)), "name");--> statement-breakpoint
-- A group's devices, most recently added first: one index range per page.
CREATE INDEX "group_devices_group_time_idx" ON "group_devices" USING btree ("group_id", "create_time" DESC, "device_id" DESC);
