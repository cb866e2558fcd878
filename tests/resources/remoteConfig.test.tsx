import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { createTestServer, type TestServer } from '../../server/testing';
import { mswServer, platformHandler, renderApp } from './helpers';

// The product page's 远程配置 tab against the in-process reference server: the current file (empty state first),
// 编辑 with its checks and size, 历史版本 with 恢复, 批量推送 with its confirmation, and the pushed devices' states.
let platform: TestServer;
let n = 0;

async function api<T>(path: string, init?: RequestInit): Promise<T> {
    const body = await (await platform.fetch(path, init)).json();
    expect(body.code, JSON.stringify(body)).toBe(200);
    return body.data as T;
}

const form = (values: Record<string, string | number>) => ({
    method: 'POST',
    body: new URLSearchParams(Object.entries(values).map(([k, v]) => [k, String(v)])),
});

/** A new product (with one device, not connected) for each test. */
async function newProduct() {
    const product = await api<{ productId: number; productKey: string; productName: string }>(
        '/api/product/save',
        form({
            productName: `配置产品${Date.now() % 100000}${++n}`,
            nodeType: 0,
            gatewayType: 0,
            categoryId: 3,
            networkType: 1,
            dataType: 1,
        }),
    );
    await platform.fetch('/api/device/save', form({ productKey: product.productKey, deviceName: `cfgdev${n}` }));
    return product;
}

const saveConfig = (productId: number, format: string, content: string) =>
    api<{ version: number }>('/api/product/config/save', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ productId, format, content }),
    });

const current = () => screen.getByRole('region', { name: '当前配置' });
const value = (label: string) => within(current()).getByLabelText(label, { selector: 'dd' });

beforeAll(async () => {
    platform = await createTestServer({ seed: true });
    await import('../../src/engine/page');
});

afterAll(async () => {
    await platform?.close();
});

beforeEach(() => mswServer.use(platformHandler(platform)));

const open = async (productId: number) => {
    renderApp(`/productDetail/config?productId=${productId}`);
    return screen.findByRole('region', { name: '当前配置' }, { timeout: 15_000 });
};

describe('远程配置 tab', { timeout: 60_000 }, () => {
    it('shows the empty state, then 编辑 checks the JSON, shows the size as typed and saves version 1', async () => {
        const user = userEvent.setup();
        const product = await newProduct();
        await open(product.productId);
        expect(await within(current()).findByText('该产品还没有配置文件')).toBeInTheDocument();
        expect(within(current()).queryByRole('button', { name: '批量推送' })).not.toBeInTheDocument();
        expect(within(current()).queryByRole('button', { name: '历史版本' })).not.toBeInTheDocument();
        expect(screen.getByRole('tab', { name: '远程配置', selected: true })).toBeInTheDocument();

        await user.click(within(current()).getByRole('button', { name: '编辑' }));
        const dialog = await screen.findByRole('dialog', { name: '编辑配置文件' });
        const content = within(dialog).getByRole('textbox', { name: /配置内容/ });
        await user.click(content);
        await user.paste('{"a":');
        await user.click(within(dialog).getByRole('button', { name: '确定' }));
        expect(await within(dialog).findByText(/^配置内容不是有效的 JSON：/)).toBeInTheDocument();
        await user.clear(content);
        await user.paste('{"interval":30}');
        expect(await within(dialog).findByText('15 B / 64 KB')).toBeInTheDocument();
        await user.click(within(dialog).getByRole('button', { name: '确定' }));
        expect(await screen.findByText('已保存为版本 v1')).toBeInTheDocument();
        await waitFor(() => expect(value('版本')).toHaveTextContent('v1'));
        expect(value('大小')).toHaveTextContent('15 B');
        expect(value('格式')).toHaveTextContent('JSON');
        expect(value('配置内容')).toHaveTextContent('{"interval":30}');
    });

    it('restores an old version from 历史版本 after asking', async () => {
        const user = userEvent.setup();
        const product = await newProduct();
        await saveConfig(product.productId, 'text', 'mode=eco');
        await saveConfig(product.productId, 'text', 'mode=max');
        await open(product.productId);
        await waitFor(() => expect(value('版本')).toHaveTextContent('v2'));
        await user.click(within(current()).getByRole('button', { name: '历史版本' }));
        const dialog = await screen.findByRole('dialog', { name: '历史版本' });
        await user.click(await within(dialog).findByRole('button', { name: '恢复版本 v1' }));
        const confirm = await screen.findByRole('dialog', { name: '恢复配置' });
        expect(confirm).toHaveTextContent('确定恢复为版本 v1 的内容吗？');
        await user.click(within(confirm).getByRole('button', { name: '确定' }));
        expect(await screen.findByText('已恢复，当前版本 v3')).toBeInTheDocument();
        expect(await within(dialog).findByRole('button', { name: '恢复版本 v3' })).toBeInTheDocument();
    });

    it('批量推送 asks first, then lists the push and its devices (离线未推送 when not connected)', async () => {
        const user = userEvent.setup();
        const product = await newProduct();
        await saveConfig(product.productId, 'json', '{"threshold":42}');
        await open(product.productId);
        const pushes = screen.getByRole('region', { name: '推送记录' });
        expect(await within(pushes).findByText('暂无推送记录')).toBeInTheDocument();
        await user.click(await within(current()).findByRole('button', { name: '批量推送' }));
        const dialog = await screen.findByRole('dialog', { name: '批量推送配置' });
        expect(within(dialog).getByRole('radio', { name: '全部设备' })).toBeChecked();
        await user.click(within(dialog).getByRole('button', { name: '确定' }));
        const confirm = await screen.findByRole('dialog', { name: '批量推送' });
        expect(confirm).toHaveTextContent('确定将配置版本 v1 推送给本产品的全部设备吗？');
        await user.click(within(confirm).getByRole('button', { name: '确定' }));
        expect(await screen.findByText('已推送：共 1 台，在线推送 0 台，离线未推送 1 台')).toBeInTheDocument();
        const row = await within(pushes).findByRole('button', { name: /的设备状态$/ });
        await user.click(row);
        const states = await screen.findByRole('dialog', { name: /^推送设备状态/ });
        expect(await within(states).findByText('cfgdev3')).toBeInTheDocument();
        expect(within(states).getByText('离线未推送', { selector: 'td *, td' })).toBeInTheDocument();
    });
});
