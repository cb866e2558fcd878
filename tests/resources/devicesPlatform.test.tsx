import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createTestServer, type TestServer } from '../../server/testing';
import { bodyRows, dismissNotification, mswServer, platformHandler, renderApp, searchParam } from './helpers';

/**
 * The device screens against the reference platform in-process (server/testing.ts: in-memory PGlite), so one test
 * covers screen, data provider, contract and server. Each test works in a product of its own.
 */

interface Answer<T> {
    code: number;
    msg: string;
    data: T;
}

interface DeviceRow {
    deviceId: number;
    deviceName: string;
    status: string;
    projectId: number | null;
    secret?: string;
}

const submit = (dialog: HTMLElement) => fireEvent.click(within(dialog).getByRole('button', { name: '确定' }));
const rowOf = (name: string) => screen.getByText(name).closest('tr')!;

describe('device screens against the platform', () => {
    let platform: TestServer;
    let serial = 0;

    beforeAll(async () => {
        platform = await createTestServer({ seed: true });
    });
    afterAll(() => platform.close());
    beforeEach(() => {
        mswServer.use(platformHandler(platform));
    });

    async function json<T>(path: string, init?: RequestInit): Promise<Answer<T>> {
        return (await platform.fetch(path, init)).json() as Promise<Answer<T>>;
    }

    /** A fresh product, so counts and pages are this test's own. */
    async function newProduct(): Promise<{ productId: number; productKey: string; productName: string }> {
        const tree = (await json<Array<{ id: number; children?: unknown[] }>>('/api/product/list-category')).data;
        let node = tree[0] as { id: number; children?: Array<{ id: number; children?: unknown[] }> };
        while (node.children?.length) node = node.children[0] as typeof node;
        serial += 1;
        const body = new URLSearchParams({
            productName: `设备测试产品${serial}${Date.now() % 1000}`,
            nodeType: '0',
            gatewayType: '0',
            categoryId: String(node.id),
            networkType: '5',
            dataType: '0',
        });
        const answer = await json<{ productId: number; productKey: string; productName: string }>('/api/product/save', {
            method: 'POST',
            body,
        });
        expect(answer.code).toBe(200);
        return answer.data;
    }

    async function devicesOf(productKey: string): Promise<{ records: DeviceRow[]; total: number }> {
        const answer = await json<{ records: DeviceRow[]; total: number }>(
            `/api/device/list?productKey=${productKey}&pageNumber=1&pageSize=100`,
        );
        expect(answer.code).toBe(0);
        return answer.data;
    }

    it('adds a device, batch-adds ten, then deletes the only row of page 2 and steps back', async () => {
        const product = await newProduct();
        renderApp(`/deviceInstance/${product.productId}`);
        expect(await screen.findByText('暂无设备')).toBeInTheDocument();

        fireEvent.click(screen.getByRole('button', { name: '添加设备' }));
        const add = await screen.findByRole('dialog', { name: '添加设备' });
        const locked = await within(add).findByRole('combobox', { name: /所属产品/ });
        await waitFor(() => expect(locked).toHaveTextContent(product.productName));
        await userEvent.type(within(add).getByLabelText(/DeviceName/), 'lamp_0001');
        await userEvent.type(within(add).getByLabelText('备注'), '东门路灯');
        submit(add);
        expect(await screen.findByText('添加成功')).toBeInTheDocument();
        await waitFor(() => expect(bodyRows()).toHaveLength(1));
        expect(within(rowOf('lamp_0001')).getByText('未激活')).toBeInTheDocument();
        expect(rowOf('lamp_0001')).toHaveTextContent('东门路灯');

        const listed = await devicesOf(product.productKey);
        expect(listed.total).toBe(1);
        expect(listed.records[0]).not.toHaveProperty('secret');
        const detail = await json<{ device: DeviceRow }>(`/api/device/detail?deviceId=${listed.records[0].deviceId}`);
        expect(detail.data.device.secret).toMatch(/^[0-9a-f]{32,}$/);

        fireEvent.click(screen.getByRole('button', { name: '批量添加' }));
        const batch = await screen.findByRole('dialog', { name: '批量添加' });
        await userEvent.type(within(batch).getByLabelText(/添加数量/), '10');
        submit(batch);
        expect(await screen.findByText('批量添加成功，共添加10个设备')).toBeInTheDocument();
        await waitFor(() => expect(screen.getByTestId('count-total')).toHaveTextContent('11'));
        await waitFor(() => expect(bodyRows()).toHaveLength(10));
        expect((await devicesOf(product.productKey)).total).toBe(11);

        // Newest first: page 2 holds the first device added.
        fireEvent.click(screen.getByRole('button', { name: /下一页|next page/i }));
        await waitFor(() => expect(bodyRows()).toHaveLength(1));
        expect(searchParam('page')).toBe('2');
        fireEvent.click(within(rowOf('lamp_0001')).getByRole('button', { name: '删除' }));
        const confirm = await screen.findByRole('dialog', { name: '提示' });
        expect(confirm).toHaveTextContent('是否删除此设备?');
        fireEvent.click(within(confirm).getByRole('button', { name: '确定' }));
        expect(await screen.findByText('设备删除成功')).toBeInTheDocument();
        await waitFor(() => expect(searchParam('page')).toBe('1'));
        await waitFor(() => expect(bodyRows()).toHaveLength(10));
        await waitFor(() => expect(screen.getByTestId('count-total')).toHaveTextContent('10'));
        const left = await devicesOf(product.productKey);
        expect(left.total).toBe(10);
        expect(left.records.some((r) => r.deviceName === 'lamp_0001')).toBe(false);
    }, 90_000);

    it('refuses a duplicate name with the server message and writes nothing', async () => {
        const product = await newProduct();
        const body = new URLSearchParams({ productKey: product.productKey, deviceName: 'dup_0001' });
        expect((await json('/api/device/save', { method: 'POST', body })).code).toBe(0);

        renderApp(`/deviceInstance/${product.productId}`);
        await waitFor(() => expect(bodyRows()).toHaveLength(1));
        fireEvent.click(screen.getByRole('button', { name: '添加设备' }));
        const add = await screen.findByRole('dialog', { name: '添加设备' });
        await within(add).findByRole('combobox', { name: /所属产品/ });
        await userEvent.type(within(add).getByLabelText(/DeviceName/), 'dup_0001');
        submit(add);
        expect(await screen.findByText('设备名称已存在')).toBeInTheDocument();
        expect((await devicesOf(product.productKey)).total).toBe(1);
    }, 60_000);

    it('adds on /devices by productId, disables and enables a device', async () => {
        const product = await newProduct();
        renderApp(`/devices?pk=${product.productKey}&type=program`);
        const add = await screen.findByRole('dialog', { name: '添加设备' });
        const locked = await within(add).findByRole('combobox', { name: /所属产品/ });
        await waitFor(() => expect(locked).toHaveTextContent(product.productName));
        await userEvent.type(within(add).getByLabelText(/DeviceName/), 'meter_0001');
        submit(add);
        expect(await screen.findByText('添加成功')).toBeInTheDocument();
        await waitFor(() => expect(bodyRows()).toHaveLength(1));

        fireEvent.click(screen.getByRole('switch', { name: '禁用设备 meter_0001' }));
        fireEvent.click(
            within(await screen.findByRole('dialog', { name: '提示' })).getByRole('button', { name: '确定' }),
        );
        await waitFor(() => expect(within(rowOf('meter_0001')).getByText('已禁用')).toBeInTheDocument());
        expect((await devicesOf(product.productKey)).records[0].status).toBe('DISABLE');

        fireEvent.click(await screen.findByRole('switch', { name: '启用设备 meter_0001' }));
        await waitFor(() => expect(within(rowOf('meter_0001')).getByText('未激活')).toBeInTheDocument());
        expect((await devicesOf(product.productKey)).records[0].status).toBe('INACTIVE');
    }, 60_000);

    it('binds two devices to a project and unbinds them', async () => {
        const product = await newProduct();
        for (const deviceName of ['bind_0001', 'bind_0002']) {
            const body = new URLSearchParams({ productKey: product.productKey, deviceName });
            expect((await json('/api/device/save', { method: 'POST', body })).code).toBe(0);
        }
        renderApp(`/devices?pk=${product.productKey}`);
        await waitFor(() => expect(bodyRows()).toHaveLength(2));
        for (const name of ['bind_0001', 'bind_0002']) fireEvent.click(within(rowOf(name)).getByRole('checkbox'));

        fireEvent.click(screen.getByRole('button', { name: '关联项目' }));
        const dialog = await screen.findByRole('dialog', { name: '关联项目' });
        fireEvent.click(within(dialog).getByRole('button', { name: '智慧城市' }));
        fireEvent.click(await within(dialog).findByRole('radio', { name: /城市照明改造项目/ }));
        submit(dialog);
        expect(await screen.findByText('关联成功')).toBeInTheDocument();
        await dismissNotification('关联成功');
        await waitFor(() => expect(rowOf('bind_0001')).toHaveTextContent('城市照明改造项目'));
        await waitFor(() => expect(screen.queryByRole('dialog', { name: '关联项目' })).not.toBeInTheDocument());
        const bound = (await devicesOf(product.productKey)).records;
        expect(bound.every((r) => r.projectId !== null)).toBe(true);

        for (const name of ['bind_0001', 'bind_0002']) fireEvent.click(within(rowOf(name)).getByRole('checkbox'));
        fireEvent.click(screen.getByRole('button', { name: '解绑项目' }));
        fireEvent.click(
            within(await screen.findByRole('dialog', { name: '提示' })).getByRole('button', { name: '确定' }),
        );
        expect(await screen.findByText('解绑成功')).toBeInTheDocument();
        await waitFor(() => expect(rowOf('bind_0001')).not.toHaveTextContent('城市照明改造项目'));
        expect((await devicesOf(product.productKey)).records.every((r) => r.projectId === null)).toBe(true);
    }, 60_000);
});
