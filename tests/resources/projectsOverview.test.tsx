import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { alertEvents, users } from '../../server/db/schema';
import { createTestServer, type TestServer } from '../../server/testing';
import { chooseOption, currentLocation, mswServer, platformHandler, renderApp, searchParam } from './helpers';

/**
 * /programOverview/{id} against the reference platform in-process: header and counts, the three pies, the alert
 * table (time trimmed), the empty rule table, staff add / remove, and the project's devices (search, page, 移出项目,
 * 添加设备). Each test works in a project of its own.
 */

interface Answer<T> {
    code: number;
    msg: string;
    data: T;
}

interface ProjectRow {
    id: number;
    name: string;
    code: string;
}

const section = (name: string) => screen.getByRole('region', { name });
const tableRows = (name: string) => within(screen.getByRole('table', { name })).getAllByRole('row').slice(1);

describe('project overview against the platform', () => {
    let platform: TestServer;
    let serial = 0;
    let productName = '';

    beforeAll(async () => {
        platform = await createTestServer({ seed: true });
        // Two users of this test's own, found by a phone prefix no seeded user has.
        await platform.db.insert(users).values([
            {
                username: 'zhangsan_t',
                displayName: '张三',
                userCode: 'T_STAFF_01',
                mobile: '19955501001',
                passwordHash: 'x',
                passwordSalt: 'x',
            },
            {
                username: 'lisi_t',
                displayName: '李四',
                userCode: 'T_STAFF_02',
                mobile: '19955502002',
                passwordHash: 'x',
                passwordSalt: 'x',
            },
        ]);
    });
    afterAll(() => platform.close());
    beforeEach(() => {
        mswServer.use(platformHandler(platform));
    });

    async function json<T>(path: string, init?: RequestInit): Promise<Answer<T>> {
        return (await platform.fetch(path, init)).json() as Promise<Answer<T>>;
    }

    async function newProject(name: string): Promise<ProjectRow> {
        const scenes = (await json<{ list: Array<{ id: number; name: string }> }>('/api/project/sceneList')).data.list;
        const body = new URLSearchParams({ name, classId: String(scenes[0].id), remark: '概览测试' });
        const answer = await json<ProjectRow>('/api/project/save', { method: 'POST', body });
        expect(answer.code).toBe(200);
        return answer.data;
    }

    /** A product and devices named `${prefix}_${i}` in it, bound to the project. */
    async function bindDevices(projectId: number, prefix: string, count: number): Promise<number[]> {
        const tree = (await json<Array<{ id: number; children?: unknown[] }>>('/api/product/list-category')).data;
        let node = tree[0] as { id: number; children?: Array<{ id: number; children?: unknown[] }> };
        while (node.children?.length) node = node.children[0] as typeof node;
        serial += 1;
        productName = `概览测试产品${serial}_${Date.now() % 10000}`;
        const product = await json<{ productKey: string }>('/api/product/save', {
            method: 'POST',
            body: new URLSearchParams({
                productName,
                nodeType: '0',
                gatewayType: '0',
                categoryId: String(node.id),
                networkType: '5',
                dataType: '0',
            }),
        });
        expect(product.code).toBe(200);
        const ids: number[] = [];
        for (let i = 1; i <= count; i++) {
            const body = new URLSearchParams({
                productKey: product.data.productKey,
                deviceName: `${prefix}_${String(i).padStart(2, '0')}`,
            });
            const device = await json<{ deviceId: number }>('/api/device/save', { method: 'POST', body });
            expect(device.code).toBe(0);
            ids.push(device.data.deviceId);
        }
        const body = new URLSearchParams({ projectId: String(projectId) });
        for (const id of ids) body.append('deviceId', String(id));
        expect((await json('/api/device/bind', { method: 'POST', body })).code).toBe(0);
        return ids;
    }

    it('shows the header, the pies, alerts with their time trimmed and the empty rule table', async () => {
        const project = await newProject('概览图表项目');
        await bindDevices(project.id, 'pie', 3);
        await platform.db.insert(alertEvents).values([
            {
                type: 1,
                status: 0,
                projectId: project.id,
                deviceName: 'pie_01',
                params: '温度过高',
                ts: new Date('2025-03-01T02:03:04.567Z'),
            },
            { type: 3, status: 1, projectId: project.id, deviceName: 'pie_02', params: '<i>已恢复</i>' },
        ]);

        renderApp(`/programOverview/${project.id}`);
        expect(
            await screen.findByRole('heading', { name: '概览图表项目', level: 1 }, { timeout: 30_000 }),
        ).toBeTruthy();
        expect(screen.getByLabelText('项目编号')).toHaveTextContent(project.code);
        expect(screen.getByTestId('count-deviceCount')).toHaveTextContent('3');
        expect(screen.getByTestId('count-warn')).toHaveTextContent('1');

        // Each pie's card carries its total: 3 devices (all inactive), 3 by type, 1 pending alert.
        // The charts are a chunk of their own: wait for it once.
        await screen.findByRole('heading', { name: /^设备状态/, level: 2 }, { timeout: 30_000 });
        const pieTitle = (title: string) =>
            screen.getByRole('heading', { name: new RegExp(`^${title}`), level: 2 }).textContent;
        await waitFor(() => expect(pieTitle('设备状态')).toBe('设备状态共 3'));
        await waitFor(() => expect(pieTitle('设备类型')).toBe('设备类型共 3'));
        await waitFor(() => expect(pieTitle('待处理告警')).toBe('待处理告警共 1'));

        // Newest first; 2025-03-01T02:03:04.567Z is 10:03:04 in Asia/Shanghai, shown without '.567'.
        await waitFor(() => expect(tableRows('告警事件')).toHaveLength(2));
        const [newest, oldest] = tableRows('告警事件');
        expect(newest).toHaveTextContent('一般');
        expect(newest).toHaveTextContent('<i>已恢复</i>');
        expect(newest).toHaveTextContent('已处理');
        expect(oldest).toHaveTextContent('紧急');
        expect(oldest).toHaveTextContent('待处理');
        expect(within(oldest).getByText('2025-03-01 10:03:04')).toBeInTheDocument();
        expect(oldest).not.toHaveTextContent('.567');

        const rules = section('规则引擎');
        expect(
            within(rules)
                .getAllByRole('columnheader')
                .map((h) => h.textContent),
        ).toEqual(['规则名称', '状态', '描述', '创建时间']);
        expect(within(rules).getByText('暂无规则')).toBeInTheDocument();

        // Health: one point a day, the latest shown in words; the range is in the URL.
        expect(await screen.findByTestId('chart-summary', undefined, { timeout: 15_000 })).toHaveTextContent(
            /最近一天 \d+ 分/,
        );
        fireEvent.click(screen.getByRole('button', { name: '近30天' }));
        await waitFor(() => expect(searchParam('days')).toBe('30'));
    }, 90_000);

    it('adds staff found by phone number and removes them after asking', async () => {
        const project = await newProject('概览人员项目');
        renderApp(`/programOverview/${project.id}`);
        const staff = await screen.findByRole('region', { name: '项目人员' }, { timeout: 30_000 });
        expect(await within(staff).findByText('暂无项目人员')).toBeInTheDocument();

        fireEvent.click(within(staff).getByRole('button', { name: '添加人员' }));
        const dialog = await screen.findByRole('dialog', { name: '添加人员' });
        // Nothing chosen: it says so and sends nothing.
        fireEvent.click(within(dialog).getByRole('button', { name: '确定' }));
        expect(await screen.findByText('请选择要添加的人员')).toBeInTheDocument();

        await userEvent.type(within(dialog).getByRole('textbox', { name: '手机号码' }), '199555{Enter}');
        const picked = () => within(within(dialog).getByRole('table', { name: '选择人员' }));
        await waitFor(() => expect(picked().getAllByRole('checkbox', { name: /^选择 / })).toHaveLength(2));
        expect(picked().queryByText(/管理员/)).toBeNull();
        expect(picked().getByText('zhangsan_t')).toBeInTheDocument();
        fireEvent.click(picked().getByText('张三'));
        fireEvent.click(picked().getByText('李四'));
        expect(within(dialog).getByText('已选 2 个')).toBeInTheDocument();
        fireEvent.click(within(dialog).getByRole('button', { name: '确定' }));
        expect(await screen.findByText('添加成功')).toBeInTheDocument();
        await waitFor(() => expect(tableRows('项目人员')).toHaveLength(2));
        expect(within(staff).getByText('19955501001')).toBeInTheDocument();

        const listed = await json<{ list: Array<{ id: number; username: string }> }>(
            `/api/project-user/getUserList?projectCode=${project.code}`,
        );
        expect(listed.data.list.map((u) => u.username).sort()).toEqual(['张三', '李四'].sort());

        // Already on the project: shown ticked and not selectable.
        fireEvent.click(within(staff).getByRole('button', { name: '添加人员' }));
        const again = await screen.findByRole('dialog', { name: '添加人员' });
        await userEvent.type(within(again).getByRole('textbox', { name: '手机号码' }), '1995550{Enter}');
        await waitFor(() => expect(within(again).getAllByText(/已在项目中/)).toHaveLength(2));
        const zhangRow = within(again).getByText('张三').closest('tr')!;
        expect(within(zhangRow).getByRole('checkbox')).toBeChecked();
        expect(within(zhangRow).getByRole('checkbox')).toBeDisabled();
        fireEvent.click(within(again).getByRole('button', { name: '取消' }));
        await waitFor(() => expect(screen.queryByRole('dialog', { name: '添加人员' })).toBeNull());

        const zhang = within(staff).getByText('张三').closest('tr')!;
        fireEvent.click(within(zhang).getByRole('button', { name: '移除' }));
        const confirm = await screen.findByRole('dialog', { name: '提示' });
        expect(confirm).toHaveTextContent('确定将「张三」移出项目人员吗？');
        fireEvent.click(within(confirm).getByRole('button', { name: '确定' }));
        expect(await screen.findByText('移除成功')).toBeInTheDocument();
        await waitFor(() => expect(tableRows('项目人员')).toHaveLength(1));
        const left = await json<{ list: Array<{ username: string }> }>(
            `/api/project-user/getUserList?projectCode=${project.code}`,
        );
        expect(left.data.list.map((u) => u.username)).toEqual(['李四']);
    }, 90_000);

    it('lists the project devices with search and pages, removes one, and adds one to the project', async () => {
        const project = await newProject('概览设备项目');
        const ids = await bindDevices(project.id, 'ovd', 12);
        renderApp(`/programOverview/${project.id}`);
        const devices = await screen.findByRole('region', { name: '项目设备' }, { timeout: 30_000 });
        await waitFor(() => expect(tableRows('项目设备')).toHaveLength(10));
        expect(tableRows('项目设备')[0]).toHaveTextContent('ovd_12');

        fireEvent.click(within(devices).getByRole('button', { name: '下一页' }));
        await waitFor(() => expect(tableRows('项目设备')).toHaveLength(2));
        expect(searchParam('devicePage')).toBe('2');

        await userEvent.type(within(devices).getByRole('textbox', { name: 'DeviceName' }), 'ovd_0');
        await waitFor(() => expect(tableRows('项目设备')).toHaveLength(9), { timeout: 15_000 });
        expect(searchParam('deviceName')).toBe('ovd_0');
        // A new search starts on its first page.
        expect(searchParam('devicePage') ?? '1').toBe('1');

        const row = within(devices).getByText('ovd_05').closest('tr')!;
        expect(within(row).getByRole('link', { name: 'ovd_05' })).toHaveAttribute(
            'href',
            expect.stringContaining(`devicesId=${ids[4]}`),
        );
        fireEvent.click(within(row).getByRole('button', { name: '移出项目' }));
        const confirm = await screen.findByRole('dialog', { name: '提示' });
        expect(confirm).toHaveTextContent('确定将设备 ovd_05 移出项目「概览设备项目」吗？');
        fireEvent.click(within(confirm).getByRole('button', { name: '确定' }));
        expect(await screen.findByText('操作成功')).toBeInTheDocument();
        await waitFor(() => expect(tableRows('项目设备')).toHaveLength(8));
        await waitFor(() => expect(screen.getByTestId('count-deviceCount')).toHaveTextContent('11'));
        const detail = await json<{ device: { projectId: number | null } }>(`/api/device/detail?deviceId=${ids[4]}`);
        expect(detail.data.device.projectId).toBeNull();

        // 添加设备 adds a device to THIS project: it is listed among the project's devices.
        fireEvent.click(within(devices).getByRole('button', { name: '添加设备' }));
        const add = await screen.findByRole('dialog', { name: '添加设备' }, { timeout: 15_000 });
        expect(add).toHaveTextContent('添加的设备将关联到本项目「概览设备项目」');
        fireEvent.click(within(add).getByRole('button', { name: '确定' }));
        await waitFor(() => expect(add).toHaveTextContent('请选择产品!'), { timeout: 15_000 });
        await chooseOption(within(add).getByRole('combobox', { name: /所属产品/ }), productName);
        await userEvent.type(within(add).getByLabelText(/DeviceName/), 'ovd_013');
        fireEvent.click(within(add).getByRole('button', { name: '确定' }));
        expect(await screen.findByText('添加成功')).toBeInTheDocument();
        await waitFor(() => expect(within(devices).getByText('ovd_013')).toBeInTheDocument());
        await waitFor(() => expect(screen.getByTestId('count-deviceCount')).toHaveTextContent('12'));
        const listed = await json<{ records: Array<{ deviceName: string; projectId: number }> }>(
            `/api/device/listByProject?projectId=${project.id}&deviceName=ovd_013&pageNumber=1&pageSize=10`,
        );
        expect(listed.data.records.map((d) => [d.deviceName, d.projectId])).toEqual([['ovd_013', project.id]]);
    }, 90_000);

    it('says 项目不存在 with the way back for an unknown project', async () => {
        renderApp('/programOverview/999999');
        expect(await screen.findByText('项目不存在', undefined, { timeout: 30_000 })).toBeInTheDocument();
        expect(screen.getByText(/该项目可能已被删除，或链接有误/)).toBeInTheDocument();
        fireEvent.click(screen.getByRole('link', { name: '返回项目列表' }));
        await waitFor(() => expect(currentLocation.pathname).toBe('/programList'));
    }, 60_000);
});
