import { COORDINATE_KEY, DEVICE_TAG_TYPE } from '../../schemas/tag';
import { tags } from '../db/schema';
import type { DemoContext } from './context';
import { DEMO_DEVICES } from './devices';

/** Key/value tags of a few demo devices (keys: letters, digits, dots; values: the consumer-group character set). */
export const DEMO_TAGS: Record<string, Array<[key: string, value: string]>> = {
    'SL-BJ-0001': [
        ['area', '东城区'],
        ['pole.no', 'DC-0451'],
    ],
    'SL-BJ-0002': [['area', '东城区']],
    'MC-SH-0001': [
        ['area', '黄浦区'],
        ['owner', '市政养护一队'],
    ],
    'AQ-SH-01': [
        ['building', 'A3'],
        ['floor', '1F'],
    ],
    'GW-FAC-01': [
        ['workshop', '一号车间'],
        ['ip', '192.168.10.2'],
    ],
    'EM-FAC-01-01': [['modbus.addr', '1']],
    'EM-FAC-01-02': [['modbus.addr', '2']],
};

/**
 * Demo tags: a `coordinate` tag ('lat,lng') on every demo device that has a location, matching its latitude and
 * longitude, plus the key/value tags above.
 */
export async function insertDemoTags(ctx: DemoContext): Promise<void> {
    const rows: Array<typeof tags.$inferInsert> = [];
    for (const d of DEMO_DEVICES) {
        const objectId = ctx.deviceIds.get(d.deviceName);
        if (objectId === undefined) throw new Error(`seed: unknown device ${d.deviceName}`);
        const at = (i: number) => new Date(ctx.now.getTime() - (60 - i) * 60 * 1000);
        if (d.location) {
            const [lng, lat] = d.location;
            rows.push({
                type: DEVICE_TAG_TYPE,
                objectId,
                key: COORDINATE_KEY,
                value: `${lat},${lng}`,
                createTime: at(0),
            });
        }
        for (const [i, [key, value]] of (DEMO_TAGS[d.deviceName] ?? []).entries()) {
            rows.push({ type: DEVICE_TAG_TYPE, objectId, key, value, createTime: at(i + 1) });
        }
    }
    if (rows.length) await ctx.tx.insert(tags).values(rows);
}
