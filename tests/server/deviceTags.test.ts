import { eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TAG_MESSAGES } from '../../schemas/tag';
import { devices, tags } from '../../server/db/schema';
import { DEMO_DEVICES } from '../../server/seed/devices';
import { createTestServer, type TestServer } from '../../server/testing';
import { call, form, rowCounts } from './support';
import { createDevice, createProduct, type TestProduct } from './devicesSupport';

let s: TestServer;
let product: TestProduct;

beforeAll(async () => {
    s = await createTestServer();
    product = await createProduct(s);
});
afterAll(() => s?.close());

interface Tag {
    id: number;
    key: string;
    value: string;
}

const items = (list: Array<Partial<Tag>>) => JSON.stringify(list);

async function save(objectId: number, list: Array<Partial<Tag>>, extra: Record<string, string | number> = {}) {
    return call(s, 'POST', '/api/tag/save', form({ type: 2, objectId, items: items(list), ...extra }));
}

async function tagsOf(objectId: number): Promise<Tag[]> {
    const answer = await call(s, 'GET', `/api/tag/get?type=2&objectId=${objectId}`);
    expect(answer.status).toBe(200);
    return (answer.body.data as { list: Tag[] }).list;
}

async function location(deviceId: number) {
    const [row] = await s.db
        .select({ latitude: devices.latitude, longitude: devices.longitude, addr: devices.addr })
        .from(devices)
        .where(eq(devices.id, deviceId));
    return row;
}

/** Every tag and every device's location, to prove a refusal changed nothing. */
async function snapshot() {
    const tagRows = await s.db.select().from(tags).orderBy(tags.id);
    const places = await s.db
        .select({ id: devices.id, lat: devices.latitude, lng: devices.longitude, addr: devices.addr })
        .from(devices)
        .orderBy(devices.id);
    return { rows: await rowCounts(s.db), tagRows, places };
}

/** Expects the general-family refusal with this message and status, and nothing written. */
async function expectRefused(method: string, target: string, init: RequestInit, msg: string, status = 400) {
    const before = await snapshot();
    const answer = await call(s, method, target, init);
    expect(answer.body, target).toEqual({ code: status, msg });
    expect(answer.status).toBe(status);
    expect(await snapshot()).toEqual(before);
}

const saveForm = (objectId: number, list: unknown, extra: Record<string, string | number> = {}) =>
    form({ type: 2, objectId, items: typeof list === 'string' ? list : JSON.stringify(list), ...extra });

describe('tags: get, list, save', () => {
    it('answers a new device with no tags under both names', async () => {
        const d = await createDevice(s, product.productKey);
        expect(await tagsOf(d.deviceId)).toEqual([]);
        const list = await call(s, 'GET', `/api/tag/list?objectId=${d.deviceId}&type=2`);
        expect(list.body).toEqual({ code: 200, msg: 'success', data: { list: [] } });
    });

    it('inserts items, answers the object tags, and a coordinate tag with addr places the device', async () => {
        const d = await createDevice(s, product.productKey);
        const answer = await save(
            d.deviceId,
            [
                { key: 'coordinate', value: '31.230416,121.473701' },
                { key: 'floor', value: '3F' },
                { key: 'room.no', value: '会议室-301:A' },
            ],
            { addr: '上海市黄浦区人民大道200号' },
        );
        expect(answer.status).toBe(200);
        const list = (answer.body.data as { list: Tag[] }).list;
        expect(list.map(({ key, value }) => ({ key, value }))).toEqual([
            { key: 'coordinate', value: '31.230416,121.473701' },
            { key: 'floor', value: '3F' },
            { key: 'room.no', value: '会议室-301:A' },
        ]);
        expect(list.every((t) => Number.isInteger(t.id) && t.id > 0)).toBe(true);
        expect(await tagsOf(d.deviceId)).toEqual(list);
        expect(await location(d.deviceId)).toEqual({
            latitude: 31.230416,
            longitude: 121.473701,
            addr: '上海市黄浦区人民大道200号',
        });
    });

    it('updates by id, keeps tags it does not name, and lets two tags swap keys in one save', async () => {
        const d = await createDevice(s, product.productKey);
        const first = (
            (
                await save(d.deviceId, [
                    { key: 'a', value: '1' },
                    { key: 'b', value: '2' },
                    { key: 'c', value: '3' },
                ])
            ).body.data as { list: Tag[] }
        ).list;
        const [a, b, c] = first;
        const answer = await save(d.deviceId, [
            { id: a.id, key: 'b', value: 'was-a' },
            { id: b.id, key: 'a', value: 'was-b' },
            { key: 'd', value: '4' },
        ]);
        expect(answer.status, JSON.stringify(answer.body)).toBe(200);
        const after = await tagsOf(d.deviceId);
        expect(after.slice(0, 3)).toEqual([
            { id: a.id, key: 'b', value: 'was-a' },
            { id: b.id, key: 'a', value: 'was-b' },
            c,
        ]);
        expect(after[3]).toMatchObject({ key: 'd', value: '4' });
        expect(after).toHaveLength(4);
    });

    it('moves the device when the coordinate tag is updated, and leaves addr alone when none is sent', async () => {
        const d = await createDevice(s, product.productKey, { addr: '原地址' });
        const [tag] = (
            (await save(d.deviceId, [{ key: 'coordinate', value: '39.9,116.4' }])).body.data as { list: Tag[] }
        ).list;
        expect(await location(d.deviceId)).toEqual({ latitude: 39.9, longitude: 116.4, addr: '原地址' });
        await save(d.deviceId, [{ id: tag.id, key: 'coordinate', value: ' 31.2 , 121.6 ' }]);
        expect(await location(d.deviceId)).toEqual({ latitude: 31.2, longitude: 121.6, addr: '原地址' });
    });

    it('takes the device off the map when the coordinate tag is renamed to another key', async () => {
        const d = await createDevice(s, product.productKey);
        const [tag] = (
            (await save(d.deviceId, [{ key: 'coordinate', value: '39.9,116.4' }], { addr: '北京' })).body.data as {
                list: Tag[];
            }
        ).list;
        await save(d.deviceId, [{ id: tag.id, key: 'pos', value: 'north' }]);
        expect(await tagsOf(d.deviceId)).toEqual([{ id: tag.id, key: 'pos', value: 'north' }]);
        expect(await location(d.deviceId)).toEqual({ latitude: null, longitude: null, addr: null });
    });

    it('accepts a JSON body with items as an array', async () => {
        const d = await createDevice(s, product.productKey);
        const answer = await call(s, 'POST', '/api/tag/save', {
            body: JSON.stringify({ type: 2, objectId: d.deviceId, items: [{ key: 'k', value: 'v' }] }),
            headers: { 'content-type': 'application/json' },
        });
        expect(answer.status).toBe(200);
        expect((await tagsOf(d.deviceId)).map((t) => t.key)).toEqual(['k']);
    });

    it('gives every located demo device a coordinate tag that matches its position', async () => {
        const located = DEMO_DEVICES.filter((d) => d.location);
        expect(located.length).toBeGreaterThan(3);
        for (const demo of located) {
            const [row] = await s.db
                .select({ id: devices.id, lat: devices.latitude, lng: devices.longitude })
                .from(devices)
                .where(eq(devices.deviceName, demo.deviceName));
            const coordinate = (await tagsOf(Number(row.id))).find((t) => t.key === 'coordinate');
            expect(coordinate?.value, demo.deviceName).toBe(`${row.lat},${row.lng}`);
        }
        const unlocated = DEMO_DEVICES.find((d) => !d.location)!;
        const [row] = await s.db
            .select({ id: devices.id })
            .from(devices)
            .where(eq(devices.deviceName, unlocated.deviceName));
        expect((await tagsOf(Number(row.id))).some((t) => t.key === 'coordinate')).toBe(false);
    });
});

describe('tags: refusals write nothing', () => {
    let deviceId: number;
    let stored: Tag[];
    beforeAll(async () => {
        const d = await createDevice(s, product.productKey);
        deviceId = d.deviceId;
        stored = ((await save(deviceId, [{ key: 'floor', value: '3F' }])).body.data as { list: Tag[] }).list;
    });

    it.each([
        ['an empty key', [{ key: '', value: 'v' }], TAG_MESSAGES.keyRequired],
        ['a blank key', [{ key: '   ', value: 'v' }], TAG_MESSAGES.keyRequired],
        ['a missing key', [{ value: 'v' }], TAG_MESSAGES.keyRequired],
        ['a key of 31 characters', [{ key: 'k'.repeat(31), value: 'v' }], TAG_MESSAGES.keyMax],
        ['a key with a space', [{ key: 'a b', value: 'v' }], TAG_MESSAGES.keyCharset],
        ['a key in Chinese', [{ key: '楼层', value: 'v' }], TAG_MESSAGES.keyCharset],
        ['a key with an underscore', [{ key: 'a_b', value: 'v' }], TAG_MESSAGES.keyCharset],
        ['an empty value', [{ key: 'k', value: '' }], TAG_MESSAGES.valueRequired],
        ['a blank value', [{ key: 'k', value: '   ' }], TAG_MESSAGES.valueRequired],
        ['a value of 129 characters', [{ key: 'k', value: 'v'.repeat(129) }], TAG_MESSAGES.valueMax],
        ['a value with markup', [{ key: 'k', value: '<b>x</b>' }], TAG_MESSAGES.valueCharset],
        ['a value with a space', [{ key: 'k', value: 'a b' }], TAG_MESSAGES.valueCharset],
        ['a malformed coordinate', [{ key: 'coordinate', value: '121.6' }], TAG_MESSAGES.coordinate],
        ['a coordinate out of range', [{ key: 'coordinate', value: '91,121.6' }], TAG_MESSAGES.coordinate],
        [
            'the same key twice',
            [
                { key: 'k', value: '1' },
                { key: 'k', value: '2' },
            ],
            TAG_MESSAGES.keyDuplicate,
        ],
        ['51 tags', Array.from({ length: 51 }, (_, i) => ({ key: `k${i}`, value: 'v' })), TAG_MESSAGES.tooMany],
        ['items that are not JSON', 'not json', '标签数据格式不正确'],
        ['items that are not a list', '{"key":"k"}', '标签数据格式不正确'],
        ['an item that is not an object', '["k"]', '标签数据格式不正确'],
        ['an id that is not a number', [{ id: 'x', key: 'k', value: 'v' }], '标签数据格式不正确'],
    ])('refuses %s', async (_name, list, msg) => {
        await expectRefused('POST', '/api/tag/save', saveForm(deviceId, list), msg);
    });

    it('refuses the whole save when one item of several fails (all or nothing)', async () => {
        await expectRefused(
            'POST',
            '/api/tag/save',
            saveForm(deviceId, [
                { key: 'coordinate', value: '31.2,121.6' },
                { key: 'good', value: 'ok' },
                { key: 'bad key', value: 'x' },
            ]),
            TAG_MESSAGES.keyCharset,
        );
    });

    it('refuses a key another tag of the object already has (409)', async () => {
        await expectRefused(
            'POST',
            '/api/tag/save',
            saveForm(deviceId, [{ key: 'floor', value: '5F' }]),
            TAG_MESSAGES.keyDuplicate,
            409,
        );
        // Renaming a tag onto another's key is the same clash.
        const [other] = (
            (await save(deviceId, [{ key: 'room', value: '301' }])).body.data as { list: Tag[] }
        ).list.filter((t) => t.key === 'room');
        await expectRefused(
            'POST',
            '/api/tag/save',
            saveForm(deviceId, [{ id: other.id, key: 'floor', value: '5F' }]),
            TAG_MESSAGES.keyDuplicate,
            409,
        );
    });

    it('refuses more than 50 tags on the object after the save', async () => {
        const d = await createDevice(s, product.productKey);
        await save(
            d.deviceId,
            Array.from({ length: 50 }, (_, i) => ({ key: `k${i}`, value: 'v' })),
        );
        await expectRefused(
            'POST',
            '/api/tag/save',
            saveForm(d.deviceId, [{ key: 'one.more', value: 'v' }]),
            TAG_MESSAGES.tooMany,
        );
    });

    it('refuses an id that is not a tag of this object (404)', async () => {
        const other = await createDevice(s, product.productKey);
        const [foreign] = ((await save(other.deviceId, [{ key: 'x', value: '1' }])).body.data as { list: Tag[] }).list;
        await expectRefused(
            'POST',
            '/api/tag/save',
            saveForm(deviceId, [{ id: foreign.id, key: 'x', value: '2' }]),
            '标签不存在',
            404,
        );
        await expectRefused(
            'POST',
            '/api/tag/save',
            saveForm(deviceId, [{ id: 99999999, key: 'x', value: '2' }]),
            '标签不存在',
            404,
        );
    });

    it('refuses an address over 200 characters', async () => {
        await expectRefused(
            'POST',
            '/api/tag/save',
            saveForm(deviceId, [{ key: 'coordinate', value: '31.2,121.6' }], { addr: '路'.repeat(201) }),
            '地址不得超过200个字符',
        );
    });

    it('refuses any type but 2, and an unknown or missing device, on every call', async () => {
        for (const type of ['1', '3', '', 'x']) {
            await expectRefused('GET', `/api/tag/get?type=${type}&objectId=${deviceId}`, {}, '不支持的标签类型');
            await expectRefused('GET', `/api/tag/list?type=${type}&objectId=${deviceId}`, {}, '不支持的标签类型');
            await expectRefused(
                'POST',
                '/api/tag/save',
                form({ type, objectId: deviceId, items: items([{ key: 'k', value: 'v' }]) }),
                '不支持的标签类型',
            );
            await expectRefused(
                'POST',
                '/api/tag/delete',
                form({ type, objectId: deviceId, id: stored[0].id }),
                '不支持的标签类型',
            );
        }
        await expectRefused('GET', '/api/tag/get?objectId=1', {}, '不支持的标签类型');
        await expectRefused('GET', '/api/tag/get?type=2&objectId=99999999', {}, '设备不存在', 404);
        await expectRefused('GET', '/api/tag/list?type=2', {}, '缺少设备ID');
        await expectRefused('POST', '/api/tag/save', saveForm(99999999, [{ key: 'k', value: 'v' }]), '设备不存在', 404);
        await expectRefused(
            'POST',
            '/api/tag/delete',
            form({ type: 2, objectId: 99999999, id: stored[0].id }),
            '设备不存在',
            404,
        );
    });
});

describe('tags: delete', () => {
    it('deletes one tag and answers null; the others stay', async () => {
        const d = await createDevice(s, product.productKey);
        const [a, b] = (
            (
                await save(d.deviceId, [
                    { key: 'a', value: '1' },
                    { key: 'b', value: '2' },
                ])
            ).body.data as { list: Tag[] }
        ).list;
        const answer = await call(s, 'POST', '/api/tag/delete', form({ id: a.id, objectId: d.deviceId, type: 2 }));
        expect(answer.status).toBe(200);
        expect(answer.body).toEqual({ code: 200, msg: 'success', data: null });
        expect(await tagsOf(d.deviceId)).toEqual([b]);
    });

    it('takes the device off the map when the coordinate tag is deleted', async () => {
        const d = await createDevice(s, product.productKey);
        const [coordinate] = (
            (await save(d.deviceId, [{ key: 'coordinate', value: '31.2,121.6' }], { addr: '张江' })).body.data as {
                list: Tag[];
            }
        ).list;
        expect(await location(d.deviceId)).toEqual({ latitude: 31.2, longitude: 121.6, addr: '张江' });
        await call(s, 'POST', '/api/tag/delete', form({ id: coordinate.id, objectId: d.deviceId, type: 2 }));
        expect(await location(d.deviceId)).toEqual({ latitude: null, longitude: null, addr: null });
    });

    it('answers 删除失败 (404) for an unknown tag or a tag of another device, deleting nothing', async () => {
        const d = await createDevice(s, product.productKey);
        const other = await createDevice(s, product.productKey);
        const [foreign] = ((await save(other.deviceId, [{ key: 'x', value: '1' }])).body.data as { list: Tag[] }).list;
        await expectRefused(
            'POST',
            '/api/tag/delete',
            form({ id: foreign.id, objectId: d.deviceId, type: 2 }),
            '删除失败',
            404,
        );
        await expectRefused(
            'POST',
            '/api/tag/delete',
            form({ id: 99999999, objectId: d.deviceId, type: 2 }),
            '删除失败',
            404,
        );
        await expectRefused('POST', '/api/tag/delete', form({ id: 'x', objectId: d.deviceId, type: 2 }), '缺少标签ID');
        expect(await tagsOf(other.deviceId)).toEqual([foreign]);
    });
});

describe('tags of deleted devices', () => {
    it('go with the device, in the same statement, and only theirs', async () => {
        const gone = await createDevice(s, product.productKey);
        const kept = await createDevice(s, product.productKey);
        await save(gone.deviceId, [{ key: 'a', value: '1' }]);
        await save(kept.deviceId, [{ key: 'a', value: '1' }]);
        const count = async (id: number) =>
            Number(
                (
                    await s.db
                        .select({ n: sql<number>`count(*)::int` })
                        .from(tags)
                        .where(eq(tags.objectId, id))
                )[0].n,
            );
        expect(await count(gone.deviceId)).toBe(1);
        await s.fetch(`/api/device?deviceId=${gone.deviceId}`, { method: 'DELETE' });
        expect(await count(gone.deviceId)).toBe(0);
        expect(await count(kept.deviceId)).toBe(1);
    });
});
