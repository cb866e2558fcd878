import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { SHADOW_MESSAGES } from '../../schemas/deviceShadow';
import { changeShadow, loadShadow } from '../../server/domain/shadow';
import { createTestServer, type TestServer } from '../../server/testing';
import { currentLocation, mswServer, platformHandler, renderApp } from './helpers';

/**
 * The 设备影子 tab of the device pages against the reference platform in-process: the empty state of a device
 * without a shadow, the document a device reported (version, reported, metadata), and 编辑期望值: JSON checked in
 * Chinese, a confirmation before it is sent, the stored desired state, and a version conflict when the device
 * changed the shadow meanwhile.
 */

interface Answer<T> {
    code: number | string;
    data: T;
}

const deviceTitle = () => screen.findByRole('heading', { level: 1 }, { timeout: 20_000 });
const shadowRegion = () => screen.findByRole('region', { name: '设备影子' }, { timeout: 10_000 });

describe('设备影子 tab', () => {
    let platform: TestServer;
    let product: { productId: number; productKey: string };
    let serial = 0;

    async function json<T>(path: string, init?: RequestInit): Promise<Answer<T>> {
        return (await platform.fetch(path, init)).json() as Promise<Answer<T>>;
    }

    async function newDevice(): Promise<{ deviceId: number; deviceName: string }> {
        serial += 1;
        const answer = await json<{ deviceId: number; deviceName: string }>('/api/device/save', {
            method: 'POST',
            body: new URLSearchParams({ productKey: product.productKey, deviceName: `shadow_${serial}` }),
        });
        expect(answer.code).toBe(0);
        return answer.data;
    }

    beforeAll(async () => {
        platform = await createTestServer({ seed: false });
        const tree = (await json<Array<{ id: number; children?: unknown[] }>>('/api/product/list-category')).data;
        let node = tree[0] as { id: number; children?: Array<{ id: number; children?: unknown[] }> };
        while (node.children?.length) node = node.children[0] as typeof node;
        const answer = await json<{ productId: number; productKey: string }>('/api/product/save', {
            method: 'POST',
            body: new URLSearchParams({
                productName: `影子测试产品${Date.now() % 100000}`,
                nodeType: '0',
                gatewayType: '0',
                categoryId: String(node.id),
                networkType: '5',
                dataType: '0',
            }),
        });
        expect(answer.code).toBe(200);
        product = answer.data;
    });
    afterAll(() => platform.close());
    beforeEach(() => {
        mswServer.use(platformHandler(platform));
    });

    it('a device without a shadow: the empty state, and the tab is a sub-route and checkIdx 8', async () => {
        const device = await newDevice();
        const { unmount } = renderApp(`/devInstanceDetail/${product.productId}/${device.deviceId}/shadow`);
        await deviceTitle();
        const region = await shadowRegion();
        expect(await within(region).findByText('该设备还没有设备影子')).toBeInTheDocument();
        expect(
            within(region).getByText(new RegExp(`设备 ${device.deviceName} 向 /shadow/update 上报状态后`)),
        ).toBeInTheDocument();
        expect(within(region).getByRole('button', { name: '编辑期望值' })).toBeInTheDocument();
        unmount();

        renderApp(`/devices/${product.productKey}/${device.deviceName}?devicesId=${device.deviceId}&checkIdx=8`);
        await deviceTitle();
        expect(await within(await shadowRegion()).findByText('该设备还没有设备影子')).toBeInTheDocument();
        expect(currentLocation.search).toContain('checkIdx=8');
    });

    it('shows what the device reported; 编辑期望值 checks the JSON, asks, then stores and shows the desired state', async () => {
        const device = await newDevice();
        await changeShadow(platform.db, device.deviceId, { kind: 'reported', set: { color: 'red', temp: 21 } }, 3);
        renderApp(`/devInstanceDetail/${product.productId}/${device.deviceId}/shadow`);
        await deviceTitle();
        const region = await shadowRegion();
        expect(await within(region).findByLabelText('影子版本')).toHaveTextContent('3');
        expect(within(region).getByLabelText('最后更新时间')).toHaveTextContent(
            /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/,
        );
        // Indented JSON (the database keeps its own key order).
        const reported = within(region).getByLabelText('设备上报（reported）').textContent ?? '';
        expect(JSON.parse(reported)).toEqual({ color: 'red', temp: 21 });
        expect(reported).toContain('\n  "color": "red"');
        expect(within(region).getByLabelText('期望值（desired）').textContent).toBe('{}');
        expect(within(region).getByLabelText('元数据（metadata，各属性更新时间）')).toHaveTextContent('"timestamp"');

        fireEvent.click(within(region).getByRole('button', { name: '编辑期望值' }));
        const dialog = await screen.findByRole('dialog', { name: '编辑期望值（desired）' });
        const input = within(dialog).getByLabelText(/期望值（JSON 对象）/);
        expect(input).toHaveValue('{}');
        const submit = () => fireEvent.click(within(dialog).getByRole('button', { name: '确定' }));
        for (const [typed, message] of [
            ['{{"color":', SHADOW_MESSAGES.notJson],
            ['[[1]', SHADOW_MESSAGES.notObject],
            [' ', SHADOW_MESSAGES.required],
        ] as const) {
            await userEvent.clear(input);
            await userEvent.type(input, typed);
            submit();
            expect(await within(dialog).findByText(message)).toBeInTheDocument();
        }
        expect(screen.queryByRole('dialog', { name: '下发期望值' })).toBeNull();

        await userEvent.clear(input);
        await userEvent.type(input, '{{"color":"green"}');
        submit();
        const ask = await screen.findByRole('dialog', { name: '下发期望值' });
        expect(ask).toHaveTextContent(`确定将期望值下发到设备「${device.deviceName}」吗？`);
        fireEvent.click(within(ask).getByRole('button', { name: '确定' }));
        expect(await screen.findByText('期望值已保存，设备上线后下发')).toBeInTheDocument();
        const stored = await loadShadow(platform.db, device.deviceId);
        expect(stored).toMatchObject({ version: 4, desired: { color: 'green' }, reported: { color: 'red', temp: 21 } });
        await waitFor(() =>
            expect(within(region).getByLabelText('期望值（desired）').textContent).toBe(
                JSON.stringify({ color: 'green' }, null, 2),
            ),
        );
        expect(within(region).getByLabelText('影子版本')).toHaveTextContent('4');
    });

    it('a shadow the device changed meanwhile: the save says the version conflict and changes nothing', async () => {
        const device = await newDevice();
        await changeShadow(platform.db, device.deviceId, { kind: 'reported', set: { power: 'on' } }, 1);
        renderApp(`/devInstanceDetail/${product.productId}/${device.deviceId}/shadow`);
        await deviceTitle();
        const region = await shadowRegion();
        expect(await within(region).findByLabelText('影子版本')).toHaveTextContent('1');
        // The device reports again (its SDK's version is Date.now()) while the page shows version 1.
        await changeShadow(
            platform.db,
            device.deviceId,
            { kind: 'reported', set: { power: 'off' } },
            1_700_000_000_000,
        );

        fireEvent.click(within(region).getByRole('button', { name: '编辑期望值' }));
        const dialog = await screen.findByRole('dialog', { name: '编辑期望值（desired）' });
        const input = within(dialog).getByLabelText(/期望值（JSON 对象）/);
        await userEvent.clear(input);
        await userEvent.type(input, '{{"power":"on"}');
        fireEvent.click(within(dialog).getByRole('button', { name: '确定' }));
        fireEvent.click(
            within(await screen.findByRole('dialog', { name: '下发期望值' })).getByRole('button', { name: '确定' }),
        );
        expect(
            await screen.findByText('影子版本冲突：请求的版本 2 须大于当前版本 1700000000000，请刷新后重试'),
        ).toBeInTheDocument();
        // The form stays open (once the confirmation has gone) for another try.
        expect(await screen.findByRole('dialog', { name: '编辑期望值（desired）' })).toBeInTheDocument();
        expect(await loadShadow(platform.db, device.deviceId)).toMatchObject({
            version: 1_700_000_000_000,
            desired: {},
        });
        // 刷新 shows what the device reported.
        fireEvent.click(
            within(screen.getByRole('dialog', { name: '编辑期望值（desired）' })).getByRole('button', { name: '取消' }),
        );
        await waitFor(() => expect(screen.queryByRole('dialog', { name: '编辑期望值（desired）' })).toBeNull());
        fireEvent.click(within(region).getByRole('button', { name: '刷新' }));
        await waitFor(() => expect(within(region).getByLabelText('影子版本')).toHaveTextContent('1700000000000'));
        expect(JSON.parse(within(region).getByLabelText('设备上报（reported）').textContent ?? '')).toEqual({
            power: 'off',
        });
    });
});
