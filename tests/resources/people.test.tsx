import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import { http } from 'msw';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eq } from 'drizzle-orm';
import { OPERATOR_ROLE_ID, READONLY_ROLE_ID } from '../../schemas/rights';
import { roles } from '../../server/db/schema';
import { createTestServer, type TestServer } from '../../server/testing';
import { defineResource, type AnyPaths } from '../../src/engine/types';
import { bodyRows, mswServer, platformHandler, renderApp } from './helpers';

/**
 * People and rights against the reference platform in-process: the console follows the signed-in user's role (the
 * buttons an action's `right` names, the menu) and the administrator's people and role screens work end to end.
 */

let platform: TestServer;

beforeAll(async () => {
    platform = await createTestServer({ seed: true });
});
afterAll(() => platform.close());

async function post(path: string, form: Record<string, string | number>) {
    const res = await platform.fetch(path, {
        method: 'POST',
        body: new URLSearchParams(Object.entries(form).map(([k, v]) => [k, String(v)])),
    });
    return (await res.json()) as { code: number; data: Record<string, unknown> };
}

/** Every request to the platform with this user's session. */
function signedInAs(token: string) {
    return http.all('*', async ({ request }) => {
        const headers = new Headers(request.headers);
        headers.set('cookie', `Authorization=${token}`);
        const body = ['GET', 'HEAD'].includes(request.method) ? undefined : await request.arrayBuffer();
        return platform.app.fetch(new Request(request.url, { method: request.method, headers, body }));
    });
}

async function signIn(username: string, password: string): Promise<string> {
    const res = await platform.anonFetch('/sso/login', {
        method: 'POST',
        body: new URLSearchParams({ username, password }),
    });
    const token = /^Authorization=([^;]+);/.exec(res.headers.get('set-cookie') ?? '')?.[1];
    if (!token) throw new Error(`${username} could not sign in (${res.status})`);
    return token;
}

describe('the console follows the role', () => {
    it('shows a 只读 user of one project its devices without 删除 or 添加设备, and no 系统管理', async () => {
        const saved = await post('/api/users/save', {
            displayName: '只读甲',
            username: 'reader_ui',
            mobile: '13900001234',
            password: 'Reader_123',
            roleId: READONLY_ROLE_ID,
        });
        await post('/api/project-user/addUser', {
            list: JSON.stringify([{ projectCode: 'P2024001', userId: saved.data.id }]),
        });
        mswServer.use(signedInAs(await signIn('reader_ui', 'Reader_123')));
        renderApp('/deviceInstance');
        // Loading rows come first: wait for the list itself.
        await waitFor(
            () => {
                expect(bodyRows().length).toBeGreaterThan(0);
                for (const row of bodyRows()) expect(row.textContent).toContain('智慧园区示范项目');
            },
            { timeout: 10_000 },
        );
        for (const row of bodyRows()) expect(within(row).queryByRole('button', { name: /删除/ })).toBeNull();
        expect(screen.queryByRole('button', { name: '添加设备' })).toBeNull();
        expect(screen.queryByRole('link', { name: /人员管理/ })).toBeNull();
        expect(await screen.findByRole('link', { name: /设备管理/ })).toBeTruthy();
    });
});

describe('the administrator', () => {
    it('resets a password on /personnelManage: shown once in a dialog, and it signs in', async () => {
        mswServer.use(platformHandler(platform));
        renderApp('/personnelManage');
        const row = (await screen.findByText('zhangwei', undefined, { timeout: 10_000 })).closest('tr')!;
        fireEvent.click(within(row).getByRole('button', { name: '重置密码 zhangwei' }));
        const confirm = await screen.findByRole('dialog');
        expect(confirm.textContent).toContain('确定重置「张伟」的密码吗？');
        fireEvent.click(within(confirm).getByRole('button', { name: '确定' }));
        const shown = await screen.findByRole('dialog', { name: '新密码' }, { timeout: 10_000 });
        expect(shown.textContent).toContain('只显示这一次');
        const password = within(shown).getByLabelText('新密码').textContent ?? '';
        expect(password).toMatch(/^[A-Za-z0-9]{12}$/);
        expect(await signIn('zhangwei', password)).toBeTruthy();
        fireEvent.click(within(shown).getByRole('button', { name: '关闭' }));
        await waitFor(() => expect(screen.queryByRole('dialog', { name: '新密码' })).toBeNull());
    });

    it('lists the three built-in roles on /roleList with what each may do', async () => {
        mswServer.use(platformHandler(platform));
        renderApp('/roleList');
        await screen.findByText('运维', undefined, { timeout: 10_000 });
        const rows = bodyRows();
        expect(rows.map((r) => (r as HTMLTableRowElement).cells[0].textContent)).toEqual(['管理员', '运维', '只读']);
        expect(rows[0].textContent).toContain('全部权限');
        expect(rows[1].textContent).toContain('新增设备');
        expect(rows[1].textContent).not.toContain('删除设备');
        expect(rows[2].textContent).toContain('只能查看');
    });

    it("grants a role the menu right only an integrator's new definition declares, from the /roleList form", async () => {
        // A definition file the product does not have (over an imagined platform: AnyPaths); its entry's right is its
        // name (schemas/menu.ts does not list it).
        const forwarding = defineResource<AnyPaths>({
            name: 'forwardDest',
            label: '数据转发',
            path: 'forwardDest',
            menu: { label: '转发目的地', section: '设备接入', order: 99 },
            fields: { name: { label: '名称' } },
            api: { success: 'code200', getList: { get: '/api/forward/list', read: 'data' } },
        });
        const sent: string[] = [];
        mswServer.use(
            http.post('*/api/role/save', async ({ request }) => {
                sent.push(await request.clone().text());
                return undefined;
            }),
            platformHandler(platform),
        );
        renderApp('/roleList', { extraResources: [forwarding] });
        fireEvent.click(await screen.findByRole('button', { name: '新增角色' }, { timeout: 10_000 }));
        const dialog = await screen.findByRole('dialog');
        fireEvent.change(within(dialog).getByLabelText(/角色名称/), { target: { value: '转发管理员' } });
        fireEvent.click(within(dialog).getByRole('radio', { name: '指定菜单' }));
        // Offered in its section's row, named by its menu label, beside the entries schemas/menu.ts lists.
        const box = await within(dialog).findByRole('checkbox', { name: '设备接入：转发目的地' });
        expect(within(dialog).getByRole('checkbox', { name: '设备接入：设备管理' })).toBeInTheDocument();
        fireEvent.click(box);
        fireEvent.click(within(dialog).getByRole('checkbox', { name: '设备接入：设备管理' }));
        fireEvent.click(within(dialog).getByRole('button', { name: /确定|保存/ }));
        await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull(), { timeout: 10_000 });
        expect(sent).toHaveLength(1);
        expect(JSON.parse(new URLSearchParams(sent[0]).get('menus') ?? '')).toEqual(['forwardDest', 'deviceInstance']);
        const [stored] = await platform.db
            .select({ menus: roles.menus })
            .from(roles)
            .where(eq(roles.name, '转发管理员'));
        expect(stored.menus).toEqual(['forwardDest', 'deviceInstance']);
    });

    it('saves the built-in 运维 role unchanged from its /roleList form with its wildcard rights kept', async () => {
        const stored = async () =>
            (await platform.db.select({ rights: roles.rights }).from(roles).where(eq(roles.id, OPERATOR_ROLE_ID)))[0]
                .rights;
        const before = await stored();
        expect(before).toContain('*.create');
        mswServer.use(platformHandler(platform));
        renderApp('/roleList');
        const row = (await screen.findByText('运维', undefined, { timeout: 10_000 })).closest('tr')!;
        fireEvent.click(within(row).getByRole('button', { name: /编辑/ }));
        const dialog = await screen.findByRole('dialog');
        // The wildcards are shown as the rights they cover, ticked; delete is not among them.
        const boxes = (action: string) =>
            within(dialog).getAllByRole('checkbox', { name: new RegExp(`：${action}$`) }) as HTMLInputElement[];
        await waitFor(() => expect(boxes('新增').length).toBeGreaterThan(5));
        for (const box of boxes('新增')) expect(box.checked).toBe(true);
        for (const box of boxes('下发指令')) expect(box.checked).toBe(true);
        for (const box of boxes('删除')) expect(box.checked).toBe(false);
        expect(within(dialog).getByRole('checkbox', { name: '边缘计算：部署' })).toBeChecked();
        fireEvent.click(within(dialog).getByRole('button', { name: /确定|保存/ }));
        await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull(), { timeout: 10_000 });
        expect(await stored()).toEqual(before);
    });
});
