import { inArray, sql } from 'drizzle-orm';
import { devices } from '../db/schema';
import { PROPERTY_POST } from '../domain/telemetry';
import type { DemoContext } from './context';

/**
 * Demo property values, history and messages for the demo devices whose products have a thing model: two days of
 * reports ending now for online devices and at their last connection for the others (none for never-connected
 * ones), the latest values, a few alarms and service calls. Values follow each product's thing model and a day's
 * rhythm (lamps on at night, meters busy in working hours, rooms warmer in the afternoon). Deterministic per device.
 */

const MINUTE = 60 * 1000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
const HISTORY = 2 * DAY;

type Values = Record<string, number | string>;

interface Model {
    /** Time between two reports. */
    step: number;
    /**
     * The values reported at `at`; called in time order, so it may accumulate (energy, battery). `events` are the
     * times of the device's demo events, so the values can agree with them (an opened cover reports it).
     */
    reporter(deviceIndex: number, random: () => number, events: number[]): (at: Date) => Values;
}

/** mulberry32: a small seeded PRNG, so the demo is the same on every start. */
function prng(seed: number): () => number {
    let a = seed >>> 0;
    return () => {
        a = (a + 0x6d2b79f5) >>> 0;
        let t = a;
        t = Math.imul(t ^ (t >>> 15), t | 1);
        t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
        return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
    };
}

function hash(text: string): number {
    let h = 2166136261;
    for (const ch of text) h = Math.imul(h ^ ch.charCodeAt(0), 16777619);
    return h >>> 0;
}

const round = (value: number, digits: number) => Math.round(value * 10 ** digits) / 10 ** digits;
/** Hour of day in China (UTC+8, no daylight saving), with minutes as a fraction. */
const hourOf = (at: Date) => (at.getUTCHours() + 8 + at.getUTCMinutes() / 60) % 24;
const daily = (at: Date, peakHour: number) => Math.cos(((hourOf(at) - peakHour) / 24) * 2 * Math.PI);

const MODELS: Record<string, Model> = {
    智能路灯_L1: {
        step: 10 * MINUTE,
        reporter(index, random) {
            let energy = 1520 + index * 137.5;
            return (at) => {
                const hour = hourOf(at);
                const on = hour >= 18.5 || hour < 6;
                const brightness = on ? (hour >= 23 || hour < 5 ? 50 : 90) : 0;
                const power = on ? round(brightness * 1.2 + random() * 4, 1) : round(0.8 + random() * 0.4, 1);
                energy += (power * 10) / 60 / 1000;
                return {
                    LightSwitch: on ? 1 : 0,
                    Brightness: brightness,
                    ActivePower: power,
                    TotalEnergy: round(energy, 2),
                    WorkMode: 1,
                    FirmwareVersion: 'V2.3.1',
                };
            };
        },
    },
    智能井盖_M2: {
        step: 30 * MINUTE,
        reporter(index, random, events) {
            let battery = 88 - index * 7;
            let n = 0;
            return (at) => {
                if (++n % 24 === 0) battery -= 1;
                // Open for the half hour after an opening alarm, then closed again by the maintenance crew.
                const open = events.some((t) => at.getTime() >= t && at.getTime() < t + 30 * MINUTE);
                return {
                    CoverState: open ? 1 : 0,
                    TiltAngle: round(open ? 35 + random() * 20 : 0.5 + random() * 1.5, 1),
                    BatteryLevel: battery,
                };
            };
        },
    },
    三相电表_E1: {
        step: 10 * MINUTE,
        reporter(index, random) {
            let energy = 86_400 + index * 23_000;
            const scale = index === 0 ? 1 : 0.4;
            return (at) => {
                const hour = hourOf(at);
                const busy = hour >= 8 && hour < 20;
                const voltage = round(220 + 3 * daily(at, 4) + random() * 2 - 1, 1);
                const current = round((busy ? 35 + random() * 10 : 8 + random() * 3) * scale, 2);
                energy += (3 * voltage * current * 10) / 60 / 1000;
                return { Voltage: voltage, Current: current, TotalEnergy: round(energy, 2) };
            };
        },
    },
    // An edge gateway's own figures (the edge instance's 监控 tab): busier in working hours, disk slowly filling.
    边缘网关_G1: {
        step: 5 * MINUTE,
        reporter(index, random) {
            let disk = 42 + index * 6;
            return (at) => {
                const busy = Math.max(0, daily(at, 14));
                disk = Math.min(95, disk + 0.002);
                const up = Math.round(60 + 240 * busy + random() * 30);
                return {
                    cpuUsage: round(18 + 35 * busy + random() * 8, 1),
                    memUsage: round(52 + 12 * busy + random() * 4, 1),
                    diskUsage: round(disk, 1),
                    msgUp: up,
                    msgDown: Math.round(up / 12 + random() * 3),
                };
            };
        },
    },
    // The light sensor of the lamps' scene rule: the sun's arc from 06:00 to 18:00, PM2.5 higher in the rush hours.
    空气质量监测站: {
        step: 15 * MINUTE,
        reporter(index, random) {
            return (at) => {
                const hour = hourOf(at);
                const sun = hour > 6 && hour < 18 ? Math.sin((Math.PI * (hour - 6)) / 12) : 0;
                const rush = Math.exp(-((hour - 8) ** 2) / 2) + Math.exp(-((hour - 18) ** 2) / 2);
                return {
                    Illuminance: Math.round(5 + 45_000 * sun * (0.7 + random() * 0.3)),
                    PM25: Math.round(26 + 30 * rush + random() * 8 + index * 3),
                };
            };
        },
    },
    温湿度传感器_T1: {
        step: 15 * MINUTE,
        reporter(index, random) {
            let battery = 92 - index * 5;
            let n = 0;
            return (at) => {
                if (++n % 64 === 0) battery -= 1;
                return {
                    Temperature: round(23 + 2.5 * daily(at, 15) + random() * 0.6 - 0.3, 1),
                    Humidity: round(48 - 6 * daily(at, 15) + random() * 2, 1),
                    BatteryLevel: battery,
                };
            };
        },
    },
};

/** Events and service calls: [deviceName, minutes before the device's last report, method, identifier, data]. */
const MESSAGES: Array<[string, number, string, string, Record<string, unknown>]> = [
    ['SL-BJ-0001', 35, 'thing.event.LampFault.post', 'LampFault', { FaultCode: 2 }],
    ['SL-BJ-0001', 125, 'thing.service.SetSchedule', 'SetSchedule', sched('18:30', '06:00', 1)],
    ['SL-BJ-0001', 20 * 60, 'thing.event.LampFault.post', 'LampFault', { FaultCode: 1 }],
    ['SL-BJ-0001', 5 * 24 * 60, 'thing.event.LampFault.post', 'LampFault', { FaultCode: 3 }],
    ['SL-BJ-0001', 6 * 24 * 60, 'thing.service.SetSchedule', 'SetSchedule', sched('18:00', '06:30', 1)],
    ['SL-BJ-0001', 20 * 24 * 60, 'thing.event.LampFault.post', 'LampFault', { FaultCode: 1 }],
    ['SL-BJ-0002', 3 * 60, 'thing.event.LampFault.post', 'LampFault', { FaultCode: 3 }],
    ['SL-BJ-0002', 26 * 60, 'thing.service.SetSchedule', 'SetSchedule', sched('18:30', '06:00', 0)],
    ['SL-BJ-0003', 10, 'thing.event.LampFault.post', 'LampFault', { FaultCode: 3 }],
    ['MC-SH-0001', 45, 'thing.event.CoverOpened.post', 'CoverOpened', {}],
    ['MC-SH-0001', 4 * 24 * 60, 'thing.event.CoverOpened.post', 'CoverOpened', {}],
    ['MC-SH-0002', 120, 'thing.event.CoverOpened.post', 'CoverOpened', {}],
];

function sched(onTime: string, offTime: string, result: 0 | 1) {
    return { input: { OnTime: onTime, OffTime: offTime }, output: { Result: result } };
}

/** Set values the console asked for (a rw property's desired value). */
const DESIRED: Array<[string, string, number]> = [['SL-BJ-0001', 'Brightness', 90]];

interface Row {
    d: number;
    i: string | null;
    t: string;
}

export async function insertDemoTelemetry(ctx: DemoContext): Promise<void> {
    const { tx, now } = ctx;
    const ids = [...ctx.deviceIds.values()];
    if (ids.length === 0) return;
    const rows = await tx
        .select({
            id: devices.id,
            name: devices.deviceName,
            status: devices.status,
            lastTime: devices.lastTime,
            productId: devices.productId,
        })
        .from(devices)
        .where(inArray(devices.id, ids))
        .orderBy(devices.id);
    const productNames = new Map([...ctx.productIds].map(([name, p]) => [p.id, name]));
    const messages: Array<Row & { m: string; data: unknown }> = [];
    /** device_latest rows: identifier -> { v, t } and the desired values. */
    const latest = new Map<
        number,
        { d: number; p: Record<string, { v: unknown; t: number }>; desired: Record<string, unknown>; t: string }
    >();
    const lastReport = new Map<string, number>();
    const indexInProduct = new Map<string, number>();

    for (const device of rows) {
        const productName = productNames.get(device.productId);
        const model = productName ? MODELS[productName] : undefined;
        if (!model || !device.lastTime) continue;
        const index = indexInProduct.get(productName!) ?? 0;
        indexInProduct.set(productName!, index + 1);
        const random = prng(hash(device.name));
        // Online devices report until now; the others stopped when they last went offline.
        const end = device.status === 'ONLINE' ? now.getTime() : device.lastTime.getTime();
        const last = end - Math.floor(random() * model.step);
        const events = MESSAGES.filter((m) => m[0] === device.name && m[2].startsWith('thing.event.')).map(
            (m) => last - m[1] * MINUTE,
        );
        const report = model.reporter(index, random, events);
        const count = Math.floor(HISTORY / model.step);
        for (let k = count - 1; k >= 0; k--) {
            const at = new Date(last - k * model.step);
            const t = at.toISOString();
            const values = report(at);
            let row = latest.get(device.id);
            if (!row) latest.set(device.id, (row = { d: device.id, p: {}, desired: {}, t }));
            for (const [identifier, v] of Object.entries(values)) row.p[identifier] = { v, t: at.getTime() };
            row.t = t;
            messages.push({ d: device.id, i: null, t, m: PROPERTY_POST, data: values });
        }
        lastReport.set(device.name, last);
    }
    for (const [name, minutes, method, identifier, data] of MESSAGES) {
        const last = lastReport.get(name);
        const id = ctx.deviceIds.get(name);
        if (last === undefined || id === undefined) continue;
        messages.push({ d: id, i: identifier, t: new Date(last - minutes * MINUTE).toISOString(), m: method, data });
    }
    for (const [name, identifier, desired] of DESIRED) {
        const row = latest.get(ctx.deviceIds.get(name)!);
        if (row?.p[identifier]) row.desired[identifier] = desired;
    }
    if (latest.size === 0) return;

    // One statement per table with the rows as one JSON parameter: a few thousand rows in milliseconds, and far
    // below the 65,535-parameter limit a multi-row VALUES would hit.
    await tx.execute(sql`
        INSERT INTO device_latest (device_id, props, desired, ts)
        SELECT d, p, desired, t FROM jsonb_to_recordset(${JSON.stringify([...latest.values()])}::jsonb)
             AS x(d bigint, p jsonb, desired jsonb, t timestamptz)`);
    messages.sort((a, b) => a.t.localeCompare(b.t));
    await tx.execute(sql`
        INSERT INTO device_messages (device_id, ts, method, identifier, data, product_id)
        SELECT x.d, x.t, x.m, x.i, x.data, dev.product_id
        FROM jsonb_to_recordset(${JSON.stringify(messages)}::jsonb) AS x(d bigint, t timestamptz, m text, i text, data jsonb)
        JOIN devices dev ON dev.id = x.d`);
}
