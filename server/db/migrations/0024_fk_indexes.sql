-- Deleting a row makes PostgreSQL look up every row whose foreign key names it (ON DELETE cascade / set null). Five
-- such columns had no index leading with them, so each delete read those tables whole: a device's delete read alert
-- events, rules and rule holds (whose primary key leads with the rule), a rule's delete alert events and
-- notifications (both grow with time), a product's delete simulations. Most alert events, rules and notifications
-- name no device or rule, so those indexes keep only the rows that do (`col = $1` implies `col IS NOT NULL`).
-- tests/server/foreignKeyIndexes.test.ts keeps every foreign key into devices, products and rules indexed.
CREATE INDEX IF NOT EXISTS alert_events_device_idx ON alert_events (device_id) WHERE device_id IS NOT NULL;--> statement-breakpoint
CREATE INDEX IF NOT EXISTS alert_events_rule_idx ON alert_events (rule_id) WHERE rule_id IS NOT NULL;--> statement-breakpoint
CREATE INDEX IF NOT EXISTS rules_device_idx ON rules (device_id) WHERE device_id IS NOT NULL;--> statement-breakpoint
CREATE INDEX IF NOT EXISTS rule_holds_device_idx ON rule_holds (device_id);--> statement-breakpoint
CREATE INDEX IF NOT EXISTS notifications_rule_idx ON notifications (rule_id) WHERE rule_id IS NOT NULL;--> statement-breakpoint
CREATE INDEX IF NOT EXISTS simulations_product_idx ON simulations (product_id);
