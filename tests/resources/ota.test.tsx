import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import ota from '../../resources/ota';
import { createTestServer, type TestServer } from '../../server/testing';
import { mswServer, platformHandler, renderDefinitions } from './helpers';

/**
 * 固件升级 as a definition (resources/ota.tsx) against the reference platform in-process: the upload form refuses a
 * bad version with the shared schema's words; a package uploaded is listed; 批量升级 over the whole product makes a
 * batch whose page lists the device 待推送 with its 取消.
 */

let platform: TestServer;
const SLOW = { timeout: 15_000 };
let packageId: number;

async function post(path: string, body: BodyInit, type: string) {
    const res = await platform.fetch(path, { method: 'POST', body, headers: { 'content-type': type } });
    return ((await res.json()) as { data: Record<string, unknown> }).data;
}

/** A product (made as the console's form sends it) with one device. */
async function productWithDevice(productName: string, deviceName: string) {
    const form = 'application/x-www-form-urlencoded';
    const product = await post(
        '/api/product/save',
        new URLSearchParams({
            productName,
            nodeType: '0',
            gatewayType: '0',
            categoryId: '3',
            networkType: '5',
            dataType: '0',
            projectCode: '',
            remark: '',
        }),
        form,
    );
    await post('/api/device/save', new URLSearchParams({ productKey: String(product.productKey), deviceName }), form);
    return product;
}

beforeAll(async () => {
    platform = await createTestServer({ seed: false });
    const product = await productWithDevice('固件产品', 'ota_dev_1');
    // A device of another product: the package's device pickers must not offer it.
    await productWithDevice('别的产品', 'other_dev_1');
    const query = new URLSearchParams({
        name: '主控固件',
        productId: String(product.productId),
        version: '2.0.0',
        signMethod: 'SHA256',
        fileName: 'main.bin',
    });
    const pkg = await post(
        `/api/ota/package/upload?${query}`,
        new Uint8Array([1, 2, 3, 4, 5]),
        'application/octet-stream',
    );
    packageId = Number(pkg.id);
});
afterAll(() => platform.close());
beforeEach(() => {
    mswServer.use(platformHandler(platform));
});

describe('/ota', () => {
    it('lists packages and refuses a bad version in the upload form with the shared message', async () => {
        renderDefinitions([ota], '/ota');
        const row = (await screen.findByText('主控固件', {}, SLOW)).closest('tr') as HTMLElement;
        expect(row).toHaveTextContent('2.0.0');
        expect(row).toHaveTextContent('SHA256');
        expect(row).toHaveTextContent('未验证');
        fireEvent.click(screen.getByRole('button', { name: '上传固件' }));
        const dialog = await screen.findByRole('dialog', { name: '上传固件' });
        await userEvent.type(within(dialog).getByRole('textbox', { name: /固件名称/ }), 'wifi');
        await userEvent.type(within(dialog).getByRole('textbox', { name: /版本号/ }), '1.0 beta');
        // 上传固件 is the generated create dialog: the file is one of its inputs.
        fireEvent.change(within(dialog).getByLabelText(/固件文件/), {
            target: { files: [new File([new Uint8Array([9, 9])], 'wifi.bin')] },
        });
        expect(within(dialog).getByText(/wifi\.bin/)).toBeInTheDocument();
        fireEvent.click(within(dialog).getByRole('button', { name: '确定' }));
        expect(
            await within(dialog).findByText('版本号只能包含字母、数字、下划线、中划线和点号，不超过64个字符'),
        ).toBeInTheDocument();
    });

    it("验证 offers the package's product's devices only", async () => {
        renderDefinitions([ota], '/ota');
        const row = (await screen.findByText('主控固件', {}, SLOW)).closest('tr') as HTMLElement;
        fireEvent.click(within(row).getByRole('button', { name: '验证' }));
        const dialog = await screen.findByRole('dialog', { name: '验证固件' });
        expect(await within(dialog).findByText('ota_dev_1', {}, SLOW)).toBeInTheDocument();
        expect(within(dialog).queryByText('other_dev_1')).not.toBeInTheDocument();
    });

    it('批量升级 makes a batch; its page lists the device 待推送 with 取消', async () => {
        renderDefinitions([ota], '/ota');
        const row = (await screen.findByText('主控固件', {}, SLOW)).closest('tr') as HTMLElement;
        fireEvent.click(within(row).getByRole('button', { name: '批量升级' }));
        const dialog = await screen.findByRole('dialog', { name: '批量升级' });
        fireEvent.click(within(dialog).getByRole('button', { name: '确定' }));
        expect(await screen.findByText('批次已创建，覆盖 1 台设备', {}, SLOW)).toBeInTheDocument();
        await waitFor(() => expect(screen.queryByRole('dialog')).not.toBeInTheDocument());

        // The list page's second tab (list.tabs) lists every batch; the package list stays the generated one.
        fireEvent.click(screen.getByRole('tab', { name: '升级批次' }));
        const batchRow = (await screen.findByText('静态升级', {}, SLOW)).closest('tr') as HTMLElement;
        // The batch's id and its package's id both link (to the batch's page, to the package's page).
        expect(
            within(batchRow)
                .getAllByRole('link')
                .map((a) => a.getAttribute('href')),
        ).toContain(`/ota/package/${packageId}`);
        expect(screen.queryByRole('button', { name: '上传固件' })).toBeNull();
        fireEvent.click(screen.getByRole('tab', { name: '固件列表' }));
        expect(await screen.findByRole('button', { name: '上传固件' })).toBeInTheDocument();

        const batches = await platform.fetch(`/api/ota/batch?packageId=${packageId}`);
        const batchId = ((await batches.json()) as { data: { records: Array<{ id: number }> } }).data.records[0].id;
        renderDefinitions([ota], `/ota/batch/${batchId}`);
        const device = (await screen.findByText('ota_dev_1', {}, SLOW)).closest('tr') as HTMLElement;
        expect(device).toHaveTextContent('待推送');
        expect(device).toHaveTextContent('0%');
        // The device's step and the batch's finished share as bars with their words (the engine's progress field).
        expect(within(device).getByRole('progressbar', { name: '进度' })).toHaveAttribute('aria-valuenow', '0');
        const bars = screen.getAllByRole('progressbar', { name: '进度' }).map((b) => b.getAttribute('aria-valuetext'));
        expect(bars).toContainEqual(expect.stringMatching(/^0%（共 1 台）$/));
        expect(screen.getAllByText(/待推送 1 \/ 已推送 0/).length).toBeGreaterThan(0);
        fireEvent.click(within(device).getByRole('button', { name: '取消' }));
        const confirm = await screen.findByRole('dialog');
        fireEvent.click(within(confirm).getByRole('button', { name: '确定' }));
        expect(await screen.findByText('已取消', {}, SLOW)).toBeInTheDocument();
        await waitFor(async () => {
            const res = await platform.fetch(`/api/ota/batch/detail?id=${batchId}`);
            expect(((await res.json()) as { data: { counts: { cancelled: number } } }).data.counts.cancelled).toBe(1);
        }, SLOW);
    });
});
