// @vitest-environment node
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { roles } from '../../server/db/schema';
import { OPERATOR_ROLE_ID, READONLY_ROLE_ID } from '../../schemas/rights';
import { loadRightTable } from '../../server/rights/table';
import { createTestServer, type TestServer } from '../../server/testing';
import { call, form, protectedOperations, rowCounts } from './support';
import { as, json, makeUser } from './rolesSupport';
import type { ResourceDefinition } from '../../src/engine/types';
import type { MenuNode } from '../../schemas/menu';
import { buildMenu, declaredRights, menuFilter } from '../../src/layout/menuModel';

let s: TestServer;
let readonly: { id: number; token: string };
let operator: { id: number; token: string };
const table = loadRightTable();

beforeAll(async () => {
    s = await createTestServer({ clientIp: (c) => c.req.header('x-test-ip') ?? 'unknown' });
    readonly = await makeUser(s, { username: 'reader1', roleId: READONLY_ROLE_ID, projectCodes: ['P2024001'] });
    operator = await makeUser(s, { username: 'operator1', roleId: OPERATOR_ROLE_ID, projectCodes: ['P2024001'] });
});
afterAll(() => s?.close());

const messageOf = (body: Record<string, unknown>) => String(body.msg ?? body.returnMessage ?? '');

/** The operations that declare a right the role may lack (every right but signedIn), from openapi.yaml. */
const guarded = protectedOperations.filter((o) => {
    const right = table.rightFor(o.method, o.path);
    return right !== undefined && right !== 'signedIn';
});

describe('rights declared in openapi.yaml (x-right), enforced by the server', () => {
    it('covers every write of the contract, and names only rights of the catalogue', () => {
        const writes = protectedOperations.filter((o) => o.method !== 'GET');
        for (const o of writes) expect(o.op['x-right'], `${o.method} ${o.path}`).toBeTypeOf('string');
        expect(guarded.length).toBeGreaterThan(50);
    });

    it.each(guarded.map((o) => [`${o.method} ${o.path}`, o] as const))(
        '%s answers 403 with a Chinese message to 只读, and writes nothing',
        async (_name, o) => {
            const before = o.method === 'GET' ? undefined : await rowCounts(s.db);
            const res = await as(s, readonly.token)(o.path, { method: o.method });
            expect(res.status).toBe(403);
            const body = (await res.json()) as Record<string, unknown>;
            expect(messageOf(body)).toMatch(/^无权限：当前角色没有「.+」权限，请联系管理员$/);
            if (before) expect(await rowCounts(s.db)).toEqual(before);
        },
    );

    it('lets 运维 create and edit but not delete', async () => {
        const call = as(s, operator.token);
        const created = await call('/api/product/save', {
            method: 'POST',
            body: new URLSearchParams({
                productName: '运维建的产品',
                categoryId: '3',
                nodeType: '0',
                gatewayType: '0',
                networkType: '5',
                dataType: '0',
                projectCode: 'P2024001',
            }),
        });
        expect(created.status).toBe(200);
        const productId = ((await created.json()) as { data: { productId: number } }).data.productId;
        const refused = await call(`/api/product?productId=${productId}`, { method: 'DELETE' });
        expect(refused.status).toBe(403);
        expect(messageOf(await json(refused))).toContain('删除产品');
        // The administrator may.
        expect((await s.fetch(`/api/product?productId=${productId}`, { method: 'DELETE' })).status).toBe(200);
    });

    it('keeps people, roles and the security centre to administrators, reads included', async () => {
        for (const path of [
            '/api/users/list',
            '/api/role/list',
            '/api/security/sessions',
            '/api/security/loginHistory',
        ]) {
            expect((await as(s, operator.token)(path)).status, path).toBe(403);
            expect((await s.fetch(path)).status, path).toBe(200);
        }
    });

    it('serves each role its own menu: no 系统管理 for 只读, and a custom role only what it grants', async () => {
        const ids = (node: { id: string; children?: unknown[] }): string[] => [
            node.id,
            ...((node.children ?? []) as Array<{ id: string }>).flatMap(ids),
        ];
        const adminMenu = await json<{ data: { menu: { id: string } } }>(s.fetch('/api/menu'));
        expect(ids(adminMenu.data.menu)).toEqual(
            expect.arrayContaining(['personnelManage', 'roleList', 'safetybutler']),
        );
        const readerMenu = await json<{ data: { menu: { id: string } } }>(as(s, readonly.token)('/api/menu'));
        expect(ids(readerMenu.data.menu)).not.toContain('personnelManage');
        expect(ids(readerMenu.data.menu)).toContain('deviceInstance');

        const role = await call<{ data: { id: number; rights: string[] } }>(
            s,
            'POST',
            '/api/role/save',
            form({
                name: '设备管理员',
                menus: JSON.stringify(['deviceInstance']),
                rights: JSON.stringify(['device.delete']),
            }),
        );
        expect(role.status).toBe(200);
        expect(role.body.data.rights).toEqual(['device.delete']);
        const custom = await makeUser(s, { username: 'devadmin', roleId: role.body.data.id });
        const menu = await json<{ data: { menu: { id: string } } }>(as(s, custom.token)('/api/menu'));
        expect(ids(menu.data.menu).sort()).toEqual(['accessplatform', 'deviceAccess', 'deviceInstance'].sort());
        const me = await json<{ data: { rights: string[]; role: { name: string } } }>(
            as(s, custom.token)('/api/sso/getUserInfo'),
        );
        expect(me.data).toMatchObject({ rights: ['device.delete'], role: { name: '设备管理员' } });
        // A role some user holds cannot be deleted; built-in roles never.
        const held = await call(s, 'DELETE', `/api/role/delete?id=${role.body.data.id}`);
        expect(held.status).toBe(400);
        expect((await call(s, 'DELETE', `/api/role/delete?id=${READONLY_ROLE_ID}`)).body).toMatchObject({
            msg: '内置角色不能删除',
        });
    });

    it('grants a right only a console definition declares: the role holding it sees the entry, another not; junk is refused', async () => {
        // An integrator's definition the server's schemas/menu.ts knows nothing of: its menu right is its name.
        const forwarding = {
            name: 'forwardDest',
            label: '数据转发',
            path: 'forwardDest',
            menu: { label: '转发目的地', section: '设备接入' },
            fields: {},
        } as unknown as ResourceDefinition;
        expect(declaredRights([forwarding])).toEqual([
            { right: 'forwardDest', label: '转发目的地', section: '设备接入', sectionId: 'deviceAccess' },
        ]);
        const save = (name: string, menus: string[]) =>
            call<{ data: { id: number; menus: string[] | null }; msg: string }>(
                s,
                'POST',
                '/api/role/save',
                form({ name, allMenus: 0, menus: JSON.stringify(menus), rights: '[]' }),
            );
        const granted = await save('转发管理员', ['deviceInstance', 'forwardDest']);
        expect(granted.status).toBe(200);
        expect(granted.body.data.menus).toEqual(['deviceInstance', 'forwardDest']);
        const other = await save('设备查看员', ['deviceInstance']);
        expect(other.status).toBe(200);
        const holder = await makeUser(s, { username: 'forwarder', roleId: granted.body.data.id });
        const lacker = await makeUser(s, { username: 'deviceviewer', roleId: other.body.data.id });

        type MenuAnswer = { data: { menu: MenuNode; access: { all?: boolean; except?: string[]; only?: string[] } } };
        const entries = async (token: string) => {
            const answer = await json<MenuAnswer>(as(s, token)('/api/menu'));
            const sections = [{ label: '设备接入', order: 30 }];
            return buildMenu([forwarding], menuFilter(answer.data), sections).flatMap((e) =>
                (e.children ?? [e]).map((c) => c.label),
            );
        };
        expect((await json<MenuAnswer>(as(s, holder.token)('/api/menu'))).data.access).toEqual({
            only: ['deviceInstance', 'forwardDest'],
        });
        expect(await entries(holder.token)).toEqual(['转发目的地']);
        expect(await entries(lacker.token)).toEqual([]);
        // Administrators see every entry; a role granted every entry (allMenus) too.
        expect(await entries(s.token)).toEqual(['转发目的地']);

        // Not a right's shape: refused with a Chinese 400, nothing stored.
        for (const junk of ['<script>', '1abc', 'a b', 'x'.repeat(65), '../etc']) {
            const refused = await save(`坏角色${junk.length}`, [junk]);
            expect(refused.status, junk).toBe(400);
            expect(refused.body.msg, junk).toMatch(/^未知的菜单：/);
        }
        const many = await save(
            '太多菜单',
            Array.from({ length: 201 }, (_, i) => `entry${i}`),
        );
        expect(many.status).toBe(400);
        expect(many.body.msg).toBe('菜单不能超过200项');
        // An update keeps the right too.
        const updated = await call<{ data: { menus: string[] } }>(
            s,
            'POST',
            '/api/role/update',
            form({
                id: other.body.data.id,
                name: '设备查看员',
                allMenus: 0,
                menus: JSON.stringify(['forwardDest']),
                rights: '[]',
            }),
        );
        expect(updated.status).toBe(200);
        expect(updated.body.data.menus).toEqual(['forwardDest']);
    });

    it("keeps the built-in 运维 role's wildcards when its form is saved as shown, and drops only an unticked one", async () => {
        const stored = async () => (await s.db.select().from(roles).where(eq(roles.id, OPERATOR_ROLE_ID)))[0];
        const original = await stored();
        expect(original.rights).toEqual(['*.create', '*.edit', '*.bind', '*.push', '*.deploy', '*.downlink']);
        // What /roleList's form shows and sends back: the rights expanded, each ticked.
        const list = await call<{
            data: { records: Array<{ id: number; name: string; remark: string; rights: string[] }> };
        }>(s, 'GET', '/api/role/list');
        const shown = list.body.data.records.find((r) => r.id === OPERATOR_ROLE_ID)!;
        expect(shown.rights).toContain('edge.deploy');
        const save = (rights: string[]) =>
            call(
                s,
                'POST',
                '/api/role/update',
                form({
                    id: OPERATOR_ROLE_ID,
                    name: shown.name,
                    remark: shown.remark,
                    allMenus: 1,
                    rights: JSON.stringify(rights),
                }),
            );
        expect((await save(shown.rights)).status).toBe(200);
        expect((await stored()).rights).toEqual(original.rights);
        // Unticking 新增设备 drops *.create alone; the other families' create rights stay, one by one.
        expect((await save(shown.rights.filter((r) => r !== 'device.create'))).status).toBe(200);
        const after = (await stored()).rights!;
        expect(after).toEqual(
            expect.arrayContaining(['*.edit', '*.bind', '*.push', '*.deploy', '*.downlink', 'product.create']),
        );
        expect(after).not.toContain('*.create');
        expect(after).not.toContain('device.create');
        await s.db.update(roles).set({ rights: original.rights }).where(eq(roles.id, OPERATOR_ROLE_ID));
        expect((await save(shown.rights)).status).toBe(200);
        expect((await stored()).rights).toEqual(original.rights);
    });
});
