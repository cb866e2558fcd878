import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { http } from 'msw';
import { describe, expect, it, vi } from 'vitest';
import {
    bodyRows,
    chooseOption,
    currentLocation,
    dismissNotification,
    mswServer,
    ok,
    renderApp,
    searchParam,
} from './helpers';
import { device, deviceFamily, emptyCalls, type FakeDevice } from './devices.fake';

/** /devices (SPEC.md "Device management with tabs") against a fake that follows the contract. */

const submit = (dialog: HTMLElement) => fireEvent.click(within(dialog).getByRole('button', { name: '确定' }));
const rowOf = (name: string) => screen.getByText(name).closest('tr')!;
const select = (name: string) => fireEvent.click(within(rowOf(name)).getByRole('checkbox'));

async function waitForRows(n: number) {
    await waitFor(() => expect(bodyRows()).toHaveLength(n));
}

/** Eight devices, newest first: dev_008 and dev_007 in project 11, dev_006 in project 12, the rest unbound. */
function eightDevices(): FakeDevice[] {
    const project = (i: number) =>
        i >= 7
            ? { projectId: 11, projectName: '智慧园区示范项目' }
            : i === 6
              ? { projectId: 12, projectName: '城市照明改造项目' }
              : { projectId: null, projectName: null };
    return Array.from({ length: 8 }, (_, k) => {
        const i = 8 - k;
        return device(i, { productId: i > 6 ? 2 : 1, status: i === 8 ? 'ONLINE' : 'INACTIVE', ...project(i) });
    });
}

describe('/devices list', () => {
    it('preselects ?pk, keeps it in the URL while paging 10 (or 5) at a time, and counts that product', async () => {
        const calls = emptyCalls();
        const rows = Array.from({ length: 7 }, (_, k) => device(7 - k)).concat(device(20, { productId: 2 }));
        mswServer.use(...deviceFamily(rows, calls));
        renderApp('/devices?pk=pkLamp00001');

        // Issue 9: 10 a page like every other list, with 5, 10 and 20 offered.
        await waitForRows(7);
        expect(calls.list[0].get('productKey')).toBe('pkLamp00001');
        expect(calls.list[0].get('pageSize')).toBe('10');
        await waitFor(() => expect(screen.getByRole('combobox', { name: '产品' })).toHaveTextContent('智能路灯'));
        await waitFor(() => expect(screen.getByTestId('count-total')).toHaveTextContent('7'));
        expect(screen.getByTestId('count-inActiveTotal')).toHaveTextContent('7');
        expect(screen.getByTestId('count-onlineTotal')).toHaveTextContent('0');

        fireEvent.mouseDown(screen.getByRole('combobox', { name: /每页条数/ }));
        const listbox = await screen.findByRole('listbox');
        expect(
            within(listbox)
                .getAllByRole('option')
                .map((o) => o.textContent),
        ).toEqual(['5 条/页', '10 条/页', '20 条/页']);
        fireEvent.click(within(listbox).getByRole('option', { name: '5 条/页' }));
        await waitForRows(5);
        expect(calls.list.at(-1)?.get('pageSize')).toBe('5');
        expect(searchParam('pk')).toBe('pkLamp00001');

        fireEvent.click(screen.getByRole('button', { name: /下一页|next page/i }));
        await waitForRows(2);
        expect(searchParam('page')).toBe('2');
        expect(searchParam('pk')).toBe('pkLamp00001');

        await chooseOption(screen.getByRole('combobox', { name: '产品' }), '全部产品');
        await waitForRows(5);
        expect(searchParam('pk')).toBeNull();
        expect(searchParam('page')).toBe('1');
        await waitFor(() => expect(screen.getByTestId('count-total')).toHaveTextContent('8'));
    });

    it('shows the video list in its tab with its status filter, and keeps the tab in the URL', async () => {
        const videoCalls: URLSearchParams[] = [];
        mswServer.use(
            ...deviceFamily([device(1)]),
            http.get('*/api/video-device/list', ({ request }) => {
                videoCalls.push(new URL(request.url).searchParams);
                return ok({ records: [], total: 0 });
            }),
        );
        renderApp('/devices');
        await waitForRows(1);
        fireEvent.click(screen.getByRole('tab', { name: '视频流列表' }));
        expect(await screen.findByText('暂无视频设备')).toBeInTheDocument();
        expect(searchParam('tab')).toBe('video');
        // The video list of /videoList itself: its status filter (全部 / 已激活 / 已停止) and its add buttons.
        for (const status of ['全部', '已激活', '已停止']) {
            expect(screen.getByRole('tab', { name: status })).toBeInTheDocument();
        }
        expect(screen.getAllByRole('button', { name: '添加RTSP设备' }).length).toBeGreaterThan(0);
        fireEvent.click(screen.getByRole('tab', { name: '已停止' }));
        await waitFor(() => expect(videoCalls.at(-1)?.get('pushing')).toBe('0'));
        expect(searchParam('status')).toBe('0');
        fireEvent.click(screen.getByRole('tab', { name: '设备列表' }));
        await waitForRows(1);
        expect(searchParam('tab')).toBeNull();
    });

    it('links 查看 to the device detail route and downloads the export and the template with the filters', async () => {
        // The engine's download action follows the call's URL through an <a download> it clicks.
        const clicks: HTMLAnchorElement[] = [];
        vi.spyOn(HTMLAnchorElement.prototype, 'click').mockImplementation(function (this: HTMLAnchorElement) {
            clicks.push(this);
        });
        mswServer.use(...deviceFamily([device(3)]));
        renderApp('/devices?pk=pkLamp00001');
        await waitForRows(1);
        expect(within(rowOf('dev_003')).getByRole('link', { name: '查看' })).toHaveAttribute(
            'href',
            '/devices/pkLamp00001/dev_003?devicesId=3',
        );
        fireEvent.click(screen.getByRole('button', { name: '导出' }));
        expect(clicks).toHaveLength(1);
        expect(new URL(clicks[0].href).pathname + new URL(clicks[0].href).search).toBe(
            '/api/device/export?productKey=pkLamp00001',
        );
        expect(clicks[0].hasAttribute('download')).toBe(true);
        fireEvent.click(screen.getByRole('button', { name: '批量导入' }));
        const dialog = await screen.findByRole('dialog', { name: '批量导入' });
        fireEvent.click(within(dialog).getByRole('button', { name: '下载模板' }));
        expect(clicks).toHaveLength(2);
        expect(new URL(clicks[1].href).pathname + new URL(clicks[1].href).search).toBe('/api/device/import/template');
        vi.restoreAllMocks();
    });
});

describe('adding on /devices', () => {
    it('opens the add dialog for ?type=program, asks for a product with 请选择产品!, and adds by productId', async () => {
        const calls = emptyCalls();
        mswServer.use(...deviceFamily([], calls));
        renderApp('/devices?type=program');
        const dialog = await screen.findByRole('dialog', { name: '添加设备' });
        const product = await within(dialog).findByRole('combobox', { name: /所属产品/ });
        submit(dialog);
        expect(await within(dialog).findByText('请选择产品!')).toBeInTheDocument();
        expect(within(dialog).getByText('请输入deviceName!')).toBeInTheDocument();

        await chooseOption(product, '工业网关');
        await userEvent.type(within(dialog).getByLabelText(/DeviceName/), 'gw_0001');
        submit(dialog);
        expect(await screen.findByText('添加成功')).toBeInTheDocument();
        expect(Object.fromEntries(calls.saveDevice[0])).toEqual({ productId: '2', deviceName: 'gw_0001', remark: '' });
        await waitForRows(1);
        // Closing drops ?type so a reload does not open the dialog again.
        await waitFor(() => expect(searchParam('type')).toBeNull());
        expect(currentLocation.pathname).toBe('/devices');
    });
});

describe('binding to projects', () => {
    it('says each SPEC message for a wrong selection, before any call', async () => {
        const calls = emptyCalls();
        mswServer.use(...deviceFamily(eightDevices(), calls));
        renderApp('/devices?perPage=10');
        await waitForRows(8);
        const bind = () => fireEvent.click(screen.getByRole('button', { name: '关联项目' }));
        const unbind = () => fireEvent.click(screen.getByRole('button', { name: '解绑项目' }));

        bind();
        expect(await screen.findByText('请选择需要关联项目的设备')).toBeInTheDocument();
        await dismissNotification('请选择需要关联项目的设备');
        unbind();
        expect(await screen.findByText('请选择需要批量解绑的设备')).toBeInTheDocument();
        await dismissNotification('请选择需要批量解绑的设备');

        select('dev_007');
        select('dev_001');
        bind();
        expect(await screen.findByText('请选择未关联项目的设备进行关联')).toBeInTheDocument();
        await dismissNotification('请选择未关联项目的设备进行关联');
        unbind();
        expect(await screen.findByText('请选择已关联项目的设备进行解绑')).toBeInTheDocument();
        await dismissNotification('请选择已关联项目的设备进行解绑');

        select('dev_001');
        select('dev_006');
        unbind();
        expect(await screen.findByText('请选择关联同一项目的设备进行解绑')).toBeInTheDocument();
        await dismissNotification('请选择关联同一项目的设备进行解绑');

        fireEvent.click(within(rowOf('dev_001')).getByRole('button', { name: '移出项目' }));
        expect(await screen.findByText('未关联项目')).toBeInTheDocument();

        expect(calls.bind).toHaveLength(0);
        expect(calls.unbind).toHaveLength(0);
        expect(calls.removeFromProject).toHaveLength(0);
    });

    it('binds unbound devices to a project picked under a scene: 关联成功', async () => {
        const calls = emptyCalls();
        mswServer.use(...deviceFamily(eightDevices(), calls));
        renderApp('/devices?perPage=10');
        await waitForRows(8);
        select('dev_001');
        select('dev_002');
        fireEvent.click(screen.getByRole('button', { name: '关联项目' }));
        const dialog = await screen.findByRole('dialog', { name: '关联项目' });
        await within(dialog).findByRole('radio', { name: /智慧园区示范项目/ });

        submit(dialog);
        expect(await screen.findByText('请选择要关联的场景')).toBeInTheDocument();
        expect(calls.bind).toHaveLength(0);

        fireEvent.click(within(dialog).getByRole('button', { name: '智慧城市' }));
        expect(within(dialog).queryByRole('radio', { name: /智慧园区示范项目/ })).not.toBeInTheDocument();
        expect(within(dialog).getAllByRole('radio')).toHaveLength(1);
        fireEvent.click(within(dialog).getByRole('radio', { name: /城市照明改造项目/ }));
        submit(dialog);

        expect(await screen.findByText('关联成功')).toBeInTheDocument();
        expect(calls.bind[0].get('projectId')).toBe('12');
        expect(calls.bind[0].getAll('deviceId').sort()).toEqual(['1', '2']);
        await waitFor(() => expect(rowOf('dev_001')).toHaveTextContent('城市照明改造项目'));
        expect(rowOf('dev_002')).toHaveTextContent('城市照明改造项目');
        // The selection is cleared after a bind.
        await waitFor(() => expect(within(rowOf('dev_001')).getByRole('checkbox')).not.toBeChecked());
    });

    it('unbinds devices of one project after confirmation: 解绑成功', async () => {
        const calls = emptyCalls();
        mswServer.use(...deviceFamily(eightDevices(), calls));
        renderApp('/devices?perPage=10');
        await waitForRows(8);
        select('dev_008');
        select('dev_007');
        fireEvent.click(screen.getByRole('button', { name: '解绑项目' }));
        const confirm = await screen.findByRole('dialog', { name: '提示' });
        expect(confirm).toHaveTextContent('确定将所选的 2 个设备从项目「智慧园区示范项目」解绑吗？');
        fireEvent.click(within(confirm).getByRole('button', { name: '确定' }));
        expect(await screen.findByText('解绑成功')).toBeInTheDocument();
        expect(calls.unbind[0].getAll('projectId')).toEqual(['11', '11']);
        expect(calls.unbind[0].getAll('deviceId').sort()).toEqual(['7', '8']);
        await waitFor(() => expect(rowOf('dev_008')).not.toHaveTextContent('智慧园区示范项目'));
    });

    it('removes one device from its project', async () => {
        const calls = emptyCalls();
        mswServer.use(...deviceFamily(eightDevices(), calls));
        renderApp('/devices?perPage=10');
        await waitForRows(8);
        fireEvent.click(within(rowOf('dev_006')).getByRole('button', { name: '移出项目' }));
        const confirm = await screen.findByRole('dialog', { name: '提示' });
        fireEvent.click(within(confirm).getByRole('button', { name: '确定' }));
        expect(await screen.findByText('操作成功')).toBeInTheDocument();
        expect(Object.fromEntries(calls.removeFromProject[0])).toEqual({ projectId: '12', deviceId: '6' });
        await waitFor(() => expect(rowOf('dev_006')).not.toHaveTextContent('城市照明改造项目'));
    });
});

describe('enable and disable', () => {
    it('disables after confirmation (已禁用) and enables again with one update call each', async () => {
        const calls = emptyCalls();
        mswServer.use(...deviceFamily([device(1, { status: 'ONLINE', lastTime: '2025-03-02 08:00:00' })], calls));
        renderApp('/devices');
        await waitForRows(1);
        expect(within(rowOf('dev_001')).getByText('在线')).toBeInTheDocument();

        fireEvent.click(screen.getByRole('switch', { name: '禁用设备 dev_001' }));
        const confirm = await screen.findByRole('dialog', { name: '提示' });
        expect(confirm).toHaveTextContent('确定禁用设备 dev_001 吗？');
        fireEvent.click(within(confirm).getByRole('button', { name: '确定' }));
        expect(await screen.findByText('操作成功')).toBeInTheDocument();
        expect(Object.fromEntries(calls.update[0])).toEqual({ deviceId: '1', action: 'disable' });
        await waitFor(() => expect(within(rowOf('dev_001')).getByText('已禁用')).toBeInTheDocument());

        const enable = await screen.findByRole('switch', { name: '启用设备 dev_001' });
        expect(enable).not.toBeChecked();
        fireEvent.click(enable);
        await waitFor(() => expect(calls.update).toHaveLength(2));
        expect(calls.update[1].get('action')).toBe('enable');
        await waitFor(() => expect(within(rowOf('dev_001')).getByText('离线')).toBeInTheDocument());
    });
});
