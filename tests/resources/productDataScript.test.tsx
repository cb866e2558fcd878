import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { createTestServer, type TestServer } from '../../server/testing';
import { mswServer, platformHandler, renderApp } from './helpers';

/**
 * The product page's 数据解析 tab against the in-process platform (its sandbox included): Alibaba's template loaded
 * for a 透传/自定义 product, 模拟运行 up and down with the output shown, the script's error shown when it fails, 发布
 * after a confirmation; a standard-format product is told why no script applies.
 */
let platform: TestServer;

interface ProductRow {
    productId: number;
    productName: string;
    dataType: number;
}

async function api<T>(path: string): Promise<T> {
    const body = await (await platform.fetch(path)).json();
    expect(body.code, JSON.stringify(body)).toBe(200);
    return body.data as T;
}

let raw: ProductRow;
let standard: ProductRow;

beforeAll(async () => {
    // A roomy deadline: this file is about the screen, and jsdom's rendering beside it slows every thread down (the
    // deadline itself is tests/server/dataScripts.test.ts's and tests/unit/dataScriptSandbox.test.ts's).
    platform = await createTestServer({ seed: true, config: { scripts: { timeoutMs: 2_000, memoryMb: 16 } } });
    await import('../../src/engine/page');
    const page = await api<{ records: ProductRow[] }>('/api/product?pageNumber=1&pageSize=100');
    raw = page.records.find((p) => p.dataType === 1)!;
    standard = page.records.find((p) => p.dataType === 0)!;
});

afterAll(async () => {
    await platform?.close();
});

beforeEach(() => mswServer.use(platformHandler(platform)));

const SLOW = { timeout: 15_000 };

async function openScript(product: ProductRow) {
    renderApp(`/productDetail/script?productId=${product.productId}`);
    await screen.findByRole('heading', { name: product.productName }, SLOW);
}

describe('数据解析 tab', { timeout: 60_000 }, () => {
    it("runs Alibaba's template on the sample, up then down, and shows the output", async () => {
        const user = userEvent.setup();
        await openScript(raw);
        const script = await screen.findByRole('textbox', { name: '脚本' }, SLOW);
        expect((script as HTMLTextAreaElement).value).toContain('function rawDataToProtocol(bytes)');
        expect(screen.getByRole('region', { name: '数据解析脚本' })).toHaveTextContent('尚未发布');
        await user.click(screen.getByRole('button', { name: '模拟运行' }));
        const up = await screen.findByRole('status', { name: '模拟运行成功' }, SLOW);
        expect(up).toHaveTextContent('"method": "thing.event.property.post"');
        expect(up).toHaveTextContent('"prop_int16": 50');
        await user.click(screen.getByRole('radio', { name: /下行/ }));
        const input = screen.getByRole('textbox', { name: '模拟输入' });
        await user.clear(input);
        await user.click(input);
        await user.paste(
            '{"method":"thing.service.property.set","id":"12345","params":{"prop_float":123.452,"prop_int16":333,"prop_bool":1}}',
        );
        await user.click(screen.getByRole('button', { name: '模拟运行' }));
        await waitFor(() =>
            expect(screen.getByRole('status', { name: '模拟运行成功' })).toHaveTextContent(
                '十六进制：0100003039014d0142f6e76d',
            ),
        );
    });

    it("shows the script's error, and the server's refusal of a sample it cannot read", async () => {
        const user = userEvent.setup();
        await openScript(raw);
        const script = await screen.findByRole('textbox', { name: '脚本' }, SLOW);
        await user.clear(script);
        await user.click(script);
        await user.paste('function rawDataToProtocol(bytes) { while (true) {} }');
        await user.click(screen.getByRole('button', { name: '模拟运行' }));
        const failed = await screen.findByRole('status', { name: '脚本执行失败' }, SLOW);
        expect(failed).toHaveTextContent('脚本执行超时（超过 2000 毫秒）');
        const input = screen.getByRole('textbox', { name: '模拟输入' });
        await user.clear(input);
        await user.type(input, 'zz');
        await user.click(screen.getByRole('button', { name: '模拟运行' }));
        expect(await screen.findByRole('status', { name: '模拟运行失败' }, SLOW)).toHaveTextContent(
            '模拟数据不是有效的十六进制',
        );
    });

    it('publishes after a confirmation, and says which version runs', async () => {
        const user = userEvent.setup();
        await openScript(raw);
        await screen.findByRole('textbox', { name: '脚本' }, SLOW);
        await user.click(screen.getByRole('button', { name: '发布' }));
        const dialog = await screen.findByRole('dialog');
        expect(dialog).toHaveTextContent('确定发布吗？');
        await user.click(within(dialog).getByRole('button', { name: '确定' }));
        expect(await screen.findByText('发布成功', {}, SLOW)).toBeInTheDocument();
        await waitFor(
            () => expect(screen.getByRole('region', { name: '数据解析脚本' })).toHaveTextContent('已发布第 1 版'),
            SLOW,
        );
        const saved = await api<{ version: number; published: string }>(
            `/api/product/script?productId=${raw.productId}`,
        );
        expect(saved.version).toBe(1);
        expect(saved.published).toContain('function rawDataToProtocol(bytes)');
    });

    it('tells a standard-format product why it needs no script', async () => {
        await openScript(standard);
        expect(await screen.findByText(/无需数据解析脚本/, {}, SLOW)).toBeInTheDocument();
        expect(screen.queryByRole('textbox', { name: '脚本' })).toBeNull();
    });
});
