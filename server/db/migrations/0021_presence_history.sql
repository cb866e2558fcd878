-- Presence history for the report's daily online rate (docs/roles.md, /report): one row each time a device's status
-- turns ONLINE or stops being ONLINE, whoever wrote it (the MQTT broker's presence, a camera, SIP, disabling). A
-- statement-level trigger with transition tables, like device_counts: one INSERT per statement however many devices
-- a reconnect storm moved. No foreign key: deleting devices costs nothing here; the report reads current devices only
-- and the retention sweep removes old rows.
CREATE TABLE IF NOT EXISTS "device_presence" (
	"device_id" bigint NOT NULL,
	"ts" timestamp with time zone NOT NULL,
	"online" boolean NOT NULL
);
--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "device_presence_device_ts_idx" ON "device_presence" USING btree ("device_id","ts");
--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "device_presence_ts_idx" ON "device_presence" USING btree ("ts");
--> statement-breakpoint
CREATE FUNCTION device_presence_on_update() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO device_presence (device_id, ts, online)
    SELECT n.id, coalesce(n.status_time, now()), n.status = 'ONLINE'
    FROM old_rows o JOIN new_rows n ON n.id = o.id
    WHERE (o.status = 'ONLINE') <> (n.status = 'ONLINE')
    ORDER BY n.id;
    RETURN NULL;
END
$$;
--> statement-breakpoint
CREATE TRIGGER devices_presence_update AFTER UPDATE ON "devices"
    REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION device_presence_on_update();
