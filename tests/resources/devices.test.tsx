import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { http } from 'msw';
import { describe, expect, it } from 'vitest';
import {
    bodyRows,
    chooseOption,
    currentLocation,
    dismissNotifications,
    mswServer,
    renderApp,
    searchParam,
} from './helpers';
import { device, deviceFamily, emptyCalls, fail0, PRODUCTS, type FakeDevice } from './devices.fake';

/** /deviceInstance (SPEC.md "Device management (deviceInstance)") against a fake that follows the contract. */

const submit = (dialog: HTMLElement) => fireEvent.click(within(dialog).getByRole('button', { name: '确定' }));
const count = (name: 'total' | 'online') => screen.getByTestId(name === 'online' ? 'count-onlineTotal' : 'count-total');

function twelveDevices(): FakeDevice[] {
    // Newest first, as the platform lists them: dev_012 ... dev_001; three are gateways' devices.
    return Array.from({ length: 12 }, (_, k) => {
        const i = 12 - k;
        return device(i, {
            productId: i > 9 ? 2 : 1,
            status: i % 4 === 0 ? 'ONLINE' : i === 5 ? 'Y' : i === 6 ? 'DISABLE' : 'INACTIVE',
            remark: i === 1 ? '一号灯杆' : '',
            projectId: i === 2 ? 11 : null,
            projectName: i === 2 ? '智慧园区示范项目' : null,
            lastTime: i % 4 === 0 ? '2025-03-02 08:00:00' : null,
        });
    });
}

async function waitForRows(n: number) {
    await waitFor(() => expect(bodyRows()).toHaveLength(n));
}

describe('device instance list', () => {
    it('lists every product by default with the counts, status in Chinese and 10 rows a page', async () => {
        const calls = emptyCalls();
        mswServer.use(...deviceFamily(twelveDevices(), calls));
        renderApp('/deviceInstance');

        await waitForRows(10);
        for (const header of [
            'DeviceName',
            '所属产品',
            '状态',
            '备注',
            '所属项目',
            '添加时间',
            '最后上线时间',
            '操作',
        ]) {
            expect(screen.getByRole('columnheader', { name: header })).toBeInTheDocument();
        }
        expect(calls.list[0].get('pageSize')).toBe('10');
        expect(calls.list[0].get('pageNumber')).toBe('1');
        expect(calls.list[0].has('productKey')).toBe(false);
        expect(screen.getByRole('combobox', { name: '产品' })).toHaveTextContent('全部产品');
        await waitFor(() => expect(count('total')).toHaveTextContent('12'));
        expect(count('online')).toHaveTextContent('3');

        const row = (name: string) => screen.getByText(name).closest('tr')!;
        expect(within(row('dev_012')).getByText('在线')).toBeInTheDocument();
        expect(within(row('dev_011')).getByText('未激活')).toBeInTheDocument();
        // 'Y' from older records reads as offline; a disabled device says so.
        expect(within(row('dev_005')).getByText('离线')).toBeInTheDocument();
        expect(within(row('dev_006')).getByText('已禁用')).toBeInTheDocument();
        expect(within(row('dev_003')).getByText('智能路灯')).toBeInTheDocument();
    });

    it('filters by product through the path, with the product as the counts scope', async () => {
        const calls = emptyCalls();
        mswServer.use(...deviceFamily(twelveDevices(), calls));
        renderApp('/deviceInstance');
        await waitForRows(10);

        await chooseOption(screen.getByRole('combobox', { name: '产品' }), '工业网关');
        await waitFor(() => expect(currentLocation.pathname).toBe('/deviceInstance/2'));
        await waitForRows(3);
        expect(calls.list.at(-1)?.get('productKey')).toBe('pkGate00002');
        await waitFor(() => expect(count('total')).toHaveTextContent('3'));
        expect(count('online')).toHaveTextContent('1');
        expect(calls.statistics.at(-1)?.get('productKey')).toBe('pkGate00002');

        fireEvent.mouseDown(screen.getByRole('combobox', { name: '产品' }));
        const options = within(await screen.findByRole('listbox')).getAllByRole('option');
        expect(options.map((o) => o.textContent)).toEqual(['全部产品', '智能路灯', '工业网关']);
        fireEvent.click(options[0]);
        await waitFor(() => expect(currentLocation.pathname).toBe('/deviceInstance'));
        await waitForRows(10);
        await waitFor(() => expect(count('total')).toHaveTextContent('12'));
    });

    it('preselects the product of /deviceInstance/{id}', async () => {
        const calls = emptyCalls();
        mswServer.use(...deviceFamily(twelveDevices(), calls));
        renderApp('/deviceInstance/2');
        await waitForRows(3);
        expect(screen.getByRole('combobox', { name: '产品' })).toHaveTextContent('工业网关');
        // The list waits for the product, so no unfiltered page is ever asked for.
        expect(calls.list.every((q) => q.get('productKey') === 'pkGate00002')).toBe(true);
    });

    it('says so when the product of the path does not exist', async () => {
        mswServer.use(...deviceFamily(twelveDevices()));
        renderApp('/deviceInstance/99');
        expect(await screen.findByText(/未找到ID为 99 的产品/)).toBeInTheDocument();
    });

    it('pages with 5, 10 and 20 offered and keeps the page in the URL', async () => {
        const calls = emptyCalls();
        mswServer.use(...deviceFamily(twelveDevices(), calls));
        renderApp('/deviceInstance');
        await waitForRows(10);

        fireEvent.click(screen.getByRole('button', { name: /下一页|next page/i }));
        await waitForRows(2);
        expect(searchParam('page')).toBe('2');
        expect(calls.list.at(-1)?.get('pageNumber')).toBe('2');

        fireEvent.mouseDown(screen.getByRole('combobox', { name: /每页条数/ }));
        const listbox = await screen.findByRole('listbox');
        expect(
            within(listbox)
                .getAllByRole('option')
                .map((o) => o.textContent),
        ).toEqual(['5 条/页', '10 条/页', '20 条/页']);
        fireEvent.click(within(listbox).getByRole('option', { name: '5 条/页' }));
        await waitForRows(5);
        expect(searchParam('perPage')).toBe('5');
        expect(searchParam('page')).toBe('1');
        expect(calls.list.at(-1)?.get('pageSize')).toBe('5');
    });

    it('links each row to its detail, and a gateway also to its sub-devices', async () => {
        mswServer.use(...deviceFamily(twelveDevices()));
        renderApp('/deviceInstance');
        await waitForRows(10);
        const gateway = screen.getByText('dev_012').closest('tr')!;
        expect(within(gateway).getByRole('link', { name: '查看' })).toHaveAttribute('href', '/devInstanceDetail/2/12');
        expect(within(gateway).getByRole('link', { name: '子设备' })).toHaveAttribute(
            'href',
            '/devInstanceDetail/2/12?child=true',
        );
        const plain = screen.getByText('dev_003').closest('tr')!;
        expect(within(plain).queryByRole('link', { name: '子设备' })).not.toBeInTheDocument();
    });
});

describe('adding devices on /deviceInstance', () => {
    it('validates with the exact messages, then adds: 添加成功 and the row appears', async () => {
        const calls = emptyCalls();
        mswServer.use(...deviceFamily([device(1)], calls));
        renderApp('/deviceInstance');
        await waitForRows(1);

        fireEvent.click(screen.getByRole('button', { name: '添加设备' }));
        const dialog = await screen.findByRole('dialog', { name: '添加设备' });
        const product = await within(dialog).findByRole('combobox', { name: /所属产品/ });
        submit(dialog);
        expect(await within(dialog).findByText('请选择产品')).toBeInTheDocument();
        expect(within(dialog).getByText('请输入deviceName!')).toBeInTheDocument();

        const name = within(dialog).getByLabelText(/DeviceName/);
        await userEvent.type(name, 'ab/');
        submit(dialog);
        expect(await within(dialog).findByText(/设备名称长度须为4~32个字符/)).toBeInTheDocument();
        await userEvent.clear(name);
        await userEvent.type(name, 'lamp<b>01');
        submit(dialog);
        expect(await within(dialog).findByText(/设备名称只能包含英文字母、数字和特殊字符/)).toBeInTheDocument();
        await userEvent.clear(name);
        await userEvent.type(name, 'lamp_0001');
        await userEvent.type(within(dialog).getByLabelText('经度'), '200');
        submit(dialog);
        expect(await within(dialog).findByText('经度须在-180~180之间')).toBeInTheDocument();
        expect(calls.save).toHaveLength(0);

        await userEvent.clear(within(dialog).getByLabelText('经度'));
        await userEvent.type(within(dialog).getByLabelText('经度'), '121.47');
        await userEvent.type(within(dialog).getByLabelText('纬度'), '31.23');
        await userEvent.type(within(dialog).getByLabelText('备注'), '东门路灯');
        await chooseOption(product, '智能路灯');
        await dismissNotifications();
        submit(dialog);

        expect(await screen.findByText('添加成功')).toBeInTheDocument();
        await waitFor(() => expect(screen.queryByRole('dialog', { name: '添加设备' })).not.toBeInTheDocument());
        await waitForRows(2);
        expect(bodyRows()[0]).toHaveTextContent('lamp_0001');
        expect(bodyRows()[0]).toHaveTextContent('东门路灯');
        const sent = calls.save[0];
        expect(Object.fromEntries(sent)).toMatchObject({
            productKey: 'pkLamp00001',
            deviceName: 'lamp_0001',
            remark: '东门路灯',
            longitude: '121.47',
            latitude: '31.23',
        });
        expect(sent.has('addr')).toBe(false);
        await waitFor(() => expect(count('total')).toHaveTextContent('2'));
    });

    it('locks the product to the filter and shows the server message on failure', async () => {
        mswServer.use(...deviceFamily([device(1, { productId: 2 })]));
        renderApp('/deviceInstance/2');
        await waitForRows(1);

        fireEvent.click(screen.getByRole('button', { name: '添加设备' }));
        const dialog = await screen.findByRole('dialog', { name: '添加设备' });
        const product = await within(dialog).findByRole('combobox', { name: /所属产品/ });
        await waitFor(() => expect(product).toHaveTextContent('工业网关'));
        expect(product).toHaveAttribute('aria-disabled', 'true');

        await userEvent.type(within(dialog).getByLabelText(/DeviceName/), 'dev_001');
        submit(dialog);
        expect(await screen.findByText('设备名称已存在')).toBeInTheDocument();
        expect(screen.getByRole('dialog', { name: '添加设备' })).toBeInTheDocument();
    });

    it('batch-adds by amount and says how many were added', async () => {
        const calls = emptyCalls();
        mswServer.use(...deviceFamily([], calls));
        renderApp('/deviceInstance/1');
        expect(await screen.findByText('暂无设备')).toBeInTheDocument();

        fireEvent.click(screen.getByRole('button', { name: '批量添加' }));
        const dialog = await screen.findByRole('dialog', { name: '批量添加' });
        const product = await within(dialog).findByRole('combobox', { name: /所属产品/ });
        await waitFor(() => expect(product).toHaveTextContent('智能路灯'));
        submit(dialog);
        expect(await within(dialog).findByText('请输入添加数量')).toBeInTheDocument();
        await userEvent.type(within(dialog).getByLabelText(/添加数量/), '10001');
        submit(dialog);
        expect(await within(dialog).findByText('添加数量须为1~10000')).toBeInTheDocument();
        expect(calls.batch).toHaveLength(0);

        await userEvent.clear(within(dialog).getByLabelText(/添加数量/));
        await userEvent.type(within(dialog).getByLabelText(/添加数量/), '12');
        await dismissNotifications();
        submit(dialog);
        expect(await screen.findByText('批量添加成功，共添加12个设备')).toBeInTheDocument();
        expect(Object.fromEntries(calls.batch[0])).toEqual({ productId: '1', amount: '12' });
        await waitForRows(10);
        await waitFor(() => expect(count('total')).toHaveTextContent('12'));
    });

    it('asks for a product in the batch dialog when none is filtered', async () => {
        const calls = emptyCalls();
        mswServer.use(...deviceFamily([], calls));
        renderApp('/deviceInstance');
        expect(await screen.findByText('暂无设备')).toBeInTheDocument();
        fireEvent.click(screen.getByRole('button', { name: '批量添加' }));
        const dialog = await screen.findByRole('dialog', { name: '批量添加' });
        await userEvent.type(within(dialog).getByLabelText(/添加数量/), '3');
        submit(dialog);
        expect(await within(dialog).findByText('请选择产品')).toBeInTheDocument();
        expect(calls.batch).toHaveLength(0);
    });
});

describe('deleting devices on /deviceInstance', () => {
    it('confirms, deletes by productKey and deviceName, and steps back when page 2 empties', async () => {
        const calls = emptyCalls();
        const rows = Array.from({ length: 11 }, (_, k) => device(11 - k));
        mswServer.use(...deviceFamily(rows, calls));
        renderApp('/deviceInstance?page=2');
        await waitForRows(1);

        const row = screen.getByText('dev_001').closest('tr')!;
        fireEvent.click(within(row).getByRole('button', { name: '删除' }));
        const confirm = await screen.findByRole('dialog', { name: '提示' });
        expect(within(confirm).getByText('是否删除此设备?')).toBeInTheDocument();
        fireEvent.click(within(confirm).getByRole('button', { name: '确定' }));

        expect(await screen.findByText('设备删除成功')).toBeInTheDocument();
        expect(Object.fromEntries(calls.remove[0])).toEqual({ productKey: 'pkLamp00001', deviceName: 'dev_001' });
        await waitFor(() => expect(searchParam('page')).toBe('1'));
        await waitForRows(10);
        expect(screen.queryByText('dev_001')).not.toBeInTheDocument();
        await waitFor(() => expect(count('total')).toHaveTextContent('10'));
    });

    it('keeps the row and shows the server message when the delete fails', async () => {
        mswServer.use(...deviceFamily([device(1)]));
        mswServer.use(http.post('*/api/device/RemoveDevice', () => fail0('设备在线，无法删除')));
        renderApp('/deviceInstance');
        await waitForRows(1);
        fireEvent.click(within(bodyRows()[0]).getByRole('button', { name: '删除' }));
        fireEvent.click(
            within(await screen.findByRole('dialog', { name: '提示' })).getByRole('button', { name: '确定' }),
        );
        expect(await screen.findByText('设备在线，无法删除')).toBeInTheDocument();
        await waitFor(() => expect(screen.queryByRole('dialog', { name: '提示' })).not.toBeInTheDocument());
        expect(bodyRows()).toHaveLength(1);
    });
});

describe('failures', () => {
    it("shows the server's message when the list is refused", async () => {
        mswServer.use(...deviceFamily([device(1)]));
        mswServer.use(
            http.get('*/api/device/list', () => fail0('设备状态只能是 INACTIVE、ONLINE、OFFLINE 或 DISABLE')),
        );
        renderApp('/deviceInstance');
        expect(await screen.findByText(/设备列表加载失败：设备状态只能是/)).toBeInTheDocument();
        expect(screen.getByRole('button', { name: '重试' })).toBeInTheDocument();
    });
});

describe('product choices', () => {
    it('offers the products of GET /api/product/list-product in the add dialog', async () => {
        mswServer.use(...deviceFamily([]));
        renderApp('/deviceInstance');
        expect(await screen.findByText('暂无设备')).toBeInTheDocument();
        fireEvent.click(screen.getByRole('button', { name: '添加设备' }));
        const dialog = await screen.findByRole('dialog', { name: '添加设备' });
        fireEvent.mouseDown(await within(dialog).findByRole('combobox', { name: /所属产品/ }));
        const listbox = await screen.findByRole('listbox');
        await waitFor(() =>
            expect(
                within(listbox)
                    .getAllByRole('option')
                    .map((o) => o.textContent),
            ).toEqual(expect.arrayContaining(PRODUCTS.map((p) => p.productName))),
        );
    });
});
