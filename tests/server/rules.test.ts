import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compileConditions, conditionHolds, inTimeWindow } from '../../server/rules/evaluate';
import type { Condition } from '../../server/rules/types';
import { createTestServer, type TestServer } from '../../server/testing';
import { startBroker, until, type Broker } from './mqttSupport';
import { alertsOf, api, journalOf, lamp, ok, online, type Device } from './rulesSupport';

let s: TestServer;
let broker: Broker;
let url: string;
const devices: Device[] = [];

beforeAll(async () => {
    s = await createTestServer();
    ({ broker, url } = await startBroker(s));
});

afterAll(async () => {
    for (const d of devices) d.client.end(true);
    await broker?.close();
    await s?.close();
});

async function device() {
    const d = await online(url, await lamp(s));
    devices.push(d);
    return d;
}

/** A scene rule on the lamp product, enabled; answers its id. */
async function rule(d: { productKey: string; deviceName?: string }, body: Record<string, unknown>) {
    const { id } = await ok<{ id: number }>(s, 'POST', '/api/rule/save', {
        name: `规则${Math.random().toString(36).slice(2, 8)}`,
        productKey: d.productKey,
        deviceName: d.deviceName,
        ...body,
    });
    return id;
}

const highPower = (threshold = 100) => [
    { source: 'property', identifier: 'ActivePower', operator: '>', value: threshold },
];
const lightOn = { type: 'setProperty', identifier: 'LightSwitch', value: 1 };
const severe = { type: 'alert', level: 2, content: '${deviceName} 功率过高：${value} W' };

describe('rule validation against the thing model (400 in Chinese)', () => {
    it.each([
        [{ triggers: [] }, '请至少添加一个触发条件'],
        [{ triggers: [{ type: 'property', identifier: 'NoSuch' }] }, '触发条件第 1 行：属性 NoSuch 不在产品的物模型中'],
        [
            { conditions: [{ source: 'property', identifier: 'FirmwareVersion', operator: '>', value: 'a' }] },
            '过滤条件第 1 行：FirmwareVersion 的数据类型为 text，只能比较等于或不等于',
        ],
        [
            { conditions: [{ source: 'property', identifier: 'ActivePower', operator: '>', value: 5000 }] },
            '过滤条件第 1 行的比较值不能大于 2000',
        ],
        [
            { actions: [{ type: 'setProperty', identifier: 'ActivePower', value: 1 }] },
            '执行动作第 1 行：属性 ActivePower 为只读，不能设置',
        ],
        [
            { actions: [{ type: 'setProperty', identifier: 'Brightness', value: 300 }] },
            '执行动作第 1 行：属性 Brightness 的值不能大于 100',
        ],
        [
            { actions: [{ type: 'alert', level: 4, content: 'x' }] },
            '执行动作第 1 行：请选择告警级别（1 紧急、2 严重、3 一般）',
        ],
        [
            { triggers: [{ type: 'schedule', cron: 'every day' }] },
            '触发条件第 1 行：cron 表达式不正确（如 0 8 * * * 表示每天 8 点）',
        ],
        [{ actions: [] }, '请至少添加一个执行动作'],
        [{ timeWindow: { start: '25:00', end: '08:00' } }, '生效时段格式应为 HH:mm'],
    ])('refuses %j', async (patch, msg) => {
        const { productKey } = await lamp(s);
        const before = await ok<{ total: number }>(s, 'GET', '/api/rule/list');
        const r = await api(s, 'POST', '/api/rule/save', {
            name: '校验',
            productKey,
            triggers: [{ type: 'property' }],
            actions: [severe],
            ...patch,
        });
        expect(r.status).toBe(400);
        expect(r.body.msg).toBe(msg);
        expect((await ok<{ total: number }>(s, 'GET', '/api/rule/list')).total).toBe(before.total);
    });

    it('deletes one trigger, condition or action row, keeping at least one trigger and action', async () => {
        const d = await lamp(s);
        const id = await rule(d, {
            enabled: false,
            triggers: [{ type: 'property' }, { type: 'status', status: 'online' }],
            conditions: highPower(),
            actions: [severe, lightOn],
        });
        const detail = await ok<{
            triggers: Array<{ id: string }>;
            conditions: Array<{ id: string }>;
            actions: Array<{ id: string }>;
        }>(s, 'GET', `/api/rule/detail?id=${id}`);
        await ok(s, 'POST', '/api/rule/trigger/delete', { ruleId: id, id: detail.triggers[1].id });
        await ok(s, 'POST', '/api/rule/condition/delete', { ruleId: id, id: detail.conditions[0].id });
        await ok(s, 'POST', '/api/rule/action/delete', { ruleId: id, id: detail.actions[0].id });
        const after = await ok<typeof detail>(s, 'GET', `/api/rule/detail?id=${id}`);
        expect([after.triggers.length, after.conditions.length, after.actions.length]).toEqual([1, 0, 1]);
        const last = await api(s, 'POST', '/api/rule/action/delete', { ruleId: id, id: after.actions[0].id });
        expect([last.status, last.body.msg]).toEqual([400, '规则至少需要一条执行动作']);
    });
});

describe('operators and windows', () => {
    const c = (operator: Condition['operator'], value: unknown, value2?: unknown): Condition => ({
        id: 'c',
        source: 'property',
        identifier: 'x',
        operator,
        value,
        value2,
    });
    it.each([
        ['>', 30, undefined, [31, 30]],
        ['>=', 30, undefined, [30, 29]],
        ['<', 30, undefined, [29, 30]],
        ['<=', 30, undefined, [30, 31]],
        ['==', 1, undefined, [1, 0]],
        ['!=', 1, undefined, [0, 1]],
        ['between', 10, 20, [20, 21]],
    ] as const)('operator %s %s (%s)', (op, v, v2, [yes, no]) => {
        expect(conditionHolds(c(op, v, v2), { properties: { x: yes } })).toBe(true);
        expect(conditionHolds(c(op, v, v2), { properties: { x: no } })).toBe(false);
        expect(conditionHolds(c(op, v, v2), { properties: {} })).toBe(false);
        // The engine's compiled form says the same.
        for (const x of [yes, no, undefined, String(yes)]) {
            const input = { properties: { x } };
            expect(compileConditions([c(op, v, v2)], 'all')(input)).toBe(conditionHolds(c(op, v, v2), input));
        }
    });

    it('all and any over several conditions', () => {
        const two = [c('>', 10), { ...c('==', 'on'), identifier: 'y' }];
        expect(compileConditions(two, 'all')({ properties: { x: 11, y: 'on' } })).toBe(true);
        expect(compileConditions(two, 'all')({ properties: { x: 11, y: 'off' } })).toBe(false);
        expect(compileConditions(two, 'any')({ properties: { x: 1, y: 'on' } })).toBe(true);
        expect(compileConditions(two, 'any')({ properties: { x: 1, y: 'off' } })).toBe(false);
        expect(compileConditions([], 'all')({ properties: {} })).toBe(true);
    });

    it('time windows in the server zone, also over midnight', () => {
        const at = (hhmm: string) => new Date(`2026-01-01T${hhmm}:00+08:00`);
        expect(inTimeWindow({ start: '08:00', end: '18:00' }, at('09:30'), 'Asia/Shanghai')).toBe(true);
        expect(inTimeWindow({ start: '08:00', end: '18:00' }, at('18:00'), 'Asia/Shanghai')).toBe(false);
        expect(inTimeWindow({ start: '22:00', end: '06:00' }, at('23:10'), 'Asia/Shanghai')).toBe(true);
        expect(inTimeWindow({ start: '22:00', end: '06:00' }, at('05:59'), 'Asia/Shanghai')).toBe(true);
        expect(inTimeWindow({ start: '22:00', end: '06:00' }, at('12:00'), 'Asia/Shanghai')).toBe(false);
    });
});

describe('property trigger: alert, action, de-duplication, recovery', () => {
    it('above the threshold raises one 严重 alert and switches the light on; below it clears; above again opens a new one', async () => {
        const d = await device();
        const id = await rule(d, {
            triggers: [{ type: 'property', identifier: 'ActivePower' }],
            conditions: highPower(),
            actions: [severe, lightOn],
        });
        await d.post({ ActivePower: 50 });
        await d.post({ ActivePower: 150 });
        await until(async () => (await alertsOf(s, id)).length === 1 && d.sets.length === 1);
        expect(d.sets[0].params).toEqual({ LightSwitch: 1 });
        let alerts = await alertsOf(s, id);
        expect(alerts[0]).toMatchObject({ level: 2, status: 0, open: true, params: `${d.deviceName} 功率过高：150 W` });
        // Still above: no second alert, no second command.
        await d.post({ ActivePower: 160 });
        await d.post({ ActivePower: 170 });
        await until(async () => (await journalOf(s, id)).length === 1);
        await s.rules.drain();
        expect((await alertsOf(s, id)).length).toBe(1);
        // Back below: cleared automatically (handled with the auto remark).
        await d.post({ ActivePower: 20 });
        await until(async () => (await alertsOf(s, id))[0].open === false);
        alerts = await alertsOf(s, id);
        expect(alerts[0]).toMatchObject({ status: 1, remark: '条件恢复，自动清除' });
        await d.post({ ActivePower: 180 });
        await until(async () => (await journalOf(s, id)).length === 2);
        expect(await alertsOf(s, id)).toHaveLength(2);
        const journal = await journalOf(s, id);
        expect(journal).toHaveLength(2);
        expect(journal[0]).toMatchObject({ triggerType: 'property', success: true, deviceName: d.deviceName });
        expect(journal[0].input).toMatchObject({ values: { ActivePower: 180 } });
        expect(journal[0].results.map((r) => r.type)).toEqual(['alert', 'setProperty']);
        // The dashboard's alert list reads the same table.
        const dash = await ok<{ records: Array<{ params: string }> }>(
            s,
            'GET',
            '/api/alert-log/list?status=0&pageSize=5',
        );
        expect(dash.records.some((r) => r.params === `${d.deviceName} 功率过高：180 W`)).toBe(true);
    });

    it('an `any` rule fires through either condition and recovers only when neither holds', async () => {
        const d = await device();
        const id = await rule(d, {
            triggers: [{ type: 'property' }],
            match: 'any',
            conditions: [
                ...highPower(1000),
                { source: 'property', identifier: 'Brightness', operator: 'between', value: 90, value2: 95 },
            ],
            actions: [severe],
        });
        await d.post({ ActivePower: 10, Brightness: 50 });
        await d.post({ Brightness: 92 });
        await until(async () => (await alertsOf(s, id)).length === 1);
        // The other condition starts to hold while the first still does: the same alert stays open.
        await d.post({ ActivePower: 1500 });
        await d.post({ Brightness: 10 });
        await s.rules.drain();
        expect(await alertsOf(s, id)).toMatchObject([{ open: true }]);
        await d.post({ ActivePower: 20 });
        await until(async () => (await alertsOf(s, id))[0].open === false);
        expect(await journalOf(s, id)).toHaveLength(1);
    });

    it('a rule that does not auto-clear keeps its alert pending after recovery until handled', async () => {
        const d = await device();
        const id = await rule(d, {
            triggers: [{ type: 'property' }],
            conditions: highPower(),
            actions: [severe],
            autoClear: false,
        });
        await d.post({ ActivePower: 500 });
        await until(async () => (await alertsOf(s, id)).length === 1);
        await d.post({ ActivePower: 5 });
        await until(async () => (await alertsOf(s, id))[0].recoverTime !== null);
        expect((await alertsOf(s, id))[0]).toMatchObject({ status: 0, open: true });
        const [alert] = await alertsOf(s, id);
        const r = await api(s, 'POST', '/api/alert-log/handle', { ids: [alert.id], remark: '' });
        expect([r.status, r.body.msg]).toEqual([400, '请输入处理备注']);
        expect(await ok(s, 'POST', '/api/alert-log/handle', { ids: [alert.id], remark: '已更换<b>灯具</b>' })).toEqual({
            handled: 1,
        });
        expect((await alertsOf(s, id))[0]).toMatchObject({ status: 1, open: false, remark: '已更换<b>灯具</b>' });
    });

    it('a duration fires only after the condition held that long (by timer, no further message)', async () => {
        const d = await device();
        const id = await rule(d, {
            triggers: [{ type: 'property' }],
            conditions: highPower(),
            durationSeconds: 1,
            actions: [severe],
        });
        await d.post({ ActivePower: 300 });
        await until(() => s.rules.counters.evaluated > 0);
        await new Promise((r) => setTimeout(r, 300));
        expect(await alertsOf(s, id)).toHaveLength(0);
        await until(async () => (await alertsOf(s, id)).length === 1, 4_000);
        // A dip below before the duration resets it.
        const id2 = await rule(d, {
            triggers: [{ type: 'property' }],
            conditions: highPower(1000),
            durationSeconds: 1,
            actions: [severe],
        });
        await d.post({ ActivePower: 1500 });
        await d.post({ ActivePower: 10 });
        await new Promise((r) => setTimeout(r, 1_400));
        await s.rules.drain();
        expect(await alertsOf(s, id2)).toHaveLength(0);
    });

    it('a time window that excludes now keeps the rule from firing', async () => {
        const d = await device();
        const hour = (h: number) => `${String(h % 24).padStart(2, '0')}:00`;
        const local = Number(
            new Intl.DateTimeFormat('en-GB', { timeZone: 'Asia/Shanghai', hour: '2-digit', hourCycle: 'h23' }).format(
                new Date(),
            ),
        );
        const outside = await rule(d, {
            triggers: [{ type: 'property' }],
            conditions: highPower(),
            actions: [severe],
            timeWindow: { start: hour(local + 2), end: hour(local + 3) },
        });
        const inside = await rule(d, {
            triggers: [{ type: 'property' }],
            conditions: highPower(),
            actions: [severe],
            timeWindow: { start: hour(local), end: hour(local + 1) },
        });
        await d.post({ ActivePower: 400 });
        await until(async () => (await alertsOf(s, inside)).length === 1);
        await s.rules.drain();
        expect(await alertsOf(s, outside)).toHaveLength(0);
    });
});

describe('event, status and schedule triggers', () => {
    it('an event with a matching field raises an alert once while it is open; handling closes it', async () => {
        const d = await device();
        const id = await rule(d, {
            triggers: [{ type: 'event', identifier: 'LampFault' }],
            conditions: [{ source: 'event', identifier: 'LampFault', field: 'FaultCode', operator: '==', value: 2 }],
            actions: [{ type: 'alert', level: 1, content: '${deviceName} 电源异常' }],
        });
        await d.event('LampFault', { FaultCode: 1 });
        await d.event('LampFault', { FaultCode: 2 });
        await d.event('LampFault', { FaultCode: 2 });
        await until(async () => (await journalOf(s, id)).length === 2);
        await s.rules.drain();
        const alerts = await alertsOf(s, id);
        expect(alerts).toHaveLength(1);
        expect(alerts[0]).toMatchObject({ level: 1, params: `${d.deviceName} 电源异常` });
        // Two firings, one alert: the other says why (which one is first depends on timing on PostgreSQL's pool).
        const messages = (await journalOf(s, id)).map((j) => j.results[0].message);
        expect(messages.filter((m) => m === '该设备已有未关闭的同一规则告警，未重复产生')).toHaveLength(1);
        expect(messages.filter((m) => /^已产生告警（#\d+）：/.test(m))).toHaveLength(1);
        await ok(s, 'POST', '/api/alert-log/handle', { ids: [alerts[0].id], remark: '已派单' });
        expect((await alertsOf(s, id))[0].open).toBe(false);
        await d.event('LampFault', { FaultCode: 2 });
        await until(async () => (await alertsOf(s, id)).length === 2);
    });

    it('a status change fires the status trigger', async () => {
        const base = await lamp(s);
        const id = await rule(base, {
            triggers: [{ type: 'status', status: 'online' }],
            actions: [{ type: 'alert', level: 3, content: '${deviceName} 上线' }],
        });
        const d = await online(url, base);
        devices.push(d);
        await until(async () => (await journalOf(s, id)).length === 1);
        expect((await journalOf(s, id))[0]).toMatchObject({
            triggerType: 'status',
            input: { status: 'online' },
            success: true,
        });
    });

    it('a cron schedule fires for the devices whose stored values hold', async () => {
        const d = await device();
        await d.post({ ActivePower: 900 });
        await until(async () => (await ok<{ total: number }>(s, 'GET', `/api/alert-log/list`)).total >= 0);
        const id = await rule(d, {
            triggers: [{ type: 'schedule', cron: '* * * * * *' }],
            conditions: highPower(800),
            actions: [lightOn],
        });
        await until(async () => (await journalOf(s, id)).length >= 1, 4_000);
        await ok(s, 'POST', '/api/rule/enable', { id, enabled: false });
        const [first] = await journalOf(s, id);
        expect(first).toMatchObject({ triggerType: 'schedule', deviceName: d.deviceName, success: true });
        await until(() => d.sets.some((m) => (m.params as Record<string, unknown>).LightSwitch === 1));
    });
});

describe('failures', () => {
    it('an action that fails is recorded and the rule keeps running', async () => {
        const d = await device();
        const offline = await lamp(s);
        const id = await rule(d, {
            triggers: [{ type: 'property' }],
            conditions: highPower(),
            actions: [{ ...lightOn, deviceName: offline.deviceName }, severe],
        });
        await d.post({ ActivePower: 200 });
        await until(async () => (await journalOf(s, id)).length === 1);
        const [entry] = await journalOf(s, id);
        expect(entry.success).toBe(false);
        expect(entry.results[0]).toMatchObject({ type: 'setProperty', ok: false });
        expect(entry.results[0].message).toContain('设备不在线');
        expect(entry.results[1]).toMatchObject({ type: 'alert', ok: true });
        await d.post({ ActivePower: 10 });
        await d.post({ ActivePower: 210 });
        await until(async () => (await journalOf(s, id)).length === 2);
    });
});
