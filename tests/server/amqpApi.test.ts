import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestServer, type TestServer } from '../../server/testing';
import { ok200 } from './amqpSupport';
import { call, form, rowCounts } from './support';
import { lampProduct } from './telemetrySupport';

/** The console's calls for subscriptions, consumer groups and AccessKeys: validation, the default group, secrets. */

let s: TestServer;

beforeAll(async () => {
    s = await createTestServer();
});

afterAll(async () => {
    await s?.close();
});

function refused(answer: { status: number; body: unknown }, status: number, msg: string) {
    expect({ status: answer.status, body: answer.body }).toEqual({ status, body: { code: status, msg } });
}

async function lampProject() {
    const product = await lampProduct(s);
    const products = ok200<Array<{ productKey: string; projectCode: string }>>(
        await call(s, 'GET', '/api/subscription/products'),
    );
    return { ...product, projectCode: products.find((p) => p.productKey === product.productKey)!.projectCode };
}

describe('consumer groups', () => {
    it("every project has a group named 'default' from its creation, and it cannot be deleted", async () => {
        const { projectCode } = await lampProject();
        const list = ok200<{ records: Array<{ id: number; name: string; createTime: string }> }>(
            await call(s, 'GET', `/api/consumerGroup/list?projectCode=${projectCode}&pageNumber=1&pageSize=10`),
        );
        const def = list.records.find((g) => g.name === 'default')!;
        expect(def.createTime).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/);
        refused(await call(s, 'POST', '/api/consumerGroup/delete', form({ id: def.id })), 400, '默认消费者组不能删除');
    });

    it.each([
        ['', '请输入消费者组名称，须以英文字母开头'],
        ['1abc', '须以英文字母开头'],
        ['a'.repeat(31), '长度不能超过30'],
        ['a b', 'Value支持中文、英文字母、数字、下划线（_）、中划线（-）、点号（.）以及半角冒号（:）'],
    ])('refuses the name %j with %s, writing nothing', async (name, msg) => {
        const { projectCode } = await lampProject();
        const before = await rowCounts(s.db);
        refused(await call(s, 'POST', '/api/consumerGroup/save', form({ projectCode, name })), 400, msg);
        expect(await rowCounts(s.db)).toEqual(before);
    });

    it('accepts the SPEC character set, refuses a duplicate name in the project, edits and deletes', async () => {
        const { projectCode } = await lampProject();
        const created = ok200<{ id: number; name: string }>(
            await call(s, 'POST', '/api/consumerGroup/save', form({ projectCode, name: 'a组_1-2.3:4' })),
        );
        expect(created.name).toBe('a组_1-2.3:4');
        refused(
            await call(s, 'POST', '/api/consumerGroup/save', form({ projectCode, name: 'a组_1-2.3:4' })),
            409,
            '该项目下已有同名消费者组',
        );
        const edited = ok200<{ name: string }>(
            await call(s, 'POST', '/api/consumerGroup/save', form({ id: created.id, projectCode, name: 'renamed' })),
        );
        expect(edited.name).toBe('renamed');
        ok200(await call(s, 'POST', '/api/consumerGroup/delete', form({ id: created.id })));
        refused(await call(s, 'GET', `/api/consumerGroup/detail?id=${created.id}`), 404, '消费者组不存在');
    });
});

describe('subscriptions', () => {
    it.each([
        [{ group: '1', message: 'post' }, '请选择产品'],
        [{ productKey: 'X', message: 'post' }, '请选择消费者组'],
        [{ productKey: 'X', group: '1' }, '请选择消息类型'],
        [{ productKey: 'X', group: '1', message: 'status' }, '请选择消息类型'],
    ])('refuses %j with %s', async (values, msg) => {
        refused(await call(s, 'POST', '/api/subscription/save', form(values)), 400, msg);
    });

    it('creates one subscription per product, lists it, shows it on the device, edits and deletes it by ProductKey', async () => {
        const { productKey, productId, projectCode } = await lampProject();
        const groups = ok200<{ records: Array<{ id: number; name: string }> }>(
            await call(s, 'GET', `/api/consumerGroup/list?projectCode=${projectCode}`),
        ).records;
        const def = groups.find((g) => g.name === 'default')!;
        const created = ok200<{ id: number; msgType: string; groups: Array<{ name: string }> }>(
            await call(
                s,
                'POST',
                '/api/subscription/save',
                form({ projectCode, productKey, group: String(def.id), message: 'post' }),
            ),
        );
        expect(created).toMatchObject({ msgType: 'AMQP', groups: [{ name: 'default' }] });
        refused(
            await call(
                s,
                'POST',
                '/api/subscription/save',
                form({ projectCode, productKey, group: String(def.id), message: 'post' }),
            ),
            409,
            '该产品已有订阅，请编辑已有订阅',
        );
        const other = await createGroupIn('P_NONE_EXISTING');
        expect(other).toBeUndefined();
        const list = ok200<{ records: Array<{ productKey: string; createTime: string }>; total: number }>(
            await call(s, 'GET', `/api/subscription/list?pageNumber=1&pageSize=5&productId=${productId}`),
        );
        expect(list.records[0].productKey).toBe(productKey);
        const detail = ok200<{ consumerGroup: { list: Array<{ queueId: number; queueName: string }> } }>(
            await call(s, 'GET', `/api/subscription/detail?id=${created.id}`),
        );
        expect(detail.consumerGroup.list).toEqual([{ queueId: def.id, queueName: 'default' }]);
        const devices = await call(s, 'GET', `/api/device/list?pageNumber=1&pageSize=1&productKey=${productKey}`);
        const deviceId = (devices.body as { data: { records: Array<{ deviceId: number }> } }).data.records[0].deviceId;
        const onDevice = ok200<{ records: Array<{ groupName: string; msgType: string }> }>(
            await call(s, 'GET', `/api/subscription/device?deviceId=${deviceId}`),
        );
        expect(onDevice.records).toMatchObject([{ groupName: 'default', msgType: 'AMQP' }]);
        refused(await call(s, 'POST', '/api/consumerGroup/delete', form({ id: def.id })), 400, '默认消费者组不能删除');
        const second = ok200<{ id: number }>(
            await call(s, 'POST', '/api/consumerGroup/save', form({ projectCode, name: 'second' })),
        );
        const edited = ok200<{ groups: Array<{ name: string }> }>(
            await call(
                s,
                'POST',
                '/api/subscription/edit',
                form({ id: created.id, productKey, group: `${def.id},${second.id}`, message: 'post' }),
            ),
        );
        expect(edited.groups.map((g) => g.name)).toEqual(['default', 'second']);
        refused(
            await call(s, 'POST', '/api/consumerGroup/delete', form({ id: second.id })),
            400,
            '该消费者组已被订阅使用，请先在订阅中移除',
        );
        const deleted = await call(s, 'POST', '/api/subscription/delete', form({ productKey }));
        expect(deleted.body).toEqual({ code: 200, msg: '删除成功！', data: null });
        refused(await call(s, 'GET', `/api/subscription/detail?id=${created.id}`), 404, '订阅不存在');
    });

    async function createGroupIn(projectCode: string) {
        const answer = await call(s, 'POST', '/api/consumerGroup/save', form({ projectCode, name: 'x' }));
        expect(answer.status).toBe(400);
        return undefined;
    }
});

describe('AccessKeys', () => {
    it('shows the secret once: the list never answers it; disabled and deleted keys change the list', async () => {
        const created = ok200<{ id: number; accessKey: string; accessSecret: string; enabled: boolean }>(
            await call(s, 'POST', '/api/accessKey/create'),
        );
        expect(created.accessSecret).toMatch(/^[A-Za-z0-9_-]{30}$/);
        expect(created.enabled).toBe(true);
        const list = await call(s, 'GET', '/api/accessKey/list');
        expect(JSON.stringify(list.body)).not.toContain(created.accessSecret);
        const disabled = ok200<{ enabled: boolean; status: string }>(
            await call(s, 'POST', '/api/accessKey/enable', form({ id: created.id, enabled: 'false' })),
        );
        expect(disabled).toMatchObject({ enabled: false, status: '禁用' });
        expect(JSON.stringify(disabled)).not.toContain(created.accessSecret);
        ok200(await call(s, 'POST', '/api/accessKey/delete', form({ id: created.id })));
        refused(await call(s, 'POST', '/api/accessKey/delete', form({ id: created.id })), 404, 'AccessKey 不存在');
    });
});
