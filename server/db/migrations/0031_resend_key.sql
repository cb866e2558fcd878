-- A QoS 1 message's resend key (server/mqtt/resend.ts): its MQTT packet id and a CRC-32 of its payload, so a message a
-- device sends again after its PUBACK was lost is recognised as the one already stored. NULL for QoS 0 and the
-- platform's own rows. A nullable column without a default: no rewrite of the partitions.
ALTER TABLE "device_messages" ADD COLUMN IF NOT EXISTS "resend_key" bigint;
--> statement-breakpoint
-- store_day_partition (0026) stages the default partition's rows of the new day in a temporary table shaped like the
-- table. Kept for the session, that table kept the columns of its first call, and a column added since (resend_key
-- above) broke every later call on that connection. It is made afresh by each call and dropped with its transaction.
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
    EXECUTE format('DROP TABLE IF EXISTS pg_temp.%I', tmp);
    EXECUTE format('CREATE TEMP TABLE %I (LIKE %I.%I) ON COMMIT DROP', tmp, nsp, parent);
    EXECUTE format('WITH d AS (DELETE FROM %I.%I WHERE ts >= $1 AND ts < $2 RETURNING *) INSERT INTO pg_temp.%I SELECT * FROM d',
        nsp, parent || '_default', tmp) USING lo, hi;
    GET DIAGNOSTICS moved = ROW_COUNT;
    EXECUTE format('CREATE TABLE %I.%I PARTITION OF %I.%I FOR VALUES FROM (%L) TO (%L)', nsp, part, nsp, parent, lo, hi);
    PERFORM store_name_indexes(parent, part);
    IF moved > 0 THEN
        EXECUTE format('INSERT INTO %I.%I OVERRIDING SYSTEM VALUE SELECT * FROM pg_temp.%I', nsp, parent, tmp);
    END IF;
    RETURN true;
EXCEPTION WHEN duplicate_table OR unique_violation OR lock_not_available THEN
    RETURN false;
END
$$;
