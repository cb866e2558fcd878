-- Issue 10, ingest speed: a property post (nearly every row of device_messages) no longer reads its own jsonb to learn
-- it is not in the downlink and message-id indexes. Their predicates looked at data->>'direction' and data->>'id',
-- which PostgreSQL evaluated for every row inserted (four jsonb lookups per property post); each now tests the method
-- first, so a property post stops at a text comparison. A property post holds its values, never a direction or an
-- Alink id, so the indexes keep the same rows (a thing model property named `id` no longer passes for a message id).
-- The queries (server/domain/messageLog.ts) repeat these predicates word for word, as before, so the planner uses them.
-- On upgrade this rebuilds four indexes of a table that may be large: a scan of device_messages each.
DROP INDEX IF EXISTS device_messages_product_up_idx;--> statement-breakpoint
CREATE INDEX IF NOT EXISTS device_messages_product_up_idx ON device_messages (product_id, ts DESC, id DESC)
    WHERE method = 'thing.event.property.post'
        OR (method <> 'device.status' AND (data->>'direction') IS DISTINCT FROM 'down');--> statement-breakpoint
DROP INDEX IF EXISTS device_messages_product_down_idx;--> statement-breakpoint
CREATE INDEX IF NOT EXISTS device_messages_product_down_idx ON device_messages (product_id, ts DESC, id DESC)
    WHERE method <> 'thing.event.property.post' AND (data->>'direction') = 'down';--> statement-breakpoint
DROP INDEX IF EXISTS device_messages_device_down_idx;--> statement-breakpoint
CREATE INDEX IF NOT EXISTS device_messages_device_down_idx ON device_messages (device_id, ts DESC, id DESC)
    WHERE method <> 'thing.event.property.post' AND (data->>'direction') = 'down';--> statement-breakpoint
DROP INDEX IF EXISTS device_messages_product_message_id_idx;--> statement-breakpoint
CREATE INDEX IF NOT EXISTS device_messages_product_message_id_idx ON device_messages (product_id, (data->>'id'))
    WHERE method <> 'thing.event.property.post' AND (data->>'id') IS NOT NULL;
