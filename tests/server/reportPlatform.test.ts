import os from 'node:os';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestServer, type TestServer } from '../../server/testing';
import { call } from './support';

/** GET /api/platform/info (the /platform screen) and the statistics report /api/report/* (the /report screen). */
let s: TestServer;
beforeAll(async () => {
    s = await createTestServer({
        // AMQP's port was taken by another program at start: the platform must not name it as its own.
        config: {
            mqttPort: 18831,
            logRetentionDays: 45,
            databaseUrl: undefined,
            dataDir: '/srv/iot',
            amqpPort: 5672,
            unboundListeners: ['amqp'],
        },
    });
});
afterAll(() => s?.close());

const DAY = 86_400_000;

describe('platform info', () => {
    it('tells an integrator the endpoints on the host asked, the schemes, the store, retention and version', async () => {
        const answer = await call(s, 'GET', '/api/platform/info');
        expect(answer.status).toBe(200);
        const data = (answer.body as { data: Record<string, unknown> }).data;
        expect(data).toMatchObject({
            host: 'localhost',
            mqttPort: 18831,
            mqttUrl: 'mqtt://localhost:18831',
            mqttWsUrl: 'ws://localhost:80/mqtt',
            amqpPort: null,
            store: 'pglite',
            storeLocation: '/srv/iot/pgdata',
            logRetentionDays: 45,
            cluster: false,
            version: '0.1.0',
        });
        expect(String(data.deviceSignIn)).toContain('securemode=3');
        // One process lists itself as the cluster's one member (the /platform and /vaServices members' table).
        expect(data.nodes).toEqual([
            expect.objectContaining({
                pid: process.pid,
                address: `${os.hostname()}:${process.pid}`,
                self: true,
                heartbeatAt: null,
                state: 'ready',
                connected: 0,
                connectedShare: 0,
            }),
        ]);
    });

    it('hides a PostgreSQL password and reports the AMQP port once the server has one', async () => {
        const pg = await createTestServer({
            seed: false,
            config: { databaseUrl: 'postgres://iot:secret@db.example:5432/iot', amqpPort: 5673 } as never,
        });
        try {
            const data = (await call(pg, 'GET', '/api/platform/info')).body as { data: Record<string, unknown> };
            expect(data.data).toMatchObject({
                store: 'postgres',
                storeLocation: 'postgres://iot:***@db.example:5432/iot',
                amqpPort: 5673,
                amqpUrl: 'amqp://localhost:5673',
            });
            expect(String(data.data.amqpSignIn)).toContain('authMode=aksign');
        } finally {
            await pg.close();
        }
    });
});

describe('report', () => {
    it('counts the seeded messages and alerts per day, product and level over the range', async () => {
        const end = Date.now();
        const start = end - 30 * DAY;
        const answer = await call(s, 'GET', `/api/report/daily?startTime=${start}&endTime=${end}`);
        expect(answer.status).toBe(200);
        const data = (answer.body as { data: unknown }).data as {
            days: Array<Record<string, number>>;
            rows: Array<Record<string, number | string>>;
            products: Array<{ productName: string; up: number }>;
            deviceTotal: number;
            upTotal: number;
            alertTotal: number;
        };
        expect(data.days.length).toBeGreaterThanOrEqual(30);
        expect(data.deviceTotal).toBeGreaterThan(0);
        // The day totals are the sums of the rows per product, and the products' totals too.
        const rowsUp = data.rows.reduce((n, r) => n + Number(r.up), 0);
        expect(data.upTotal).toBe(rowsUp);
        expect(data.products.reduce((n, p) => n + p.up, 0)).toBe(rowsUp);
        expect(rowsUp).toBeGreaterThan(0);
        const dayAlerts = data.days.reduce((n, d) => n + d.urgent + d.severe + d.general, 0);
        expect(dayAlerts).toBeGreaterThan(0);
        expect(data.alertTotal).toBeGreaterThanOrEqual(dayAlerts);
        for (const d of data.days) expect(d.onlineRate).toBeLessThanOrEqual(100);
    });

    it('exports the same rows as CSV with a BOM and a Chinese file name', async () => {
        const end = Date.now();
        const start = end - 30 * DAY;
        const daily = (await call(s, 'GET', `/api/report/daily?startTime=${start}&endTime=${end}`)).body as {
            data: { rows: unknown[] };
        };
        const res = await s.fetch(`/api/report/export?startTime=${start}&endTime=${end}`);
        expect(res.status).toBe(200);
        expect(res.headers.get('content-disposition')).toContain(
            "filename*=UTF-8''%E7%BB%9F%E8%AE%A1%E6%8A%A5%E8%A1%A8_",
        );
        const text = new TextDecoder('utf-8', { ignoreBOM: true }).decode(await res.arrayBuffer());
        expect(
            text.startsWith(
                '\uFEFF日期,产品名称,ProductKey,上行消息数,下行消息数,活跃设备数,设备总数,紧急告警,严重告警,一般告警\r\n',
            ),
        ).toBe(true);
        expect(text.trim().split('\r\n')).toHaveLength(daily.data.rows.length + 1);
    });

    it.each([
        ['startTime=abc', '开始时间格式不正确：应为毫秒时间戳'],
        [`startTime=${Date.now()}&endTime=${Date.now() - DAY}`, '开始时间不能晚于结束时间'],
        [`startTime=${Date.now() - 100 * DAY}&endTime=${Date.now()}`, '时间范围不能超过92天'],
    ])('refuses %s with 400', async (query, msg) => {
        const answer = await call(s, 'GET', `/api/report/daily?${query}`);
        expect(answer.status).toBe(400);
        expect(answer.body).toMatchObject({ msg });
    });
});
