-- Keeps device_counts equal to the number of devices per (product, status), so totals, online and inactive
-- counts read a few rows instead of counting a million devices. Statement-level triggers with transition tables:
-- one aggregate per statement however many rows it touched (an import writes thousands in one INSERT). Every
-- change is an upsert of deltas in (product_id, status) order, so two transactions touching the same counters lock
-- them in the same order and cannot deadlock. Names are unqualified: they resolve through search_path (public or a
-- per-test schema).
INSERT INTO "device_counts" ("product_id", "status", "total")
SELECT "product_id", "status", count(*) FROM "devices" GROUP BY "product_id", "status";
--> statement-breakpoint
CREATE FUNCTION device_counts_on_insert() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO device_counts AS c (product_id, status, total)
    SELECT product_id, status, count(*) FROM inserted GROUP BY product_id, status ORDER BY product_id, status
    ON CONFLICT (product_id, status) DO UPDATE SET total = c.total + excluded.total;
    RETURN NULL;
END
$$;
--> statement-breakpoint
CREATE FUNCTION device_counts_on_delete() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO device_counts AS c (product_id, status, total)
    SELECT product_id, status, -count(*) FROM deleted GROUP BY product_id, status ORDER BY product_id, status
    ON CONFLICT (product_id, status) DO UPDATE SET total = c.total + excluded.total;
    RETURN NULL;
END
$$;
--> statement-breakpoint
-- Only rows whose product or status changed move a count; remark or location edits cost one empty join.
CREATE FUNCTION device_counts_on_update() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO device_counts AS c (product_id, status, total)
    SELECT product_id, status, sum(delta) FROM (
        SELECT o.product_id, o.status, -1 AS delta FROM old_rows o JOIN new_rows n ON n.id = o.id
            WHERE o.product_id <> n.product_id OR o.status <> n.status
        UNION ALL
        SELECT n.product_id, n.status, 1 FROM old_rows o JOIN new_rows n ON n.id = o.id
            WHERE o.product_id <> n.product_id OR o.status <> n.status
    ) moved
    GROUP BY product_id, status ORDER BY product_id, status
    ON CONFLICT (product_id, status) DO UPDATE SET total = c.total + excluded.total;
    RETURN NULL;
END
$$;
--> statement-breakpoint
CREATE FUNCTION device_counts_on_truncate() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    DELETE FROM device_counts;
    RETURN NULL;
END
$$;
--> statement-breakpoint
CREATE TRIGGER devices_count_insert AFTER INSERT ON "devices"
    REFERENCING NEW TABLE AS inserted FOR EACH STATEMENT EXECUTE FUNCTION device_counts_on_insert();
--> statement-breakpoint
CREATE TRIGGER devices_count_delete AFTER DELETE ON "devices"
    REFERENCING OLD TABLE AS deleted FOR EACH STATEMENT EXECUTE FUNCTION device_counts_on_delete();
--> statement-breakpoint
CREATE TRIGGER devices_count_update AFTER UPDATE ON "devices"
    REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION device_counts_on_update();
--> statement-breakpoint
CREATE TRIGGER devices_count_truncate AFTER TRUNCATE ON "devices"
    FOR EACH STATEMENT EXECUTE FUNCTION device_counts_on_truncate();
