-- The device map's answer (every located device: 11 MB of JSON at 100,000) is cached by each server process under the
-- value of this sequence, which every statement that could change the map moves on. Sequences are not transactional
-- and take no row lock, so device writes never wait on each other here; a rolled-back write only costs one rebuild.
-- Names resolve through search_path (public or a per-test schema).
CREATE SEQUENCE device_map_version;
--> statement-breakpoint
CREATE FUNCTION device_map_touch() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM nextval('device_map_version');
    RETURN NULL;
END
$$;
--> statement-breakpoint
CREATE TRIGGER devices_map_touch_rows AFTER INSERT OR DELETE OR TRUNCATE ON devices
    FOR EACH STATEMENT EXECUTE FUNCTION device_map_touch();
--> statement-breakpoint
CREATE TRIGGER devices_map_touch_update AFTER UPDATE OF longitude, latitude, status, device_name, product_id ON devices
    FOR EACH STATEMENT EXECUTE FUNCTION device_map_touch();
