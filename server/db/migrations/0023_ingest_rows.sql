-- Issue 10, ingest speed: what each property post costs PostgreSQL (PGlite) per row.
-- The method index (0005) kept every property post a second time: property posts are nearly every row and their
-- readers (the property history, ListProperty of thing.event.property.post) walk device_messages_device_ts_idx, whose
-- rows are nearly all posts. It now holds the other messages only (events, service calls, status changes, replies),
-- the ones a by-method read must not dig out from under a month of posts. Queries naming another method still use it
-- (the planner proves `method = 'x'` implies the predicate).
DROP INDEX IF EXISTS device_messages_device_method_ts_idx;--> statement-breakpoint
CREATE INDEX IF NOT EXISTS device_messages_device_method_ts_idx ON device_messages (device_id, method, ts DESC, id DESC)
    WHERE method <> 'thing.event.property.post';--> statement-breakpoint
-- device_latest is one row per device rewritten on every report. With pages half empty each rewrite fits beside the
-- old version on its page (a HOT update: no new primary-key entry, and the old version is pruned on the next visit),
-- so the table stays its size instead of growing by a row version per report (PGlite runs no autovacuum).
ALTER TABLE device_latest SET (fillfactor = 50);
