import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import { http } from 'msw';
import { describe, expect, it } from 'vitest';
import { IMPORT_MAX_BYTES } from '../../schemas/device';
import { bodyRows, chooseOption, mswServer, renderApp } from './helpers';
import { device, deviceFamily, emptyCalls, fail0, ok0 } from './devices.fake';

/**
 * The bulk import dialog on /devices. The upload goes through XMLHttpRequest (for its progress); the answers come
 * from per-test handlers, since FormData bodies through msw under jsdom can lose bytes (NOTES.md). The server's
 * own parsing is proven by its tests and by the end-to-end test.
 */

const csv = (text: string, name = 'devices.csv') => new File([text], name, { type: 'text/csv' });

async function openImport(url = '/devices') {
    renderApp(url);
    await waitFor(() => expect(bodyRows().length).toBeGreaterThan(0));
    fireEvent.click(screen.getByRole('button', { name: '批量导入' }));
    return screen.findByRole('dialog', { name: '批量导入' });
}

function pick(dialog: HTMLElement, file: File) {
    fireEvent.change(within(dialog).getByLabelText('选择文件'), { target: { files: [file] } });
}

const upload = (dialog: HTMLElement) => fireEvent.click(within(dialog).getByRole('button', { name: '上传' }));

describe('bulk import', () => {
    it('asks for a product first (请选择产品!) and sends nothing', async () => {
        const uploads: string[] = [];
        mswServer.use(
            ...deviceFamily([device(1)], emptyCalls()),
            http.post('*/api/device/import', () => {
                uploads.push('import');
                return ok0({ success: [], failure: [] });
            }),
        );
        const dialog = await openImport();
        pick(dialog, csv('deviceName\nlamp_0001\n'));
        upload(dialog);
        expect(await screen.findByText('请选择产品!')).toBeInTheDocument();
        expect(uploads).toHaveLength(0);
    });

    it('uploads for the chosen product, says 文件上传成功! and lists what was written and what was refused', async () => {
        const products: string[] = [];
        mswServer.use(
            ...deviceFamily([device(2, { productId: 2 }), device(1)], emptyCalls()),
            http.post('*/api/device/import', async ({ request }) => {
                products.push(String((await request.formData()).get('productKey')));
                return ok0({
                    success: [{ deviceName: 'lamp_0001' }, { deviceName: 'lamp_0002' }],
                    failure: [
                        { deviceName: 'lamp_0001', msg: '文件中重复', line: 4 },
                        { deviceName: 'a/b', msg: '设备名称只能包含英文字母、数字和特殊字符 - _ @ . :', line: 5 },
                        { deviceName: 'dev_001', msg: '设备已存在', line: 6 },
                    ],
                });
            }),
        );
        const dialog = await openImport('/devices?pk=pkGate00002');
        await waitFor(() =>
            expect(within(dialog).getByRole('combobox', { name: /产品/ })).toHaveTextContent('工业网关'),
        );
        await chooseOption(within(dialog).getByRole('combobox', { name: /产品/ }), '智能路灯');
        pick(dialog, csv('deviceName,remark\nlamp_0001,一号\nlamp_0002,二号\n'));
        expect(within(dialog).getByTestId('upload-file-name')).toHaveTextContent('devices.csv');
        upload(dialog);

        expect(await screen.findByText('文件上传成功!')).toBeInTheDocument();
        expect(products).toEqual(['pkLamp00001']);
        // The result display is a widget of its own chunk: it may paint just after the toast.
        expect(await within(dialog).findByText('导入成功 2 个，失败 3 个')).toBeInTheDocument();
        const written = within(dialog).getByRole('region', { name: '导入成功的设备' });
        expect(within(written).getByText('lamp_0001')).toBeInTheDocument();
        expect(within(written).getByText('lamp_0002')).toBeInTheDocument();
        const refused = within(dialog).getByRole('table', { name: '导入失败列表' });
        const rows = within(refused).getAllByRole('row').slice(1);
        expect(
            within(refused)
                .getAllByRole('columnheader')
                .map((h) => h.textContent),
        ).toEqual(['行号', 'DeviceName', '失败原因']);
        expect(rows.map((r) => r.textContent)).toEqual([
            '4lamp_0001文件中重复',
            '5a/b设备名称只能包含英文字母、数字和特殊字符 - _ @ . :',
            '6dev_001设备已存在',
        ]);
        fireEvent.click(within(dialog).getByRole('button', { name: '继续导入' }));
        expect(await within(dialog).findByText('未选择文件')).toBeInTheDocument();
    });

    it('shows the progress and keeps the buttons disabled while the upload runs', async () => {
        let release: () => void = () => undefined;
        const answered = new Promise<void>((resolve) => (release = resolve));
        mswServer.use(
            ...deviceFamily([device(1)], emptyCalls()),
            http.post('*/api/device/import', async () => {
                await answered;
                return ok0({ success: [{ deviceName: 'lamp_0001' }], failure: [] });
            }),
        );
        const dialog = await openImport('/devices?pk=pkLamp00001');
        pick(dialog, csv('deviceName\nlamp_0001\n'));
        upload(dialog);
        expect(await within(dialog).findByRole('progressbar', { name: '上传进度' })).toBeInTheDocument();
        expect(within(dialog).getByRole('button', { name: '上传中…' })).toBeDisabled();
        expect(within(dialog).getByRole('button', { name: '取消' })).toBeDisabled();
        expect(within(dialog).getByText(/上传中 \d+%|上传完成，正在校验并写入…/)).toBeInTheDocument();
        release();
        expect(await within(dialog).findByText('导入成功 1 个，失败 0 个')).toBeInTheDocument();
    });

    it('shows the server message when the file is refused, and keeps the dialog open', async () => {
        mswServer.use(
            ...deviceFamily([device(1)], emptyCalls()),
            http.post('*/api/device/import', () => fail0('文件缺少 deviceName 列，请使用模板')),
        );
        const dialog = await openImport('/devices?pk=pkLamp00001');
        pick(dialog, csv('name,remark\nx,y\n'));
        upload(dialog);
        expect(await within(dialog).findByText('文件缺少 deviceName 列，请使用模板')).toBeInTheDocument();
        expect(within(dialog).getByRole('button', { name: '上传' })).toBeEnabled();
    });

    it('refuses a file that is not CSV or is over the size limit without uploading it', async () => {
        const uploads: string[] = [];
        mswServer.use(
            ...deviceFamily([device(1)], emptyCalls()),
            http.post('*/api/device/import', () => {
                uploads.push('import');
                return ok0({ success: [], failure: [] });
            }),
        );
        const dialog = await openImport('/devices?pk=pkLamp00001');
        pick(dialog, new File(['x'], 'devices.xlsx'));
        upload(dialog);
        expect(await within(dialog).findByText('仅支持CSV格式的文件（.csv）')).toBeInTheDocument();

        const big = csv('deviceName\n');
        Object.defineProperty(big, 'size', { value: IMPORT_MAX_BYTES + 1 });
        pick(dialog, big);
        upload(dialog);
        expect(await within(dialog).findByText('文件大小不能超过20MB')).toBeInTheDocument();
        expect(uploads).toHaveLength(0);
        expect(within(dialog).getByText(/大小不超过20MB，最多100,000行/)).toBeInTheDocument();
    });
});
