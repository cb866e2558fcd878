-- Tags point at their object by (type, object_id) without a foreign key (one table serves every object type), so
-- a deleted device would leave its tags behind. This statement-level trigger removes a device's tags (type 2) in the
-- same statement that deletes the device, however many devices it deletes. Names resolve through search_path.
CREATE FUNCTION device_tags_on_delete() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    DELETE FROM tags t USING deleted d WHERE t.type = 2 AND t.object_id = d.id;
    RETURN NULL;
END
$$;
--> statement-breakpoint
CREATE TRIGGER devices_tags_delete AFTER DELETE ON devices REFERENCING OLD TABLE AS deleted
    FOR EACH STATEMENT EXECUTE FUNCTION device_tags_on_delete();
--> statement-breakpoint
DELETE FROM tags t WHERE t.type = 2 AND NOT EXISTS (SELECT 1 FROM devices d WHERE d.id = t.object_id);
