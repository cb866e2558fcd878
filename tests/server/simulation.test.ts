import { eq, inArray } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { devices, simulations } from '../../server/db/schema';
import { propertyHistory } from '../../server/domain/telemetry';
import { createSimulator } from '../../server/simulation/simulator';
import { checkValue } from '../../server/mqtt/thingValues';
import { createTestServer, type TestServer } from '../../server/testing';
import { startBroker, until, type Broker } from './mqttSupport';
import { call, form, json } from './support';
import { lampProduct } from './telemetrySupport';

/**
 * The simulator with real clients: simulated devices are mqtt.js clients signing in through the broker with their
 * own secrets, over in-process streams; what they post goes through the broker's checks into the tables.
 */

let s: TestServer;
let broker: Broker;
const log: string[] = [];

interface SimulationRow {
    id: number;
    deviceCount: number;
    firstDeviceId: number;
    deviceNames: string[];
    running: boolean;
    connected: number;
    messagesSent: number;
    mode: string;
}

type Json = Record<string, unknown>;

const ok = <T>(answer: { status: number; body: Json }) => {
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    expect(answer.body.code).toBe(200);
    return answer.body.data as T;
};

async function list(): Promise<SimulationRow[]> {
    return ok<{ records: SimulationRow[] }>(await call(s, 'GET', '/api/simulation/list?pageNumber=1&pageSize=50'))
        .records;
}

async function simulation(id: number): Promise<SimulationRow> {
    return (await list()).find((r) => r.id === id)!;
}

async function deviceIdsOf(id: number): Promise<number[]> {
    const rows = await s.db.execute<{ device_id: string }>(
        `SELECT device_id FROM simulation_devices WHERE simulation_id = ${id} ORDER BY position` as never,
    );
    return (rows as unknown as { rows: Array<{ device_id: string | number }> }).rows.map((r) => Number(r.device_id));
}

async function statuses(ids: number[]): Promise<string[]> {
    const rows = await s.db.select({ status: devices.status }).from(devices).where(inArray(devices.id, ids));
    return rows.map((r) => r.status);
}

interface PropertyRow {
    identifier: string;
    value: unknown;
    timestamp: string | null;
    dataType?: unknown;
}

async function properties(deviceId: number): Promise<PropertyRow[]> {
    const answer = await call(s, 'GET', `/api/device/properties?deviceId=${deviceId}`);
    return (answer.body.data as { properties: PropertyRow[] }).properties ?? (answer.body.data as PropertyRow[]);
}

beforeAll(async () => {
    s = await createTestServer();
    ({ broker } = await startBroker(s, log));
});

afterAll(async () => {
    await s?.simulator.close();
    await broker?.close();
    await s?.close();
});

describe('a simulation of three new devices', () => {
    let id: number;
    let ids: number[];

    it('creates three sim_XXXX devices and starts them: ONLINE within a moment', async () => {
        const product = await lampProduct(s);
        const created = ok<{ id: number; running: boolean }>(
            await call(
                s,
                'POST',
                '/api/simulation/save',
                form({ productId: product.productId, amount: 3, intervalSeconds: 1, mode: 'random', events: 'true' }),
            ),
        );
        expect(created.running).toBe(true);
        id = created.id;
        ids = await deviceIdsOf(id);
        expect(ids).toHaveLength(3);
        const row = await simulation(id);
        expect(row.deviceNames.every((n) => /^sim_[A-Z0-9]{4}$/.test(n))).toBe(true);
        await until(async () => (await statuses(ids)).every((st) => st === 'ONLINE'), 5_000);
        expect((await simulation(id)).connected).toBe(3);
    });

    it('stores their properties within a few intervals, each value within the thing model', async () => {
        await until(async () => (await properties(ids[0])).filter((p) => p.timestamp).length >= 6, 5_000);
        const model = await broker.directory.model((await lampProduct(s)).productId);
        for (const deviceId of ids) {
            await until(async () => (await properties(deviceId)).some((p) => p.timestamp), 5_000);
            for (const p of await properties(deviceId)) {
                if (!p.timestamp) continue;
                const fn = model.properties.get(p.identifier)!;
                expect(checkValue(fn.dataType, p.value), `${p.identifier}=${JSON.stringify(p.value)}`).toBeUndefined();
            }
        }
        // A second interval changes the figures.
        const before = (await simulation(id)).messagesSent;
        await until(async () => (await simulation(id)).messagesSent > before, 3_000);
    });

    it('answers a property set and a service call from the console with code 200, and reports the set value', async () => {
        const device = async (path: string, values: Record<string, string | number>) => {
            const answer = await call(s, 'POST', path, form(values));
            expect(answer.status, JSON.stringify(answer.body)).toBe(200);
            expect(answer.body.code).toBe(0);
            return answer.body.data as { state: string; code: number };
        };
        expect(
            await device('/api/device/propertyTestSet', {
                deviceId: ids[1],
                params: JSON.stringify({ Brightness: 42 }),
            }),
        ).toMatchObject({ state: 'replied', code: 200 });
        // The simulated device reports the value it took: it is in the property's history.
        await until(async () => {
            const { list } = await propertyHistory(
                s.db,
                {
                    deviceId: ids[1],
                    identifier: 'Brightness',
                    start: new Date(Date.now() - 3_600_000),
                    end: new Date(Date.now() + 60_000),
                    ascending: false,
                    limit: 100,
                    offset: 0,
                },
                'UTC',
            );
            return list.some((r) => r.value === 42);
        }, 5_000);
        expect(
            await device('/api/device/serviceTestSet', {
                deviceId: ids[1],
                identifier: 'SetSchedule',
                params: JSON.stringify({ OnTime: '18:00' }),
                sync: 'true',
            }),
        ).toMatchObject({ state: 'replied', code: 200 });
    });

    it('answers a synchronous service through RRPC (rrpc/request, rrpc/response) with outputs of its model', async () => {
        const floor = { type: 'int', specs: { min: '1', max: '9', step: '1' } };
        const saved = await call(
            s,
            'POST',
            '/api/function/save',
            json({
                productId: (await lampProduct(s)).productId,
                type: 'service',
                identifier: 'Locate',
                name: '定位',
                callType: 'sync',
                inputData: [],
                outputData: [{ identifier: 'Floor', name: '楼层', dataType: floor }],
            }),
        );
        expect(saved.status, JSON.stringify(saved.body)).toBe(200);
        // The broker reads the model again within a few seconds (thingModels.ts MODEL_TTL_MS).
        let answer: Json = {};
        await until(async () => {
            const a = await call(
                s,
                'POST',
                '/api/device/serviceTestSet',
                form({ deviceId: ids[1], identifier: 'Locate' }),
            );
            answer = a.body;
            return a.body.code === 0;
        }, 6_000);
        expect(answer.data).toMatchObject({ state: 'replied', code: 200, rrpcCode: 'SUCCESS' });
        const { Floor } = (answer.data as { data: { Floor: number } }).data;
        expect(Floor >= 1 && Floor <= 9 && Number.isInteger(Floor)).toBe(true);
    });

    it('stop: every device OFFLINE, the simulation stopped', async () => {
        ok(await call(s, 'POST', '/api/simulation/stop', form({ id })));
        await until(async () => (await statuses(ids)).every((st) => st === 'OFFLINE'), 5_000);
        const row = await simulation(id);
        expect(row).toMatchObject({ running: false, connected: 0 });
        expect(row.messagesSent).toBeGreaterThan(3);
    });

    it('a running simulation resumes when the server starts again', async () => {
        ok(await call(s, 'POST', '/api/simulation/start', form({ id })));
        await until(async () => (await statuses(ids)).every((st) => st === 'ONLINE'), 5_000);
        // The process stops: its simulated connections end, the row stays marked running.
        await s.simulator.close();
        await until(async () => (await statuses(ids)).every((st) => st === 'OFFLINE'), 5_000);
        const [row] = await s.db.select().from(simulations).where(eq(simulations.id, id));
        expect(row.running).toBe(true);
        // A new process: its simulator resumes what was running.
        const next = createSimulator({ db: s.db, access: s.access, log: () => undefined });
        expect(await next.resume()).toBe(1);
        await until(async () => (await statuses(ids)).every((st) => st === 'ONLINE'), 5_000);
        await next.stop(id);
        await until(async () => (await statuses(ids)).every((st) => st === 'OFFLINE'), 5_000);
        await next.close();
    });
});

describe('fixed values and chosen devices', () => {
    it('posts the fixed values given per identifier, typed by the thing model', async () => {
        const product = await lampProduct(s);
        const made = ok<{ id: number }>(
            await call(
                s,
                'POST',
                '/api/simulation/save',
                form({
                    productId: product.productId,
                    amount: 1,
                    intervalSeconds: 1,
                    mode: 'fixed',
                    fixedValues: JSON.stringify({ Brightness: '77', FirmwareVersion: 'v1.2.3' }),
                }),
            ),
        );
        const [deviceId] = await deviceIdsOf(made.id);
        await until(async () => {
            const props = await properties(deviceId);
            return props.find((p) => p.identifier === 'Brightness')?.value === 77;
        }, 5_000);
        const props = await properties(deviceId);
        expect(props.find((p) => p.identifier === 'FirmwareVersion')?.value).toBe('v1.2.3');
        expect(props.find((p) => p.identifier === 'ActivePower')?.timestamp ?? null).toBeNull();
        ok(await call(s, 'DELETE', `/api/simulation/delete?id=${made.id}`));
        await until(async () => (await statuses([deviceId]))[0] === 'OFFLINE', 5_000);
        expect((await list()).some((r) => r.id === made.id)).toBe(false);
    });

    it('refuses bad input in Chinese with 400', async () => {
        const product = await lampProduct(s);
        const refused = async (values: Record<string, string | number>, msg: string) => {
            const answer = await call(s, 'POST', '/api/simulation/save', form(values));
            expect({ status: answer.status, msg: answer.body.msg }).toEqual({ status: 400, msg });
        };
        const base = { productId: product.productId, amount: 1, intervalSeconds: 5, mode: 'random' };
        await refused({ ...base, intervalSeconds: 0 }, '上报间隔须为1~3600秒的整数');
        await refused({ ...base, intervalSeconds: 3601 }, '上报间隔须为1~3600秒的整数');
        await refused({ ...base, amount: 0 }, '请选择设备或填写新建模拟设备数量');
        await refused({ ...base, mode: 'other' }, '请选择取值方式');
        await refused({ ...base, mode: 'fixed' }, '固定取值时请至少填写一个属性的值');
        await refused(
            { ...base, mode: 'fixed', fixedValues: JSON.stringify({ Brightness: 101 }) },
            '属性 Brightness 的固定值不能大于 100',
        );
        await refused({ ...base, mode: 'fixed', fixedValues: '{' }, '参数 fixedValues 应为 JSON 对象');
        await refused({ ...base, productId: 999999 }, '产品不存在');
        const other = await call(s, 'GET', '/api/device/list?pageNumber=1&pageSize=1&deviceName=SL-BJ-0001');
        const foreign = (other.body.data as { records: Array<{ deviceId: number; productId: number }> }).records[0];
        const otherProduct = (await call(s, 'GET', `/api/product?pageNumber=1&pageSize=50`)).body.data as {
            records: Array<{ productId: number; productName: string }>;
        };
        const notLamp = otherProduct.records.find(
            (p) => p.productId !== foreign.productId && p.productName.includes('井盖'),
        )!;
        await refused(
            { ...base, productId: notLamp.productId, amount: 0, deviceIds: foreign.deviceId },
            '所选设备不存在或不属于该产品',
        );
    });
});

describe("SPEC's one-device calls", () => {
    it('onLine, sendProperty, sendEvent, offLine', async () => {
        const product = await lampProduct(s);
        const made = ok<{ id: number }>(
            await call(
                s,
                'POST',
                '/api/simulation/save',
                form({
                    productId: product.productId,
                    amount: 1,
                    intervalSeconds: 3600,
                    mode: 'random',
                    start: 'false',
                }),
            ),
        );
        const [deviceId] = await deviceIdsOf(made.id);
        const notYet = await call(s, 'POST', '/api/simulation/sendProperty', form({ deviceId }));
        expect(notYet.status).toBe(400);
        expect(notYet.body.msg).toBe('设备未通过模拟上线，请先调用 onLine');
        ok(await call(s, 'POST', '/api/simulation/onLine', form({ deviceId })));
        await until(async () => (await statuses([deviceId]))[0] === 'ONLINE', 5_000);
        ok(await call(s, 'POST', '/api/simulation/sendProperty', form({ deviceId, params: '{"Brightness":12}' })));
        await until(
            async () => (await properties(deviceId)).find((p) => p.identifier === 'Brightness')?.value === 12,
            5_000,
        );
        ok(await call(s, 'POST', '/api/simulation/sendEvent', form({ deviceId, identifier: 'LampFault' })));
        const unknown = await call(s, 'POST', '/api/simulation/sendEvent', form({ deviceId, identifier: 'Nope' }));
        expect(unknown.body.msg).toBe('事件 Nope 未在物模型中定义');
        ok(await call(s, 'POST', '/api/simulation/offLine', form({ deviceId })));
        await until(async () => (await statuses([deviceId]))[0] === 'OFFLINE', 5_000);
        // A disabled device is refused by the broker, and onLine says so.
        expect((await call(s, 'PUT', `/api/device/update?deviceId=${deviceId}&action=disable`)).body.code).toBe(0);
        const refused = await call(s, 'POST', '/api/simulation/onLine', form({ deviceId }));
        expect(refused.status).toBe(400);
        expect(String(refused.body.msg)).toMatch(/^设备上线失败：/);
    });
});
