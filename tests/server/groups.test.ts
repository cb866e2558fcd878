import { asc } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deviceGroups, devices, groupDevices, tags } from '../../server/db/schema';
import { createTestServer, type TestServer } from '../../server/testing';
import { call, form, rowCounts } from './support';
import { createDevice, createProduct, listForm, type DeviceRow, type TestProduct } from './devicesSupport';
import { eq } from 'drizzle-orm';

let s: TestServer;
let product: TestProduct;

beforeAll(async () => {
    // Without demo content: the lists and counts below are exactly what these tests make. Two projects are made here.
    s = await createTestServer({ seed: false });
    const { projects, scenes } = await import('../../server/db/schema');
    const [scene] = await s.db.select().from(scenes).limit(1);
    await s.db.insert(projects).values([
        { code: 'PA', name: '项目甲', classId: scene.id },
        { code: 'PB', name: '项目乙', classId: scene.id },
    ]);
    product = await createProduct(s, { productName: '分组测试产品' });
});
afterAll(() => s?.close());

interface Group {
    groupId: number;
    groupName: string;
    parentId: number;
    level: number;
    projectCode: string;
    projectName: string | null;
    remark: string | null;
    createTime: string;
}

let n = 0;
const uniqueName = (prefix = '分组') => `${prefix}_${n++}`;

async function create(values: Record<string, string | number>) {
    return call(s, 'POST', '/api/group/save', form({ projectCode: 'PA', pid: 0, name: uniqueName(), ...values }));
}

async function made(values: Record<string, string | number> = {}): Promise<Group> {
    const answer = await create(values);
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    return answer.body.data as Group;
}

/** A root, its child and grandchild (levels 1, 2, 3). */
async function tree(projectCode = 'PA') {
    const l1 = await made({ projectCode });
    const l2 = await made({ projectCode, pid: l1.groupId });
    const l3 = await made({ projectCode, pid: l2.groupId });
    return { l1, l2, l3 };
}

/** Every group row and membership, to prove a refused call changed nothing (not even a level). */
async function snapshot() {
    return {
        counts: await rowCounts(s.db),
        groups: await s.db.select().from(deviceGroups).orderBy(asc(deviceGroups.id)),
        members: await s.db.select().from(groupDevices).orderBy(asc(groupDevices.groupId), asc(groupDevices.deviceId)),
    };
}

async function refused(method: string, target: string, init: RequestInit, message: string, status = 400) {
    const before = await snapshot();
    const answer = await call(s, method, target, init);
    expect(answer.body, target).toEqual({ returnCode: '9999', returnMessage: message });
    expect(answer.status).toBe(status);
    expect(await snapshot()).toEqual(before);
}

const data = <T>(answer: { body: unknown }) => (answer.body as { data: T }).data;

describe('create', () => {
    it('builds three levels; the answer carries returnCode 1111 and code 200', async () => {
        const root = await create({ name: '北京市照明', remark: '城区' });
        expect(root.body).toMatchObject({ returnCode: '1111', code: 200 });
        const l1 = data<Group>(root);
        expect(l1).toMatchObject({
            groupName: '北京市照明',
            parentId: 0,
            level: 1,
            projectCode: 'PA',
            projectName: '项目甲',
            remark: '城区',
        });
        expect(l1.createTime).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/);
        const l2 = await made({ pid: l1.groupId, name: '东城区' });
        const l3 = await made({ pid: l2.groupId, name: '长安街东段' });
        expect([l2.level, l2.parentId, l3.level, l3.parentId]).toEqual([2, l1.groupId, 3, l2.groupId]);
    });

    it('refuses a fourth level, writing nothing', async () => {
        const { l3 } = await tree();
        await refused(
            'POST',
            '/api/group/save',
            form({ projectCode: 'PA', pid: l3.groupId, name: '第四级分组' }),
            '第三级分组不能作为父组',
        );
    });

    it('refuses a parent from another project, and an unknown parent or project', async () => {
        const other = await made({ projectCode: 'PB' });
        await refused(
            'POST',
            '/api/group/save',
            form({ projectCode: 'PA', pid: other.groupId, name: '跨项目分组' }),
            '父分组属于其他项目',
        );
        await refused(
            'POST',
            '/api/group/save',
            form({ projectCode: 'PA', pid: 999999, name: '无父分组' }),
            '父分组不存在',
            404,
        );
        await refused(
            'POST',
            '/api/group/save',
            form({ projectCode: 'NOPE', pid: 0, name: '无项目分组' }),
            '项目不存在',
            404,
        );
    });

    it('refuses a name a sibling has; the same name elsewhere is fine', async () => {
        const root = await made({ name: '同名测试根' });
        await made({ pid: root.groupId, name: '同名子分组' });
        await refused(
            'POST',
            '/api/group/save',
            form({ projectCode: 'PA', pid: root.groupId, name: '同名子分组' }),
            '分组名称已存在',
            409,
        );
        await refused(
            'POST',
            '/api/group/save',
            form({ projectCode: 'PA', pid: 0, name: '同名测试根' }),
            '分组名称已存在',
            409,
        );
        const other = await made({ name: '同名测试根2' });
        expect((await made({ pid: other.groupId, name: '同名子分组' })).level).toBe(2);
        expect((await made({ projectCode: 'PB', name: '同名测试根' })).projectCode).toBe('PB');
    });

    it('answers the form messages of SPEC.md', async () => {
        const save = (values: Record<string, string | number>) => form({ projectCode: 'PA', ...values });
        await refused('POST', '/api/group/save', save({ pid: '', name: '合法名称' }), '请选择父组!');
        await refused('POST', '/api/group/save', save({ name: '合法名称' }), '请选择父组!');
        await refused('POST', '/api/group/save', save({ pid: 0, name: '  ' }), '请输入分组名称!');
        await refused('POST', '/api/group/save', save({ pid: 0, name: 'abc' }), '分组名称长度限制4~30，中文算2位');
        await refused('POST', '/api/group/save', save({ pid: 0, name: '一' }), '分组名称长度限制4~30，中文算2位');
        await refused(
            'POST',
            '/api/group/save',
            save({ pid: 0, name: '中'.repeat(16) }),
            '分组名称长度限制4~30，中文算2位',
        );
        await refused(
            'POST',
            '/api/group/save',
            save({ pid: 0, name: 'ab-cd' }),
            '分组名称支持中文、英文字母、数字和下划线',
        );
        await refused('POST', '/api/group/save', form({ pid: 0, name: '合法名称' }), '请选择项目');
        // Two Chinese characters are 4: the shortest name allowed.
        expect((await made({ name: '东区' })).groupName).toBe('东区');
    });
});

describe('update', () => {
    it('edits the description and renames', async () => {
        const g = await made({ remark: '旧描述' });
        const answer = await call(s, 'POST', '/api/group/update', form({ groupId: g.groupId, remark: '新描述' }));
        expect(answer.body).toMatchObject({ returnCode: '1111', data: { groupId: g.groupId, remark: '新描述' } });
        const renamed = data<Group>(
            await call(s, 'POST', '/api/group/update', form({ groupId: g.groupId, name: '改名分组', remark: '' })),
        );
        expect(renamed).toMatchObject({ groupName: '改名分组', remark: null, level: 1 });
        await refused(
            'POST',
            '/api/group/update',
            form({ groupId: g.groupId, name: 'a-b' }),
            '分组名称长度限制4~30，中文算2位',
        );
        await refused('POST', '/api/group/update', form({ groupId: 999999, remark: 'x' }), '分组不存在', 404);
    });

    it('moves a group with its subgroups, re-levelling them', async () => {
        const a = await tree();
        const b = await made();
        // Move the level-2 group (with its level-3 child) to the top: they become levels 1 and 2.
        const moved = data<Group>(await call(s, 'POST', '/api/group/update', form({ groupId: a.l2.groupId, pid: 0 })));
        expect(moved).toMatchObject({ parentId: 0, level: 1 });
        const detail = data<{ level: number }>(await call(s, 'GET', `/api/group/detail?groupId=${a.l3.groupId}`));
        expect(detail.level).toBe(2);
        // And under another root: levels 2 and 3 again.
        await call(s, 'POST', '/api/group/update', form({ groupId: a.l2.groupId, pid: b.groupId }));
        const rows = await s.db.select().from(deviceGroups).where(eq(deviceGroups.id, a.l3.groupId));
        expect(rows[0].level).toBe(3);
    });

    it('refuses a move that makes a cycle or a fourth level, or crosses projects', async () => {
        const a = await tree();
        const b = await tree();
        await refused(
            'POST',
            '/api/group/update',
            form({ groupId: a.l1.groupId, pid: a.l3.groupId }),
            '不能移动到自身或其子分组下',
        );
        await refused(
            'POST',
            '/api/group/update',
            form({ groupId: a.l1.groupId, pid: a.l1.groupId }),
            '不能移动到自身或其子分组下',
        );
        // a.l2 has a child: under b.l2 it would be level 3 and its child level 4.
        await refused(
            'POST',
            '/api/group/update',
            form({ groupId: a.l2.groupId, pid: b.l2.groupId }),
            '第三级分组不能作为父组',
        );
        // Under a level-3 group.
        await refused(
            'POST',
            '/api/group/update',
            form({ groupId: a.l3.groupId, pid: b.l3.groupId }),
            '第三级分组不能作为父组',
        );
        const other = await made({ projectCode: 'PB' });
        await refused(
            'POST',
            '/api/group/update',
            form({ groupId: a.l3.groupId, pid: other.groupId }),
            '父分组属于其他项目',
        );
        await refused('POST', '/api/group/update', form({ groupId: a.l3.groupId, pid: 999999 }), '父分组不存在', 404);
        // A sibling of the same name where it would land.
        const x = await made({ pid: b.l1.groupId, name: a.l3.groupName });
        expect(x.level).toBe(2);
        await refused(
            'POST',
            '/api/group/update',
            form({ groupId: a.l3.groupId, pid: b.l1.groupId }),
            '分组名称已存在',
            409,
        );
    });
});

describe('delete', () => {
    it('refuses a group with subgroups; deletes a leaf with its memberships, not its devices', async () => {
        const { l1, l2 } = await tree();
        await refused('POST', '/api/group/delete', form({ id: l1.groupId }), '请先删除子分组', 409);
        const leaf = await made({ pid: l1.groupId });
        const d = await createDevice(s, product.productKey);
        await call(s, 'POST', '/api/groups/addDevices', listForm({ groupId: leaf.groupId, deviceList: [d.deviceId] }));
        const answer = await call(s, 'POST', '/api/group/delete', form({ groupId: leaf.groupId }));
        expect(answer.body).toEqual({ returnCode: '1111', returnMessage: 'success', data: null });
        expect(await s.db.select().from(groupDevices).where(eq(groupDevices.groupId, leaf.groupId))).toEqual([]);
        expect(await s.db.select({ id: devices.id }).from(devices).where(eq(devices.id, d.deviceId))).toHaveLength(1);
        await refused('POST', '/api/group/delete', form({ id: leaf.groupId }), '分组不存在', 404);
        expect((await call(s, 'GET', `/api/group/detail?groupId=${l2.groupId}`)).status).toBe(200);
    });
});

describe('reading', () => {
    it('lists every level newest first, pages, and searches by name', async () => {
        const { l1, l2, l3 } = await tree();
        const page = data<{ records: Group[]; total: number }>(
            await call(s, 'GET', '/api/group/list?pageNumber=1&pageSize=2'),
        );
        expect(page.records.map((g) => g.groupId)).toEqual([l3.groupId, l2.groupId]);
        const next = data<{ records: Group[]; total: number }>(
            await call(s, 'GET', '/api/group/list?pageNumber=2&pageSize=2'),
        );
        expect(next.records[0].groupId).toBe(l1.groupId);
        expect(next.total).toBe(page.total);
        const { count } = await import('drizzle-orm');
        const [{ c }] = await s.db.select({ c: count() }).from(deviceGroups);
        expect(page.total).toBe(Number(c));
        const searched = data<{ records: Group[]; total: number }>(
            await call(s, 'GET', `/api/group/list?groupName=${encodeURIComponent(l2.groupName)}`),
        );
        expect(searched.records.map((g) => g.groupId)).toEqual([l2.groupId]);
        const inPb = data<{ records: Group[] }>(await call(s, 'GET', '/api/group/list?projectCode=PB&pageSize=100'));
        expect(inPb.records.every((g) => g.projectCode === 'PB')).toBe(true);
    });

    it('answers the tree lazily: roots, then children, with level-3 nodes as leaves', async () => {
        const { l1, l2, l3 } = await tree('PB');
        const roots = data<{ list: Array<{ groupId: number; isLeaf: boolean; level: number; parentId: number }> }>(
            await call(s, 'GET', '/api/group/tree?userId=1&projectCode=PB'),
        ).list;
        expect(roots.every((r) => r.level === 1 && r.parentId === 0)).toBe(true);
        expect(roots.find((r) => r.groupId === l1.groupId)).toMatchObject({ isLeaf: false });
        const children = data<{ list: Array<{ groupId: number; isLeaf: boolean; level: number; parentId: number }> }>(
            await call(s, 'GET', `/api/group/children?userId=1&parentId=${l1.groupId}`),
        ).list;
        expect(children).toEqual([
            { groupId: l2.groupId, parentId: l1.groupId, groupName: l2.groupName, level: 2, isLeaf: false },
        ]);
        const leaves = data<{ list: Array<{ isLeaf: boolean; level: number }> }>(
            await call(s, 'GET', `/api/group/children?parentId=${l2.groupId}`),
        ).list;
        expect(leaves).toEqual([
            { groupId: l3.groupId, parentId: l2.groupId, groupName: l3.groupName, level: 3, isLeaf: true },
        ]);
        const lonely = await made({ projectCode: 'PB' });
        const again = data<{ list: Array<{ groupId: number; isLeaf: boolean }> }>(
            await call(s, 'GET', '/api/group/tree?projectCode=PB'),
        ).list;
        expect(again.find((r) => r.groupId === lonely.groupId)?.isLeaf).toBe(true);
        expect((await call(s, 'GET', '/api/group/children?parentId=999999')).status).toBe(404);
    });

    it('answers the whole menu tree and the detail with its path, totals and child count', async () => {
        const { l1, l2, l3 } = await tree();
        const menu = data<{
            list: Array<{
                key: number;
                title: string;
                children: Array<{ key: number; children: Array<{ key: number; level: number }> }>;
            }>;
        }>(await call(s, 'GET', '/api/group/menuTree')).list;
        const root = menu.find((m) => m.key === l1.groupId)!;
        expect(root.title).toBe(l1.groupName);
        expect(root.children[0].key).toBe(l2.groupId);
        expect(root.children[0].children[0]).toEqual({ key: l3.groupId, title: l3.groupName, level: 3, children: [] });

        const online = await createDevice(s, product.productKey);
        const offline = await createDevice(s, product.productKey);
        await s.db.update(devices).set({ status: 'ONLINE' }).where(eq(devices.id, online.deviceId));
        await call(
            s,
            'POST',
            '/api/groups/addDevices',
            listForm({ groupId: l3.groupId, deviceList: [online.deviceId, offline.deviceId] }),
        );
        const detail = data<Record<string, unknown>>(await call(s, 'GET', `/api/group/detail?groupId=${l3.groupId}`));
        expect(detail).toMatchObject({
            groupId: l3.groupId,
            level: 3,
            hierarchy: [l1.groupName, l2.groupName, l3.groupName],
            deviceTotal: 2,
            deviceOnline: 1,
            childCount: 0,
        });
        const top = data<Record<string, unknown>>(await call(s, 'GET', `/api/group/detail?groupId=${l1.groupId}`));
        // A group's totals count its own devices, not its subgroups'.
        expect(top).toMatchObject({ hierarchy: [l1.groupName], deviceTotal: 0, childCount: 1 });
        const children = data<{ records: Group[]; total: number }>(
            await call(s, 'GET', `/api/group/childList?parentId=${l1.groupId}&pageNumber=1&pageSize=5`),
        );
        expect(children).toMatchObject({ total: 1, records: [{ groupId: l2.groupId }] });
        expect((await call(s, 'GET', '/api/group/detail?groupId=999999')).body).toEqual({
            returnCode: '9999',
            returnMessage: '分组不存在',
        });
    });
});

describe("a group's devices", () => {
    async function fresh(count: number): Promise<DeviceRow[]> {
        const out: DeviceRow[] = [];
        for (let i = 0; i < count; i++) out.push(await createDevice(s, product.productKey));
        return out;
    }
    const page = async (query: string) =>
        data<{ deviceList: DeviceRow[]; total: number; deviceTotal: number; deviceOnline: number }>(
            await call(s, 'GET', `/api/groups/devices?${query}`),
        );

    it('adds (skipping those already in), lists newest added first, and removes', async () => {
        const g = await made();
        const ds = await fresh(3);
        const first = await call(
            s,
            'POST',
            '/api/groups/addDevices',
            listForm({ groupId: g.groupId, deviceList: [ds[0].deviceId] }),
        );
        expect(first.body).toEqual({ returnCode: '1111', returnMessage: 'success', data: { count: 1 } });
        // Comma-joined, with one already in the group.
        const joined = await call(
            s,
            'POST',
            '/api/groups/addDevices',
            form({ groupId: g.groupId, deviceList: ds.map((d) => d.deviceId).join(',') }),
        );
        expect(data(joined)).toEqual({ count: 2 });
        const all = await page(`groupId=${g.groupId}`);
        expect(all).toMatchObject({ total: 3, deviceTotal: 3, deviceOnline: 0 });
        expect(all.deviceList[0].secret).toBeUndefined();
        expect(new Set(all.deviceList.map((d) => d.deviceId))).toEqual(new Set(ds.map((d) => d.deviceId)));
        const removed = await call(
            s,
            'POST',
            '/api/groups/removeDevices',
            listForm({ groupId: g.groupId, deviceList: [ds[1].deviceId] }),
        );
        expect(data(removed)).toEqual({ count: 1 });
        const after = await page(`groupId=${g.groupId}&pageNumber=1&pageSize=10`);
        expect(after.deviceList.map((d) => d.deviceId).sort()).toEqual([ds[0].deviceId, ds[2].deviceId].sort());
        expect(after.deviceTotal).toBe(2);
    });

    it('pages at 10 by default and filters by name and by tag', async () => {
        const g = await made();
        const ds = await fresh(12);
        await call(
            s,
            'POST',
            '/api/groups/addDevices',
            listForm({ groupId: g.groupId, deviceList: ds.map((d) => d.deviceId) }),
        );
        const first = await page(`groupId=${g.groupId}`);
        expect(first.deviceList).toHaveLength(10);
        expect(first.total).toBe(12);
        expect((await page(`groupId=${g.groupId}&pageNumber=2`)).deviceList).toHaveLength(2);
        const byName = await page(`groupId=${g.groupId}&deviceName=${ds[5].deviceName}`);
        expect(byName.deviceList.map((d) => d.deviceId)).toEqual([ds[5].deviceId]);
        expect(byName).toMatchObject({ total: 1, deviceTotal: 12 });

        await s.db.insert(tags).values([
            { type: 2, objectId: ds[0].deviceId, key: 'floor', value: '3' },
            { type: 2, objectId: ds[1].deviceId, key: 'floor', value: '4' },
            { type: 1, objectId: ds[2].deviceId, key: 'floor', value: '3' },
        ]);
        const byKey = await page(`groupId=${g.groupId}&tagKey=floor`);
        expect(byKey.deviceList.map((d) => d.deviceId).sort()).toEqual([ds[0].deviceId, ds[1].deviceId].sort());
        const byPair = await page(`groupId=${g.groupId}&tagKey=floor&tagValue=3`);
        expect(byPair.deviceList.map((d) => d.deviceId)).toEqual([ds[0].deviceId]);
        expect(byPair.total).toBe(1);
        expect((await page(`groupId=${g.groupId}&tagKey=room`)).total).toBe(0);
    });

    it('refuses, writing nothing: no devices, an unknown device among them, an unknown group', async () => {
        const g = await made();
        const [d] = await fresh(1);
        await refused('POST', '/api/groups/addDevices', listForm({ groupId: g.groupId }), '请选择设备');
        await refused(
            'POST',
            '/api/groups/addDevices',
            listForm({ groupId: g.groupId, deviceList: [d.deviceId, 99999999] }),
            '设备不存在',
            404,
        );
        await refused(
            'POST',
            '/api/groups/addDevices',
            listForm({ groupId: 999999, deviceList: [d.deviceId] }),
            '分组不存在',
            404,
        );
        await refused(
            'POST',
            '/api/groups/removeDevices',
            listForm({ groupId: 999999, deviceList: [d.deviceId] }),
            '分组不存在',
            404,
        );
        const tooMany = Array.from({ length: 10001 }, (_, i) => i + 1).join(',');
        await refused(
            'POST',
            '/api/groups/addDevices',
            form({ groupId: g.groupId, deviceList: tooMany }),
            '一次最多选择10000个设备',
        );
        expect((await call(s, 'GET', '/api/groups/devices?groupId=999999')).status).toBe(404);
    });

    it('offers candidates: the product devices not in the group, with a consistent total', async () => {
        const other = await createProduct(s, { productName: '候选设备产品' });
        const ds: DeviceRow[] = [];
        for (let i = 0; i < 4; i++) ds.push(await createDevice(s, other.productKey));
        const g = await made();
        await call(s, 'POST', '/api/groups/addDevices', listForm({ groupId: g.groupId, deviceList: [ds[1].deviceId] }));
        const answer = await call(
            s,
            'GET',
            `/api/device/candidates?productId=${other.productId}&groupId=${g.groupId}&userId=1&pageNumber=1&pageSize=10`,
        );
        expect(answer.body).toMatchObject({ code: 0, msg: 'success' });
        const list = data<{ list: DeviceRow[]; total: number }>(answer);
        expect(list.total).toBe(3);
        // Newest first.
        expect(list.list.map((d) => d.deviceId)).toEqual([ds[3].deviceId, ds[2].deviceId, ds[0].deviceId]);
        const paged = data<{ list: DeviceRow[]; total: number }>(
            await call(
                s,
                'GET',
                `/api/device/candidates?productId=${other.productId}&groupId=${g.groupId}&pageNumber=2&pageSize=2`,
            ),
        );
        expect(paged).toMatchObject({ total: 3, list: [{ deviceId: ds[0].deviceId }] });
        const named = data<{ list: DeviceRow[]; total: number }>(
            await call(
                s,
                'GET',
                `/api/device/candidates?productId=${other.productId}&groupId=${g.groupId}&deviceName=${ds[1].deviceName}`,
            ),
        );
        expect(named).toEqual({ list: [], total: 0 });
        const noGroup = data<{ total: number }>(
            await call(s, 'GET', `/api/device/candidates?productId=${other.productId}`),
        );
        expect(noGroup.total).toBe(4);
        expect((await call(s, 'GET', '/api/device/candidates?groupId=1')).body).toEqual({ code: 1, msg: '请选择产品' });
        expect((await call(s, 'GET', '/api/device/candidates?productId=999999')).body).toEqual({
            code: 1,
            msg: '产品不存在',
        });
    });
});
