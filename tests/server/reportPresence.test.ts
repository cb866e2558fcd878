// @vitest-environment node
import { asc, eq, inArray } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { devicePresence, devices } from '../../server/db/schema';
import { PRESENCE_RETENTION_DAYS, sweepOldPresence } from '../../server/domain/retention';
import { maintainPartitions, utcDay } from '../../server/db/partitions';
import { createTestServer, type TestServer } from '../../server/testing';
import { call, productWithDevices } from './support';

/**
 * The report's daily online rate from the presence history: device_presence records every status change to or
 * from ONLINE (a trigger on devices, whoever writes the status), and /api/report/daily turns a known history into
 * the share of device time online per day (Asia/Shanghai days; today up to now).
 */
const at = (local: string) => new Date(`${local}+08:00`);
const NOW = at('2026-03-10T12:00:00');

let s: TestServer;
let ids: number[];

beforeAll(async () => {
    s = await createTestServer({ seed: false, now: () => NOW });
    ids = await productWithDevices(s, 4);
    await s.db.update(devices).set({ createTime: at('2026-03-01T00:00:00') });
});
afterAll(() => s?.close());

const setStatus = (id: number, status: 'ONLINE' | 'OFFLINE', local: string) =>
    s.db
        .update(devices)
        .set({ status, statusTime: at(local) })
        .where(eq(devices.id, id));

describe('daily online rate from the presence history', () => {
    it('records each change to and from ONLINE, and only those', async () => {
        const [a, b, c, d] = ids;
        // a: online 06:00-18:00 on the 9th, again from 09:00 on the 10th.
        await setStatus(a, 'ONLINE', '2026-03-09T06:00:00');
        await setStatus(a, 'OFFLINE', '2026-03-09T18:00:00');
        await setStatus(a, 'OFFLINE', '2026-03-09T19:00:00'); // no change: not recorded
        await setStatus(a, 'ONLINE', '2026-03-10T09:00:00');
        // b: online since before any history (its change is older than the history kept).
        await setStatus(b, 'ONLINE', '2026-03-01T00:00:00');
        // c: created at 06:00 on the 10th, never online.
        await s.db
            .update(devices)
            .set({ createTime: at('2026-03-10T06:00:00') })
            .where(eq(devices.id, c));
        // d: online before the history starts; its first recorded change is going offline at noon on the 9th.
        await setStatus(d, 'ONLINE', '2026-03-01T00:00:00');
        await s.db.delete(devicePresence).where(inArray(devicePresence.deviceId, [b, d]));
        await setStatus(d, 'OFFLINE', '2026-03-09T12:00:00');

        const rows = await s.db
            .select()
            .from(devicePresence)
            .orderBy(asc(devicePresence.deviceId), asc(devicePresence.ts));
        expect(rows.map((r) => [r.deviceId, r.ts.toISOString(), r.online])).toEqual([
            [a, at('2026-03-09T06:00:00').toISOString(), true],
            [a, at('2026-03-09T18:00:00').toISOString(), false],
            [a, at('2026-03-10T09:00:00').toISOString(), true],
            [d, at('2026-03-09T12:00:00').toISOString(), false],
        ]);
    });

    it('answers the share of device time online per day', async () => {
        const start = at('2026-03-08T00:00:00').getTime();
        const answer = await call<{ data: { days: Array<{ day: string; onlineRate: number }> } }>(
            s,
            'GET',
            `/api/report/daily?startTime=${start}&endTime=${NOW.getTime()}`,
        );
        expect(answer.status).toBe(200);
        // 8th: a offline (its first change is coming online), b and d online: 48 of 72 hours.
        // 9th: a 12 h, b 24 h, d until noon 12 h: 48 of 72 hours.
        // 10th (until 12:00): a 3 h, b 12 h, c 0 of 6 h, d 0: 15 of 42 hours.
        expect(answer.body.data.days.map((d) => [d.day, d.onlineRate])).toEqual([
            ['2026-03-08', 66.7],
            ['2026-03-09', 66.7],
            ['2026-03-10', 35.7],
        ]);
    });
});

describe('presence retention', () => {
    it('keeps the report range of presence changes and drops the days older than it whole', async () => {
        const [a] = ids;
        await s.db.insert(devicePresence).values(
            [100, 94, 93.5, 92].map((days) => ({
                deviceId: a,
                ts: new Date(NOW.getTime() - days * 86_400_000),
                online: true,
            })),
        );
        const count = async () =>
            (await s.db.select().from(devicePresence).where(eq(devicePresence.deviceId, a))).length;
        const before = await count();
        // The back-dated rows waited in the default partition; maintenance gives each its day.
        await maintainPartitions(s.db, NOW);
        const day = (days: number) =>
            `device_presence_p${utcDay(NOW.getTime() - days * 86_400_000).replaceAll('-', '')}`;
        const dropped = await sweepOldPresence(s.db, PRESENCE_RETENTION_DAYS, { now: () => NOW });
        expect(dropped).toEqual(expect.arrayContaining([day(100), day(94), day(93.5)]));
        expect(dropped).not.toContain(day(92));
        expect(await count()).toBe(before - 3);
    });
});
