-- Issue 28: the tables that grow with traffic (device_messages, device_presence, rule_logs, notifications) become
-- partitioned by day (PostgreSQL declarative range partitioning on ts, one partition per UTC day, named
-- <table>_pYYYYMMDD), so retention drops a whole day in one statement instead of deleting row by row
-- (server/db/partitions.ts, docs/deployment.md "The message store").
--
-- Each table also gets a DEFAULT partition: a row whose day has no partition yet (a late or back-dated message, the
-- seed's history, a test's old row) is stored there instead of failing the batch it came in, and the maintenance tick
-- moves it into its own day partition (store_day_partition below). No writer changes and nothing on their hot path.
--
-- Existing rows are NOT copied here (this file runs in one transaction at start; a copy of a large table would hold
-- the start for hours and could not resume): each old table is renamed <table>_legacy, keeps only its primary key
-- (its other indexes and foreign keys go: dropping them is instant and makes the move cheaper) and the mover
-- (server/db/partitionMover.ts) moves its rows into the partitioned table in batches, each batch one transaction that
-- deletes the rows from the legacy table and inserts them (ids kept): a kill -9 loses no row and the next start
-- goes on where it stopped. The newest rows move first, so the last days' history is whole first.
-- Names resolve through search_path (public or a per-test schema).

-- Creates the partition of `parent` for one UTC day if it is missing and moves the rows of that day waiting in the
-- default partition into it (CREATE ... PARTITION OF refuses while the default holds rows of the new range). Another
-- process creating the same partition at the same time is not an error. Returns whether it created the partition.
CREATE OR REPLACE FUNCTION store_day_partition(parent text, day date) RETURNS boolean LANGUAGE plpgsql AS $$
DECLARE
    nsp text;
    part text := parent || '_p' || to_char(day, 'YYYYMMDD');
    tmp text := 'store_moving_' || parent;
    lo timestamptz := day::timestamp AT TIME ZONE 'UTC';
    hi timestamptz := (day + 1)::timestamp AT TIME ZONE 'UTC';
    moved bigint;
    r record;
BEGIN
    SELECT n.nspname INTO nsp FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
        WHERE c.oid = to_regclass(parent);
    IF to_regclass(format('%I.%I', nsp, part)) IS NOT NULL THEN
        RETURN false;
    END IF;
    -- Making a partition locks its table exclusively for a moment: waiting behind a long read for it would stall every
    -- writer queued behind this; after 2 s it gives up (the rows wait in the default partition, the next tick retries).
    PERFORM set_config('lock_timeout', '2s', true);
    -- The new partition's foreign keys lock the tables they reference (devices, rules) after the parent; deleting a
    -- device locks devices, then the messages (its cascade). Taking the referenced tables first keeps one order: no
    -- deadlock between a partition being made and a device being deleted.
    FOR r IN SELECT DISTINCT confrelid::regclass AS ref FROM pg_constraint
        WHERE conrelid = to_regclass(parent) AND contype = 'f' LOOP
        EXECUTE format('LOCK TABLE %s IN SHARE ROW EXCLUSIVE MODE', r.ref);
    END LOOP;
    EXECUTE format('CREATE TEMP TABLE IF NOT EXISTS %I (LIKE %I.%I)', tmp, nsp, parent);
    EXECUTE format('WITH d AS (DELETE FROM %I.%I WHERE ts >= $1 AND ts < $2 RETURNING *) INSERT INTO pg_temp.%I SELECT * FROM d',
        nsp, parent || '_default', tmp) USING lo, hi;
    GET DIAGNOSTICS moved = ROW_COUNT;
    EXECUTE format('CREATE TABLE %I.%I PARTITION OF %I.%I FOR VALUES FROM (%L) TO (%L)', nsp, part, nsp, parent, lo, hi);
    PERFORM store_name_indexes(parent, part);
    IF moved > 0 THEN
        EXECUTE format('INSERT INTO %I.%I OVERRIDING SYSTEM VALUE SELECT * FROM pg_temp.%I', nsp, parent, tmp);
        EXECUTE format('TRUNCATE pg_temp.%I', tmp);
    END IF;
    RETURN true;
EXCEPTION WHEN duplicate_table OR unique_violation OR lock_not_available THEN
    RETURN false;
END
$$;
--> statement-breakpoint
-- A partition's indexes are named after the parent's (device_messages_product_up_idx on device_messages_p20261128 is
-- device_messages_p20261128_product_up_idx), not PostgreSQL's generated names, so plans read like before.
CREATE OR REPLACE FUNCTION store_name_indexes(parent text, part text) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
    r record;
    want text;
BEGIN
    FOR r IN
        SELECT n.nspname AS nsp, ci.relname AS child, pi.relname AS parent_index
        FROM pg_index i
        JOIN pg_class ci ON ci.oid = i.indexrelid
        JOIN pg_namespace n ON n.oid = ci.relnamespace
        JOIN pg_inherits h ON h.inhrelid = i.indexrelid
        JOIN pg_class pi ON pi.oid = h.inhparent
        WHERE i.indrelid = to_regclass(part)
    LOOP
        want := part || substr(r.parent_index, length(parent) + 1);
        IF want <> r.child THEN
            EXECUTE format('ALTER INDEX %I.%I RENAME TO %I', r.nsp, r.child, want);
        END IF;
    END LOOP;
END
$$;
--> statement-breakpoint
-- Renames a table to <table>_legacy for the mover: its primary key and identity sequence are renamed out of the
-- partitioned table's way, its other indexes and its foreign keys dropped.
CREATE OR REPLACE FUNCTION store_retire(tbl text) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
    r record;
    seq text;
BEGIN
    IF EXISTS (SELECT 1 FROM pg_attribute WHERE attrelid = to_regclass(tbl) AND attname = 'id') THEN
        seq := pg_get_serial_sequence(tbl, 'id');
    END IF;
    EXECUTE format('ALTER TABLE %I RENAME TO %I', tbl, tbl || '_legacy');
    FOR r IN SELECT conname, contype FROM pg_constraint WHERE conrelid = to_regclass(tbl || '_legacy') LOOP
        IF r.contype = 'p' THEN
            EXECUTE format('ALTER TABLE %I RENAME CONSTRAINT %I TO %I', tbl || '_legacy', r.conname, tbl || '_legacy_pkey');
        ELSIF r.contype = 'f' THEN
            EXECUTE format('ALTER TABLE %I DROP CONSTRAINT %I', tbl || '_legacy', r.conname);
        END IF;
    END LOOP;
    FOR r IN SELECT c.relname FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
        WHERE i.indrelid = to_regclass(tbl || '_legacy') AND NOT i.indisprimary LOOP
        EXECUTE format('DROP INDEX %I', r.relname);
    END LOOP;
    IF seq IS NOT NULL THEN
        EXECUTE format('ALTER SEQUENCE %s RENAME TO %I', seq, tbl || '_legacy_id_seq');
    END IF;
END
$$;
--> statement-breakpoint
SELECT store_retire('device_messages');--> statement-breakpoint
SELECT store_retire('device_presence');--> statement-breakpoint
SELECT store_retire('rule_logs');--> statement-breakpoint
SELECT store_retire('notifications');--> statement-breakpoint
-- device_presence had no primary key and keeps none; ctid orders its move.
CREATE TABLE device_messages (
    id bigint GENERATED ALWAYS AS IDENTITY NOT NULL,
    device_id bigint NOT NULL,
    ts timestamp with time zone NOT NULL,
    method text NOT NULL,
    identifier text,
    data jsonb NOT NULL,
    product_id integer,
    -- A partitioned table's unique constraints must include the partition key.
    CONSTRAINT device_messages_pkey PRIMARY KEY (id, ts),
    CONSTRAINT device_messages_device_id_devices_id_fk FOREIGN KEY (device_id) REFERENCES devices(id) ON DELETE CASCADE
) PARTITION BY RANGE (ts);--> statement-breakpoint
CREATE TABLE device_presence (
    device_id bigint NOT NULL,
    ts timestamp with time zone NOT NULL,
    online boolean NOT NULL
) PARTITION BY RANGE (ts);--> statement-breakpoint
CREATE TABLE rule_logs (
    id bigint GENERATED ALWAYS AS IDENTITY NOT NULL,
    rule_id integer,
    rule_name text NOT NULL,
    project_id integer,
    device_id bigint,
    device_name text,
    product_key text,
    trigger_type text NOT NULL,
    input jsonb,
    results jsonb DEFAULT '[]'::jsonb NOT NULL,
    success boolean NOT NULL,
    ts timestamp with time zone DEFAULT now() NOT NULL,
    CONSTRAINT rule_logs_pkey PRIMARY KEY (id, ts),
    CONSTRAINT rule_logs_rule_id_rules_id_fk FOREIGN KEY (rule_id) REFERENCES rules(id) ON DELETE SET NULL
) PARTITION BY RANGE (ts);--> statement-breakpoint
CREATE TABLE notifications (
    id bigint GENERATED ALWAYS AS IDENTITY NOT NULL,
    channel_id integer,
    rule_id integer,
    alert_id bigint,
    product_key text,
    device_name text,
    app_name text NOT NULL,
    notify_type text NOT NULL,
    message_type text NOT NULL,
    recipient text NOT NULL,
    content text NOT NULL,
    status text DEFAULT 'pending' NOT NULL,
    attempts jsonb DEFAULT '[]'::jsonb NOT NULL,
    ts timestamp with time zone DEFAULT now() NOT NULL,
    CONSTRAINT notifications_pkey PRIMARY KEY (id, ts),
    CONSTRAINT notifications_channel_id_notify_channels_id_fk FOREIGN KEY (channel_id) REFERENCES notify_channels(id) ON DELETE SET NULL,
    CONSTRAINT notifications_rule_id_rules_id_fk FOREIGN KEY (rule_id) REFERENCES rules(id) ON DELETE SET NULL
) PARTITION BY RANGE (ts);--> statement-breakpoint
-- New ids follow the old ones (moved rows keep theirs).
SELECT setval(pg_get_serial_sequence('device_messages', 'id'), coalesce((SELECT max(id) FROM device_messages_legacy), 0) + 1, false);--> statement-breakpoint
SELECT setval(pg_get_serial_sequence('rule_logs', 'id'), coalesce((SELECT max(id) FROM rule_logs_legacy), 0) + 1, false);--> statement-breakpoint
SELECT setval(pg_get_serial_sequence('notifications', 'id'), coalesce((SELECT max(id) FROM notifications_legacy), 0) + 1, false);--> statement-breakpoint
-- The indexes of 0004, 0005, 0012, 0014, 0021, 0023 and 0024, now on every partition.
CREATE INDEX device_messages_device_ts_idx ON device_messages (device_id, ts DESC NULLS FIRST, id DESC NULLS FIRST);--> statement-breakpoint
CREATE INDEX device_messages_ts_idx ON device_messages (ts);--> statement-breakpoint
CREATE INDEX device_messages_device_method_ts_idx ON device_messages (device_id, method, ts DESC, id DESC)
    WHERE method <> 'thing.event.property.post';--> statement-breakpoint
CREATE INDEX device_messages_device_other_ts_idx ON device_messages (device_id, ts DESC, id DESC)
    WHERE method <> 'thing.event.property.post';--> statement-breakpoint
CREATE INDEX device_messages_product_up_idx ON device_messages (product_id, ts DESC, id DESC)
    WHERE method <> 'device.status' AND (data->>'direction') IS DISTINCT FROM 'down';--> statement-breakpoint
CREATE INDEX device_messages_product_down_idx ON device_messages (product_id, ts DESC, id DESC)
    WHERE (data->>'direction') = 'down';--> statement-breakpoint
CREATE INDEX device_messages_product_status_idx ON device_messages (product_id, ts DESC, id DESC)
    WHERE method = 'device.status';--> statement-breakpoint
CREATE INDEX device_messages_device_down_idx ON device_messages (device_id, ts DESC, id DESC)
    WHERE (data->>'direction') = 'down';--> statement-breakpoint
CREATE INDEX device_messages_product_message_id_idx ON device_messages (product_id, (data->>'id'))
    WHERE (data->>'id') IS NOT NULL;--> statement-breakpoint
CREATE INDEX device_presence_device_ts_idx ON device_presence (device_id, ts);--> statement-breakpoint
CREATE INDEX device_presence_ts_idx ON device_presence (ts);--> statement-breakpoint
CREATE INDEX rule_logs_ts_idx ON rule_logs (ts DESC, id DESC);--> statement-breakpoint
CREATE INDEX rule_logs_rule_ts_idx ON rule_logs (rule_id, ts DESC);--> statement-breakpoint
CREATE INDEX notifications_ts_idx ON notifications (ts DESC, id DESC);--> statement-breakpoint
CREATE INDEX notifications_product_ts_idx ON notifications (product_key, ts DESC);--> statement-breakpoint
CREATE INDEX notifications_rule_idx ON notifications (rule_id) WHERE rule_id IS NOT NULL;--> statement-breakpoint
CREATE TABLE device_messages_default PARTITION OF device_messages DEFAULT;--> statement-breakpoint
CREATE TABLE device_presence_default PARTITION OF device_presence DEFAULT;--> statement-breakpoint
CREATE TABLE rule_logs_default PARTITION OF rule_logs DEFAULT;--> statement-breakpoint
CREATE TABLE notifications_default PARTITION OF notifications DEFAULT;--> statement-breakpoint
SELECT store_name_indexes(t, t || '_default') FROM unnest(ARRAY['device_messages', 'device_presence', 'rule_logs', 'notifications']) t;--> statement-breakpoint
-- Today and the next two days (UTC), so the first writes after the upgrade land in their partitions; the maintenance
-- tick keeps that window ahead from then on.
SELECT store_day_partition(t, (now() AT TIME ZONE 'UTC')::date + d)
    FROM unnest(ARRAY['device_messages', 'device_presence', 'rule_logs', 'notifications']) t, generate_series(0, 2) d;
