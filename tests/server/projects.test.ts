import dayjs from 'dayjs';
import timezone from 'dayjs/plugin/timezone.js';
import utc from 'dayjs/plugin/utc.js';
import { eq, inArray } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as t from '../../server/db/schema';
import { createTestServer, type TestServer } from '../../server/testing';
import { createDevice, createProduct, listForm, type TestProduct } from './devicesSupport';
import { createProject, expectRefused, projectName, snapshot, type ProjectRow } from './projectsSupport';
import { call, form } from './support';

dayjs.extend(utc);
dayjs.extend(timezone);

let s: TestServer;
let product: TestProduct;
const year = () => dayjs().tz('Asia/Shanghai').year();

beforeAll(async () => {
    s = await createTestServer();
    product = await createProduct(s, { productName: '项目测试产品' });
});
afterAll(() => s?.close());

const list = async (query: string) => {
    const answer = await call(s, 'GET', `/api/project/list?${query}`);
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    return answer.body.data as { records: ProjectRow[]; total: number };
};
const bind = async (projectId: number, deviceIds: number[]) => {
    const answer = await call(s, 'POST', '/api/device/bind', listForm({ projectId, deviceId: deviceIds }));
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
};

describe('create', () => {
    it('creates a project with a generated code P + year + 3 digits, the row as the list shows it', async () => {
        const answer = await call(
            s,
            'POST',
            '/api/project/save',
            form({ name: '  新建项目甲  ', classId: 2, remark: '备注' }),
        );
        const row = answer.body.data as unknown as ProjectRow;
        expect(row).toMatchObject({
            name: '新建项目甲',
            projectName: '新建项目甲',
            classId: 2,
            sceneName: '智慧城市',
            remark: '备注',
            productCount: 0,
            deviceCount: 0,
            onlineCount: 0,
        });
        expect(row.code).toMatch(new RegExp(`^P${year()}\\d{3}$`));
        expect(row.createTime).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/);
        const next = await createProject(s);
        expect(Number(next.code.slice(5))).toBe(Number(row.code.slice(5)) + 1);
        const [stored] = await s.db.select().from(t.projects).where(eq(t.projects.id, row.id));
        expect(stored).toMatchObject({ code: row.code, name: '新建项目甲', classId: 2, remark: '备注' });
    });

    it('continues after the highest code of the year, past 999 too', async () => {
        await s.db.insert(t.projects).values({ code: `P${year()}099`, name: projectName(), classId: 1 });
        expect((await createProject(s)).code).toBe(`P${year()}100`);
        await s.db.insert(t.projects).values({ code: `P${year()}1000`, name: projectName(), classId: 1 });
        expect((await createProject(s)).code).toBe(`P${year()}1001`);
    });

    it('gives concurrent saves distinct codes', async () => {
        const answers = await Promise.all(
            Array.from({ length: 6 }, () =>
                call(s, 'POST', '/api/project/save', form({ name: projectName('并发'), classId: 1 })),
            ),
        );
        expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 200, 200, 200]);
        const codes = answers.map((a) => (a.body.data as unknown as ProjectRow).code);
        expect(new Set(codes).size).toBe(6);
    });

    it('refuses with the form messages and writes nothing', async () => {
        const taken = await createProject(s);
        const save = '/api/project/save';
        await expectRefused(s, 'POST', save, form({ name: '', classId: 1 }), '请输入项目名称');
        await expectRefused(s, 'POST', save, form({ name: '   ', classId: 1 }), '请输入项目名称');
        await expectRefused(s, 'POST', save, form({ name: '项目', classId: '' }), '请选择项目分类');
        await expectRefused(s, 'POST', save, form({ name: '项目' }), '请选择项目分类');
        await expectRefused(s, 'POST', save, form({ name: 'x'.repeat(31), classId: 1 }), '项目名称不得超过30个字符');
        await expectRefused(
            s,
            'POST',
            save,
            form({ name: '项目', classId: 1, remark: 'r'.repeat(201) }),
            '备注不得超过200个字符',
        );
        await expectRefused(s, 'POST', save, form({ name: '项目', classId: 9999 }), '项目分类不存在', 404);
        await expectRefused(s, 'POST', save, form({ name: taken.name, classId: 2 }), '项目名称已存在', 409);
    });
});

describe('list, get and count', () => {
    it('pages newest first, filters by name substring (any case) and scene, and counts products and devices', async () => {
        const a = await createProject(s, { name: projectName('Alpha列表'), classId: 3 });
        const b = await createProject(s, { name: projectName('alpha列表'), classId: 4 });
        const page = await list('page=1&size=2');
        expect(page.records.map((r) => r.id)).toEqual([b.id, a.id]);
        expect(page.total).toBe((await s.db.select().from(t.projects)).length);
        const second = await list('page=2&size=2');
        expect(second.records).toHaveLength(2);
        expect(second.records.map((r) => r.id)).not.toContain(a.id);

        const byName = await list('page=1&size=10&name=ALPHA列表');
        expect(byName.records.map((r) => r.id)).toEqual([b.id, a.id]);
        expect(byName.total).toBe(2);
        const byScene = await list(`page=1&size=10&name=alpha列表&classId=3`);
        expect(byScene.records.map((r) => r.id)).toEqual([a.id]);
        // Literal: a LIKE wildcard matches nothing.
        expect((await list('page=1&size=10&name=%25')).total).toBe(0);

        const devices = [];
        for (let i = 0; i < 3; i++) devices.push(await createDevice(s, product.productKey));
        await bind(
            a.id,
            devices.map((d) => d.deviceId),
        );
        await s.db.update(t.devices).set({ status: 'ONLINE' }).where(eq(t.devices.id, devices[0].deviceId));
        await s.db.update(t.products).set({ projectCode: a.code }).where(eq(t.products.id, product.productId));
        const [row] = (await list(`page=1&size=10&name=${encodeURIComponent(a.name)}`)).records;
        expect(row).toMatchObject({ id: a.id, productCount: 1, deviceCount: 3, onlineCount: 1, sceneName: '智慧车辆' });
        await s.db.update(t.products).set({ projectCode: null }).where(eq(t.products.id, product.productId));
    });

    it('answers one project with offline, inactive and pending alert counts', async () => {
        const p = await createProject(s);
        const ds = [];
        for (let i = 0; i < 4; i++) ds.push(await createDevice(s, product.productKey));
        await bind(
            p.id,
            ds.map((d) => d.deviceId),
        );
        const statuses = ['ONLINE', 'OFFLINE', 'DISABLE', 'INACTIVE'];
        for (const [i, d] of ds.entries())
            await s.db.update(t.devices).set({ status: statuses[i] }).where(eq(t.devices.id, d.deviceId));
        await s.db.insert(t.alertEvents).values([
            { type: 1, status: 0, projectId: p.id, deviceName: 'x' },
            { type: 2, status: 0, projectId: p.id, deviceName: 'x' },
            { type: 3, status: 1, projectId: p.id, deviceName: 'x' },
        ]);
        const answer = await call(s, 'GET', `/api/project/get?id=${p.id}`);
        expect(answer.body.data).toMatchObject({
            id: p.id,
            code: p.code,
            deviceCount: 4,
            onlineCount: 1,
            offlineCount: 2,
            inactiveCount: 1,
            warn: 2,
            opTime: p.createTime,
        });
        await expectRefused(s, 'GET', '/api/project/get?id=999999', {}, '项目不存在', 404);
        await expectRefused(s, 'GET', '/api/project/get', {}, '缺少项目ID');
    });

    it('counts every project', async () => {
        await createProject(s);
        const answer = await call(s, 'GET', '/api/project/selectCount');
        expect(answer.body.data).toEqual({ count: (await s.db.select().from(t.projects)).length });
    });

    it('lists every project for the pickers, with the scene name', async () => {
        const p = await createProject(s, { classId: 4 });
        const answer = await call(s, 'GET', '/api/project/listAll');
        const options = (answer.body.data as { list: Array<Record<string, unknown>> }).list;
        expect(options).toContainEqual({ id: p.id, code: p.code, projectName: p.name, sceneName: '工业互联网' });
    });
});

describe('update', () => {
    it('edits name, scene and remark; the code stays', async () => {
        const p = await createProject(s, { remark: '旧备注' });
        const name = projectName('改名');
        const answer = await call(s, 'PUT', '/api/project/update', form({ id: p.id, name, classId: 3, remark: '' }));
        expect(answer.body.data).toMatchObject({
            id: p.id,
            code: p.code,
            name,
            classId: 3,
            sceneName: '智慧车辆',
            remark: null,
        });
        // Saving under its own name is not a clash.
        const again = await call(s, 'PUT', '/api/project/update', form({ id: p.id, name, classId: 3 }));
        expect(again.status).toBe(200);
    });

    it('refuses with the messages and changes nothing', async () => {
        const p = await createProject(s);
        const other = await createProject(s);
        const update = '/api/project/update';
        await expectRefused(s, 'PUT', update, form({ name: '项目', classId: 1 }), '缺少项目ID');
        await expectRefused(s, 'PUT', update, form({ id: p.id, name: '', classId: 1 }), '请输入项目名称');
        await expectRefused(s, 'PUT', update, form({ id: p.id, name: '项目' }), '请选择项目分类');
        await expectRefused(s, 'PUT', update, form({ id: 999999, name: '项目', classId: 1 }), '项目不存在', 404);
        await expectRefused(s, 'PUT', update, form({ id: p.id, name: '项目', classId: 9999 }), '项目分类不存在', 404);
        await expectRefused(s, 'PUT', update, form({ id: p.id, name: other.name, classId: 1 }), '项目名称已存在', 409);
    });
});

describe('delete', () => {
    /** A project with everything that hangs off it: devices, a product, staff, a three-level group tree, alerts. */
    async function furnished() {
        const p = await createProject(s);
        const ds = [];
        for (let i = 0; i < 3; i++) ds.push(await createDevice(s, product.productKey));
        await bind(
            p.id,
            ds.map((d) => d.deviceId),
        );
        const own = await createProduct(s, { projectCode: p.code });
        const [user] = await s.db.select({ id: t.users.id }).from(t.users).limit(1);
        await s.db.insert(t.projectUsers).values({ projectId: p.id, userId: user.id });
        const [g1] = await s.db
            .insert(t.deviceGroups)
            .values({ name: '一级', level: 1, projectCode: p.code })
            .returning();
        const [g2] = await s.db
            .insert(t.deviceGroups)
            .values({ name: '二级', level: 2, parentId: g1.id, projectCode: p.code })
            .returning();
        const [g3] = await s.db
            .insert(t.deviceGroups)
            .values({ name: '三级', level: 3, parentId: g2.id, projectCode: p.code })
            .returning();
        await s.db.insert(t.groupDevices).values([
            { groupId: g3.id, deviceId: ds[0].deviceId },
            { groupId: g1.id, deviceId: ds[1].deviceId },
        ]);
        const alerts = await s.db
            .insert(t.alertEvents)
            .values([
                { type: 1, projectId: p.id, deviceId: ds[0].deviceId, deviceName: ds[0].deviceName },
                { type: 3, status: 1, projectId: p.id, deviceId: ds[1].deviceId, deviceName: ds[1].deviceName },
            ])
            .returning({ id: t.alertEvents.id });
        return { p, ds, own, user, groups: [g1, g2, g3], alerts: alerts.map((a) => a.id) };
    }

    it('unbinds its devices, drops staff and groups, keeps devices, products, alerts and users', async () => {
        const bystander = await furnished();
        const f = await furnished();
        const before = await snapshot(s);
        const answer = await call(s, 'DELETE', `/api/project/delete?ids=${f.p.id}`);
        expect(answer.body).toEqual({ code: 200, msg: 'success', data: { count: 1, unboundDevices: 3 } });

        const ids = f.ds.map((d) => d.deviceId);
        const devices = await s.db.select().from(t.devices).where(inArray(t.devices.id, ids));
        expect(devices.map((d) => d.projectId)).toEqual([null, null, null]);
        const [own] = await s.db.select().from(t.products).where(eq(t.products.id, f.own.productId));
        expect(own.projectCode).toBeNull();
        const alerts = await s.db.select().from(t.alertEvents).where(inArray(t.alertEvents.id, f.alerts));
        expect(alerts.map((a) => a.projectId)).toEqual([null, null]);
        expect(await s.db.select().from(t.projectUsers).where(eq(t.projectUsers.projectId, f.p.id))).toEqual([]);
        expect(await s.db.select().from(t.deviceGroups).where(eq(t.deviceGroups.projectCode, f.p.code))).toEqual([]);
        expect(await s.db.select().from(t.projects).where(eq(t.projects.id, f.p.id))).toEqual([]);
        expect(await s.db.select().from(t.users).where(eq(t.users.id, f.user.id))).toHaveLength(1);

        // Exactly those rows changed: the project, its 1 staff row, 3 groups, 2 group links, its consumer group
        // ('default', made with every project), and nothing else.
        const after = await snapshot(s);
        expect(after.counts).toEqual({
            ...before.counts,
            projects: before.counts.projects - 1,
            projectUsers: before.counts.projectUsers - 1,
            deviceGroups: before.counts.deviceGroups - 3,
            groupDevices: before.counts.groupDevices - 2,
            consumerGroups: before.counts.consumerGroups - 1,
        });
        const bystanderDevices = await s.db
            .select({ projectId: t.devices.projectId })
            .from(t.devices)
            .where(
                inArray(
                    t.devices.id,
                    bystander.ds.map((d) => d.deviceId),
                ),
            );
        expect(bystanderDevices.map((d) => d.projectId)).toEqual([bystander.p.id, bystander.p.id, bystander.p.id]);
        expect(
            await s.db.select().from(t.deviceGroups).where(eq(t.deviceGroups.projectCode, bystander.p.code)),
        ).toHaveLength(3);
        expect(after.alerts.filter((a) => a.projectId === bystander.p.id)).toHaveLength(2);
    });

    it('deletes several at once, repeated or comma-joined', async () => {
        const [a, b, c] = [await createProject(s), await createProject(s), await createProject(s)];
        const d = await createDevice(s, product.productKey);
        await bind(c.id, [d.deviceId]);
        const repeated = await call(s, 'DELETE', `/api/project/delete?ids=${a.id}&ids=${b.id}`);
        expect(repeated.body.data).toEqual({ count: 2, unboundDevices: 0 });
        const joined = await call(s, 'DELETE', `/api/project/delete?ids=${c.id},${c.id}`);
        expect(joined.body.data).toEqual({ count: 1, unboundDevices: 1 });
    });

    it('refuses without ids or with an unknown one, deleting nothing', async () => {
        const f = await furnished();
        await expectRefused(s, 'DELETE', '/api/project/delete', {}, '请选择要删除的项目');
        await expectRefused(s, 'DELETE', `/api/project/delete?ids=${f.p.id}&ids=999999`, {}, '项目不存在', 404);
        await expectRefused(s, 'DELETE', `/api/project/delete?ids=abc`, {}, '项目ID必须是正整数');
    });
});

describe('scenes', () => {
    it('lists the four starting scenes first, with their project counts', async () => {
        const answer = await call(s, 'GET', '/api/project/sceneList');
        const scenes = (answer.body.data as { list: Array<{ id: number; name: string; projectCount: number }> }).list;
        expect(scenes.slice(0, 4).map((x) => x.name)).toEqual(['智慧办公', '智慧城市', '智慧车辆', '工业互联网']);
        const projects = await s.db.select({ classId: t.projects.classId }).from(t.projects);
        for (const scene of scenes) {
            expect(scene.projectCount).toBe(projects.filter((p) => p.classId === scene.id).length);
        }
    });

    it('creates, renames and deletes an unused scene', async () => {
        const created = await call(s, 'POST', '/api/project/scene/save', form({ id: '', name: ' 智慧农业 ' }));
        const scene = created.body.data as { id: number; name: string };
        expect(scene.name).toBe('智慧农业');
        const renamed = await call(s, 'POST', '/api/project/scene/save', form({ id: scene.id, name: '智慧农林' }));
        expect(renamed.body.data).toEqual({ id: scene.id, name: '智慧农林' });
        const p = await createProject(s, { classId: scene.id });
        expect(p.sceneName).toBe('智慧农林');
        await call(s, 'DELETE', `/api/project/delete?ids=${p.id}`);
        const removed = await call(s, 'DELETE', `/api/project/scene/delete?id=${scene.id}`);
        expect(removed.body).toEqual({ code: 200, msg: 'success', data: null });
        expect(await s.db.select().from(t.scenes).where(eq(t.scenes.id, scene.id))).toEqual([]);
    });

    it('refuses with the messages and changes nothing', async () => {
        const created = await call(s, 'POST', '/api/project/scene/save', form({ name: '智慧水务' }));
        const scene = created.body.data as { id: number };
        await createProject(s, { classId: scene.id });
        await createProject(s, { classId: scene.id });
        const save = '/api/project/scene/save';
        await expectRefused(s, 'POST', save, form({ id: '', name: '' }), '请输入场景名称');
        await expectRefused(s, 'POST', save, form({ name: '场'.repeat(21) }), '场景名称不得超过20个字符');
        await expectRefused(s, 'POST', save, form({ name: '智慧城市' }), '场景名称已存在', 409);
        await expectRefused(s, 'POST', save, form({ id: scene.id, name: '智慧办公' }), '场景名称已存在', 409);
        await expectRefused(s, 'POST', save, form({ id: 999999, name: '不存在的场景' }), '场景不存在', 404);
        await expectRefused(s, 'POST', save, form({ id: 'x', name: '场景' }), '场景ID必须是正整数');
        await expectRefused(
            s,
            'DELETE',
            `/api/project/scene/delete?id=${scene.id}`,
            {},
            '该场景下还有2个项目，请先删除或移走项目',
            409,
        );
        await expectRefused(s, 'DELETE', '/api/project/scene/delete?id=999999', {}, '场景不存在', 404);
        await expectRefused(s, 'DELETE', '/api/project/scene/delete', {}, '缺少场景ID');
    });
});

describe('associateDevice', () => {
    it('binds the devices to the project, as /api/device/bind does', async () => {
        const p = await createProject(s);
        const [a, b, c] = [
            await createDevice(s, product.productKey),
            await createDevice(s, product.productKey),
            await createDevice(s, product.productKey),
        ];
        const answer = await call(
            s,
            'GET',
            `/api/project/associateDevice?projectId=${p.id}&deviceId=${a.deviceId}&deviceId=${b.deviceId}`,
        );
        expect(answer.body).toEqual({ code: 200, msg: 'success', data: { count: 2 } });
        const joined = await call(s, 'GET', `/api/project/associateDevice?projectId=${p.id}&deviceId=${c.deviceId}`);
        expect(joined.body.data).toEqual({ count: 1 });
        const rows = await s.db
            .select({ projectId: t.devices.projectId })
            .from(t.devices)
            .where(inArray(t.devices.id, [a.deviceId, b.deviceId, c.deviceId]));
        expect(rows.map((r) => r.projectId)).toEqual([p.id, p.id, p.id]);
    });

    it('refuses with the bind messages, all or nothing, in this family envelope', async () => {
        const p = await createProject(s);
        const bound = await createDevice(s, product.productKey);
        const free = await createDevice(s, product.productKey);
        await bind(p.id, [bound.deviceId]);
        const target = (q: string) => `/api/project/associateDevice?${q}`;
        await expectRefused(s, 'GET', target(`projectId=${p.id}`), {}, '请选择需要关联项目的设备');
        await expectRefused(
            s,
            'GET',
            target(`projectId=${p.id}&deviceId=${free.deviceId},${bound.deviceId}`),
            {},
            '请选择未关联项目的设备进行关联',
        );
        await expectRefused(s, 'GET', target(`deviceId=${free.deviceId}`), {}, '请选择要关联的场景');
        await expectRefused(s, 'GET', target(`projectId=999999&deviceId=${free.deviceId}`), {}, '项目不存在', 404);
        await expectRefused(s, 'GET', target(`projectId=${p.id}&deviceId=99999999`), {}, '设备不存在', 404);
        await expectRefused(s, 'GET', target(`projectId=${p.id}&deviceId=abc`), {}, '设备ID必须是正整数');
    });
});

describe('staff', () => {
    const users = async () => s.db.select().from(t.users).orderBy(t.users.id);

    it('adds users to a project (skipping those already there), lists and removes them', async () => {
        const p = await createProject(s);
        const [u1, u2] = await users();
        const add = (list: unknown) =>
            call(s, 'POST', '/api/project-user/addUser', form({ list: JSON.stringify(list) }));
        const first = await add([{ projectCode: p.code, userId: u1.id }]);
        expect(first.body).toEqual({ code: 200, msg: 'success', data: { count: 1 } });
        const second = await add([
            { projectCode: p.code, userId: u1.id },
            { projectCode: p.code, userId: u2.id },
        ]);
        expect(second.body.data).toEqual({ count: 1 });

        const listed = await call(s, 'GET', `/api/project-user/getUserList?projectCode=${p.code}`);
        const staff = (listed.body.data as { list: Array<Record<string, unknown>> }).list;
        expect(staff).toEqual([
            {
                id: expect.any(Number),
                userId: u1.id,
                username: u1.displayName,
                loginName: u1.username,
                mobile: u1.mobile,
            },
            {
                id: expect.any(Number),
                userId: u2.id,
                username: u2.displayName,
                loginName: u2.username,
                mobile: u2.mobile,
            },
        ]);

        const removed = await call(s, 'GET', `/api/project-user/removeUser?id=${staff[0].id as number}`);
        expect(removed.body).toEqual({ code: 200, msg: 'success', data: null });
        const after = await call(s, 'GET', `/api/project-user/getUserList?projectCode=${p.code}`);
        expect((after.body.data as { list: Array<{ userId: number }> }).list.map((x) => x.userId)).toEqual([u2.id]);
        // The user is still there.
        expect((await users()).map((u) => u.id)).toContain(u1.id);
    });

    it('accepts a JSON body with the list as an array', async () => {
        const p = await createProject(s);
        const [u1] = await users();
        const answer = await call(s, 'POST', '/api/project-user/addUser', {
            body: JSON.stringify({ list: [{ projectCode: p.code, userId: u1.id }] }),
            headers: { 'content-type': 'application/json' },
        });
        expect(answer.body.data).toEqual({ count: 1 });
    });

    it('refuses with the messages, all or nothing', async () => {
        const p = await createProject(s);
        const [u1] = await users();
        const add = '/api/project-user/addUser';
        const list = (v: unknown) => form({ list: JSON.stringify(v) });
        await expectRefused(s, 'POST', add, form({}), '请选择要添加的人员');
        await expectRefused(s, 'POST', add, list([]), '请选择要添加的人员');
        await expectRefused(s, 'POST', add, form({ list: '{oops' }), '人员列表格式错误');
        await expectRefused(s, 'POST', add, list({ projectCode: p.code }), '人员列表格式错误');
        await expectRefused(s, 'POST', add, list([{ userId: u1.id }]), '缺少项目编码');
        await expectRefused(s, 'POST', add, list([{ projectCode: p.code, userId: 'x' }]), '用户ID必须是正整数');
        await expectRefused(
            s,
            'POST',
            add,
            list([
                { projectCode: p.code, userId: u1.id },
                { projectCode: 'NOPE', userId: u1.id },
            ]),
            '项目不存在',
            404,
        );
        await expectRefused(
            s,
            'POST',
            add,
            list([
                { projectCode: p.code, userId: u1.id },
                { projectCode: p.code, userId: 999999 },
            ]),
            '用户不存在',
            404,
        );
        await expectRefused(s, 'GET', '/api/project-user/getUserList', {}, '缺少项目编码');
        await expectRefused(s, 'GET', '/api/project-user/getUserList?projectCode=NOPE', {}, '项目不存在', 404);
        await expectRefused(s, 'GET', '/api/project-user/removeUser?id=999999', {}, '项目人员不存在', 404);
        await expectRefused(s, 'GET', '/api/project-user/removeUser', {}, '缺少人员ID');
    });
});

describe('user search', () => {
    it('finds users by a substring of their mobile number, at most 20', async () => {
        await s.db.insert(t.users).values(
            Array.from({ length: 25 }, (_, i) => ({
                username: `search_${i}`,
                displayName: `搜索用户${i}`,
                userCode: `US${i}`,
                mobile: `1990777${String(i).padStart(4, '0')}`,
                passwordHash: 'x',
                passwordSalt: 'y',
            })),
        );
        const search = async (q: string) =>
            (
                (await call(s, 'GET', `/api/user/listAll?phoneNumber=${q}`)).body.data as {
                    list: Array<{ userId: number; username: string; loginName: string; mobile: string }>;
                }
            ).list;
        const many = await search('0777');
        expect(many).toHaveLength(20);
        expect(many.every((u) => u.mobile.includes('0777'))).toBe(true);
        const one = await search('07770013');
        expect(one).toEqual([
            { userId: expect.any(Number), username: '搜索用户13', loginName: 'search_13', mobile: '19907770013' },
        ]);
        expect(await search('00000000000')).toEqual([]);
        // Demo staff can be found by their numbers.
        expect((await search('13912345678')).map((u) => u.loginName)).toEqual(['zhangwei']);
    });
});
