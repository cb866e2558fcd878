-- Issue 10, ingest: a property post writes two rows instead of one per property twice over. The latest values become
-- one jsonb row per device (device_latest.props: identifier -> {"v": value, "t": epoch ms}), merged with ||, and the
-- property history is read from the property posts already in device_messages. Existing data moves here.
CREATE TABLE "device_latest" (
	"device_id" bigint PRIMARY KEY NOT NULL REFERENCES "devices"("id") ON DELETE cascade,
	"props" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"desired" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"ts" timestamp with time zone NOT NULL
);--> statement-breakpoint
INSERT INTO device_latest (device_id, props, desired, ts)
SELECT device_id,
       jsonb_object_agg(identifier, jsonb_build_object('v', value, 't', floor(extract(epoch FROM ts) * 1000)::bigint)),
       coalesce(jsonb_object_agg(identifier, desired) FILTER (WHERE desired IS NOT NULL), '{}'::jsonb),
       max(ts)
FROM device_properties GROUP BY device_id;--> statement-breakpoint
-- History rows without their property post (written before posts were logged) become posts of their instant.
INSERT INTO device_messages (device_id, ts, method, identifier, data, product_id)
SELECT r.device_id, r.ts, 'thing.event.property.post', NULL, jsonb_object_agg(r.identifier, r.value), d.product_id
FROM property_records r JOIN devices d ON d.id = r.device_id
WHERE NOT EXISTS (
    SELECT 1 FROM device_messages m
    WHERE m.device_id = r.device_id AND m.ts = r.ts AND m.method = 'thing.event.property.post'
      AND jsonb_exists(m.data, r.identifier))
GROUP BY r.device_id, r.ts, d.product_id;--> statement-breakpoint
DROP TABLE "property_records";--> statement-breakpoint
DROP TABLE "device_properties";
