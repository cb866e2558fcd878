import type { MqttClient } from 'mqtt';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { rowsOf } from '../../server/db/rows';
import { createPresence } from '../../server/mqtt/presence';
import { alibabaCredentials, sign } from '../../server/mqtt/signIn';
import { createTestServer, type TestServer } from '../../server/testing';
import { createDevice, createProduct, listForm, type TestProduct } from './devicesSupport';
import { connect, nextMessage, secretOf, startBroker, subscribe, until, type Broker } from './mqttSupport';
import { call } from './support';

/**
 * Presence from one clock, the database's: a process whose clock runs behind still marks a reconnect ONLINE after a
 * survivor's OFFLINE; a late OFFLINE leaves a device another member holds alone; and a member back after being
 * declared lost marks its gateway sub-devices ONLINE again with its direct devices.
 */

let s: TestServer;
let broker: Broker;
let url: string;
let gatewayProduct: TestProduct;
let deviceProduct: TestProduct;
const clients: MqttClient[] = [];

beforeAll(async () => {
    s = await createTestServer({ seed: false });
    ({ broker, url } = await startBroker(s));
    gatewayProduct = await createProduct(s, { nodeType: 1 });
    deviceProduct = await createProduct(s, { nodeType: 0 });
}, 60_000);
afterAll(async () => {
    vi.useRealTimers();
    for (const c of clients) c.end(true);
    await broker?.close();
    await s?.close();
});

const rows = async <T>(q: ReturnType<typeof sql>) => rowsOf<T>(await s.db.execute(q));
const statusOf = async (id: number) =>
    (await rows<{ status: string }>(sql`SELECT status FROM devices WHERE id = ${id}`))[0]?.status;

async function device(product: TestProduct) {
    const row = await createDevice(s, product.productKey);
    const deviceId = Number(row.deviceId);
    return { deviceId, productKey: row.productKey, deviceName: row.deviceName, secret: await secretOf(s, deviceId) };
}

describe('presence times from the database’s clock', () => {
    it('a node whose clock is an hour behind marks a reconnect ONLINE after the cluster’s OFFLINE', async () => {
        const { deviceId } = await device(deviceProduct);
        // A survivor marked it OFFLINE as of the database's now (server/cluster/membership.ts).
        await s.db.execute(sql`UPDATE devices SET status = 'OFFLINE', status_time = now() WHERE id = ${deviceId}`);
        const presence = createPresence(s.db, (err) => {
            throw err;
        });
        vi.useFakeTimers({ toFake: ['Date'], now: Date.now() - 3_600_000 });
        try {
            presence.online(deviceId);
            await presence.drain();
        } finally {
            vi.useRealTimers();
        }
        expect(await statusOf(deviceId)).toBe('ONLINE');
    });

    it('a late OFFLINE leaves a device that reconnected to another member ONLINE there', async () => {
        const { deviceId } = await device(deviceProduct);
        const presence = createPresence(
            s.db,
            (err) => {
                throw err;
            },
            () => 'node-here',
        );
        presence.online(deviceId);
        await presence.drain();
        // It reconnected to another member, which marked it ONLINE a second ago; this member's OFFLINE lands later.
        await s.db.execute(sql`UPDATE devices SET status = 'ONLINE', status_time = now() - interval '1 second',
            node_id = 'node-there' WHERE id = ${deviceId}`);
        presence.offline(deviceId);
        await presence.drain();
        expect(
            await rows<{ status: string; node_id: string }>(
                sql`SELECT status, node_id FROM devices WHERE id = ${deviceId}`,
            ),
        ).toEqual([{ status: 'ONLINE', node_id: 'node-there' }]);
    });

    it('a member declared lost marks its gateway’s sub-devices ONLINE again with the gateway', async () => {
        const sub = await device(deviceProduct);
        const gw = await device(gatewayProduct);
        const added = await call(
            s,
            'POST',
            '/api/device/subDevice/add',
            listForm({ gwId: gw.deviceId, deviceId: [sub.deviceId] }),
        );
        expect(added.status).toBe(200);
        const client = await connect(url, alibabaCredentials(gw));
        clients.push(client);
        const session = `/ext/session/${gw.productKey}/${gw.deviceName}/combine`;
        await subscribe(client, `${session}/#`);
        const timestamp = String(Date.now());
        const clientId = `${sub.productKey}&${sub.deviceName}`;
        const content = `clientId${clientId}deviceName${sub.deviceName}productKey${sub.productKey}timestamp${timestamp}`;
        const reply = nextMessage(client, `${session}/login_reply`);
        await client.publishAsync(
            `${session}/login`,
            JSON.stringify({
                id: '1',
                params: {
                    productKey: sub.productKey,
                    deviceName: sub.deviceName,
                    clientId,
                    timestamp,
                    signMethod: 'hmacsha1',
                    sign: sign('hmacsha1', sub.secret, content),
                    cleanSession: 'true',
                },
            }),
            { qos: 1 },
        );
        expect(await reply).toMatchObject({ code: 200 });
        broker.joinCluster('node-revived');
        await until(
            async () => (await statusOf(sub.deviceId)) === 'ONLINE' && (await statusOf(gw.deviceId)) === 'ONLINE',
        );
        // Another member declared this one lost: both OFFLINE (as membership.ts's sweep writes them).
        await s.db.execute(sql`UPDATE devices SET status = 'OFFLINE', status_time = now(), node_id = NULL
            WHERE id IN (${sub.deviceId}, ${gw.deviceId})`);
        // Back: it registers again and notes its devices (the membership's onRevived).
        broker.joinCluster('node-revived');
        await until(async () => (await statusOf(gw.deviceId)) === 'ONLINE');
        await new Promise((r) => setTimeout(r, 300));
        expect(await statusOf(sub.deviceId)).toBe('ONLINE');
    });
});
