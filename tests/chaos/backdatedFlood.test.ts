import { expect } from 'vitest';
import { until } from '../server/mqttSupport';
import { DEVICES, scenario, type ChaosPlatform } from './harness';

/**
 * A back-dated flood: one more lamp posts QoS 1 property reports whose `time` falls on FLOOD_DAYS distinct past
 * days, beside the steady devices. Kept within [now - LOG_RETENTION_DAYS, now + 1 day] a message keeps its time;
 * outside it is stored at the server's time (the device's time kept as data), so the flood makes no day partition
 * older than the retention, stalls nobody's ingest, and each of its acknowledged messages is stored once and delivered.
 */

const FLOOD_DAYS = 300;
const RETENTION_DAYS = 7;
const DAY_MS = 86_400_000;
const FLOOD_WAIT_MS = 60_000;
const FLOOD_KEY = (DEVICES + 1) * 1_000_000;

const flood = { acked: 0, keys: [] as number[], deviceId: 0, ms: 0 };

async function floodDevice(p: ChaosPlatform): Promise<number> {
    const name = 'chflood';
    const row = (
        await p.db.query<{ id: string }>(
            `INSERT INTO devices (product_id, device_name, username, client_id, secret)
             SELECT p.id, $2, $2 || '&' || p.product_key, p.product_key || '.' || $2, 'floodsecret'
             FROM products p WHERE p.product_key = $1 RETURNING id`,
            [p.productKey, name],
        )
    ).rows[0];
    flood.deviceId = Number(row.id);
    const client = p.connectThroughLb({ name, secret: 'floodsecret' });
    p.extraClients.push(client);
    await new Promise<void>((resolve) => client.once('connect', () => resolve()));
    const topic = `/sys/${p.productKey}/${name}/thing/event/property/post`;
    const started = Date.now();
    const now = Date.now();
    // Every day's post at once: the broker and the writer see the whole flood together.
    const all = Promise.all(
        Array.from({ length: FLOOD_DAYS }, (_, k) => {
            const key = FLOOD_KEY + k + 1;
            const payload = JSON.stringify({
                id: String(key),
                params: { Brightness: { value: k % 100, time: now - (k + 1) * DAY_MS } },
            });
            // Not among the steady devices' keys (those are found by their time): counted here.
            return p.publish(client, topic, payload).then((ok) => ok && flood.keys.push(key));
        }),
    );
    // The fault ends when the flood is answered, or after FLOOD_WAIT_MS (a stalled ingest: the rest is unanswered).
    await Promise.race([all, new Promise((r) => setTimeout(r, FLOOD_WAIT_MS))]);
    flood.acked = flood.keys.length;
    flood.ms = Date.now() - started;
    return Date.now();
}

async function floodKept(p: ChaosPlatform): Promise<void> {
    const stored = await p.db.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM device_messages WHERE device_id = $1 AND method = 'thing.event.property.post'`,
        [flood.deviceId],
    );
    const partitions = await p.db.query<{ name: string }>(
        `SELECT c.relname AS name FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
         WHERE i.inhparent = 'device_messages'::regclass AND c.relname ~ '_p[0-9]{8}$'
           AND to_date(right(c.relname, 8), 'YYYYMMDD') < (now() - make_interval(days => $1 + 1))::date`,
        [RETENTION_DAYS],
    );
    await until(() => flood.keys.every((k) => p.received.has(k)), 20_000).catch(() => undefined);
    const undelivered = flood.keys.filter((k) => !p.received.has(k)).length;
    console.log(
        `chaos flood: ${FLOOD_DAYS} back-dated posts, ${flood.acked} acknowledged in ${flood.ms} ms, ` +
            `${stored.rows[0].n} stored, ${undelivered} undelivered, ${partitions.rows.length} day partitions older ` +
            `than the ${RETENTION_DAYS}-day retention`,
    );
    expect.soft(flood.acked, 'the flood acknowledged').toBe(FLOOD_DAYS);
    expect.soft(stored.rows[0].n, "the flood's acknowledged messages stored once each").toBe(flood.acked);
    expect.soft(undelivered, "the flood's messages delivered to the consumer").toBe(0);
    expect.soft(partitions.rows.length, 'day partitions made older than the retention').toBe(0);
}

await scenario('flood', `a back-dated flood (${FLOOD_DAYS} distinct past days)`, floodDevice, {
    env: { LOG_RETENTION_DAYS: String(RETENTION_DAYS) },
    extra: floodKept,
});
