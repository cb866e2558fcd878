-- Extra indexes and triggers for issue 5 (dashboard map) that schema.ts cannot express. Names resolve through search_path.
-- The device map: every located device (or those inside a bbox) from this index alone (index-only scan). Only
-- located devices are in it; longitude leads so a bbox is one index range plus a latitude filter on the entries.
CREATE INDEX IF NOT EXISTS devices_located_idx ON devices (longitude, latitude) INCLUDE (id, product_id, device_name, status)
    WHERE longitude IS NOT NULL AND latitude IS NOT NULL;
--> statement-breakpoint
-- Alert lists filtered by handling status (the dashboard's pending/handled filter), newest first.
CREATE INDEX IF NOT EXISTS alert_events_status_ts_idx ON alert_events (status, ts DESC, id DESC);
--> statement-breakpoint
-- Alert events per (project, level, handling status), kept by statement triggers like device_counts (0003): the
-- dashboard's pending-by-level pie, the alert list totals and a project's pending count read a few rows instead of
-- counting the alert table. project_key is the project id, 0 for alerts without a project.
CREATE TABLE IF NOT EXISTS alert_counts (
    project_key integer NOT NULL,
    type smallint NOT NULL,
    status smallint NOT NULL,
    total bigint NOT NULL,
    PRIMARY KEY (project_key, type, status)
);
--> statement-breakpoint
INSERT INTO alert_counts (project_key, type, status, total)
SELECT coalesce(project_id, 0), type, status, count(*) FROM alert_events GROUP BY 1, 2, 3;
--> statement-breakpoint
CREATE FUNCTION alert_counts_on_insert() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO alert_counts AS c (project_key, type, status, total)
    SELECT coalesce(project_id, 0), type, status, count(*) FROM inserted GROUP BY 1, 2, 3 ORDER BY 1, 2, 3
    ON CONFLICT (project_key, type, status) DO UPDATE SET total = c.total + excluded.total;
    RETURN NULL;
END
$$;
--> statement-breakpoint
CREATE FUNCTION alert_counts_on_delete() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO alert_counts AS c (project_key, type, status, total)
    SELECT coalesce(project_id, 0), type, status, -count(*) FROM deleted GROUP BY 1, 2, 3 ORDER BY 1, 2, 3
    ON CONFLICT (project_key, type, status) DO UPDATE SET total = c.total + excluded.total;
    RETURN NULL;
END
$$;
--> statement-breakpoint
-- Only rows whose project, level or status changed move a count (handling an alert, a project deleted).
CREATE FUNCTION alert_counts_on_update() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO alert_counts AS c (project_key, type, status, total)
    SELECT project_key, type, status, sum(delta) FROM (
        SELECT coalesce(o.project_id, 0) AS project_key, o.type, o.status, -1 AS delta
            FROM old_rows o JOIN new_rows n ON n.id = o.id
            WHERE o.project_id IS DISTINCT FROM n.project_id OR o.type <> n.type OR o.status <> n.status
        UNION ALL
        SELECT coalesce(n.project_id, 0), n.type, n.status, 1
            FROM old_rows o JOIN new_rows n ON n.id = o.id
            WHERE o.project_id IS DISTINCT FROM n.project_id OR o.type <> n.type OR o.status <> n.status
    ) moved
    GROUP BY 1, 2, 3 ORDER BY 1, 2, 3
    ON CONFLICT (project_key, type, status) DO UPDATE SET total = c.total + excluded.total;
    RETURN NULL;
END
$$;
--> statement-breakpoint
CREATE FUNCTION alert_counts_on_truncate() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    DELETE FROM alert_counts;
    RETURN NULL;
END
$$;
--> statement-breakpoint
CREATE TRIGGER alert_events_count_insert AFTER INSERT ON alert_events
    REFERENCING NEW TABLE AS inserted FOR EACH STATEMENT EXECUTE FUNCTION alert_counts_on_insert();
--> statement-breakpoint
CREATE TRIGGER alert_events_count_delete AFTER DELETE ON alert_events
    REFERENCING OLD TABLE AS deleted FOR EACH STATEMENT EXECUTE FUNCTION alert_counts_on_delete();
--> statement-breakpoint
CREATE TRIGGER alert_events_count_update AFTER UPDATE ON alert_events
    REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION alert_counts_on_update();
--> statement-breakpoint
CREATE TRIGGER alert_events_count_truncate AFTER TRUNCATE ON alert_events
    FOR EACH STATEMENT EXECUTE FUNCTION alert_counts_on_truncate();
