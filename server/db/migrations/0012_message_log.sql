-- The message log (/log, GET /api/log/messages) and its retention (LOG_RETENTION_DAYS). device_messages can hold tens of
-- millions of rows: every query of the log walks one of these indexes newest first and stops after a page (or a
-- capped count); the retention sweep deletes the oldest rows in bounded batches found on the ts indexes.
-- Names resolve through search_path (public or a per-test schema).
ALTER TABLE "device_messages" ADD COLUMN "product_id" integer;--> statement-breakpoint
-- Rows written before this migration get their device's product once (a device never changes product).
UPDATE device_messages m SET product_id = d.product_id FROM devices d WHERE d.id = m.device_id AND m.product_id IS NULL;--> statement-breakpoint
CREATE INDEX "device_messages_ts_idx" ON "device_messages" USING btree ("ts");--> statement-breakpoint
CREATE INDEX "property_records_ts_idx" ON "property_records" USING btree ("ts");--> statement-breakpoint
-- A product's uplink (everything but downlink and status changes), its downlink and its status changes, newest first.
-- The queries repeat these predicates word for word so the planner can use the partial indexes.
CREATE INDEX IF NOT EXISTS device_messages_product_up_idx ON device_messages (product_id, ts DESC, id DESC)
    WHERE method <> 'device.status' AND (data->>'direction') IS DISTINCT FROM 'down';--> statement-breakpoint
CREATE INDEX IF NOT EXISTS device_messages_product_down_idx ON device_messages (product_id, ts DESC, id DESC)
    WHERE (data->>'direction') = 'down';--> statement-breakpoint
CREATE INDEX IF NOT EXISTS device_messages_product_status_idx ON device_messages (product_id, ts DESC, id DESC)
    WHERE method = 'device.status';--> statement-breakpoint
-- One device's downlink (its uplink walks device_messages_device_ts_idx, its status changes the method index).
CREATE INDEX IF NOT EXISTS device_messages_device_down_idx ON device_messages (device_id, ts DESC, id DESC)
    WHERE (data->>'direction') = 'down';--> statement-breakpoint
-- A message by its Alink id (downlink calls and their replies carry one), within a product.
CREATE INDEX IF NOT EXISTS device_messages_product_message_id_idx ON device_messages (product_id, (data->>'id'))
    WHERE (data->>'id') IS NOT NULL;
