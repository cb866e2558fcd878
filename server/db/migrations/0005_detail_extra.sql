-- Extra indexes and triggers for issue 4 (device detail: tags, files, sub-devices, telemetry) that schema.ts cannot express. Names resolve through search_path.
-- device_messages holds one row per property report (thing.event.property.post, every few seconds per device) and
-- few events and service calls. ListProperty by one exact method (run status) walks this index newest first:
CREATE INDEX IF NOT EXISTS device_messages_device_method_ts_idx ON device_messages (device_id, method, ts DESC, id DESC);
--> statement-breakpoint
-- Events and service calls without the property reports (thing.event.*, thing.service.*, the event list), newest
-- first: walking the device's whole history would step over a month of reports to find a handful of events.
CREATE INDEX IF NOT EXISTS device_messages_device_other_ts_idx ON device_messages (device_id, ts DESC, id DESC)
    WHERE method <> 'thing.event.property.post';
