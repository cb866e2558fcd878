-- Extra indexes and triggers for issue 5 (projects, staff, dashboard, alerts) that schema.ts cannot express. Names resolve through search_path.
-- Project names are unique (项目名称已存在): the index makes that hold under concurrent saves too.
CREATE UNIQUE INDEX IF NOT EXISTS projects_name_uq ON projects (name);
--> statement-breakpoint
-- The project list, newest first, walks this and stops after its page.
CREATE INDEX IF NOT EXISTS projects_create_time_idx ON projects (create_time DESC, id DESC);
--> statement-breakpoint
-- productCount per project, and clearing projectCode when a project is deleted.
CREATE INDEX IF NOT EXISTS products_project_code_idx ON products (project_code) WHERE project_code IS NOT NULL;
--> statement-breakpoint
-- A project's devices by status and product (project list counts, project detail, overview pies): index-only scans
-- over the project's own entries, never the devices table. Only bound devices are in it.
CREATE INDEX IF NOT EXISTS devices_project_status_product_idx ON devices (project_id, status, product_id)
    WHERE project_id IS NOT NULL;
--> statement-breakpoint
-- Staff lookups by user (user deletion cascades here).
CREATE INDEX IF NOT EXISTS project_users_user_idx ON project_users (user_id);
--> statement-breakpoint
-- The user search by a substring of the mobile number scans a small table; nothing to index.
SELECT 1;
