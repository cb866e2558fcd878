import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import { http } from 'msw';
import { describe, expect, it } from 'vitest';
import { defineResource, type AnyPaths } from '../../src/engine';
import { bodyRows, mswServer, ok, renderDefinitions } from './helpers';

/** Issue 29 items 3, 7, 10 and 11: each fixed in the engine, on a small definition of its own. */

const BROKERS = [
    {
        brokerId: 7,
        name: 'broker-7',
        port: 3306,
        messages: 1234567,
        load: 0.5,
        enabled: true,
        note: '一段很长很长的说明，列表里只显示一行，详情页显示全部内容，不被截断',
    },
];

const brokers = defineResource<AnyPaths>({
    name: 'brokers',
    label: '消息代理',
    path: 'broker',
    idField: 'brokerId',
    fields: {
        name: { label: '名称', type: 'link', linkTo: (r) => `/brokerDetail/${String(r.brokerId)}/info` },
        port: { label: '端口', type: 'number', number: { grouping: false } },
        messages: { label: '消息数', type: 'number', views: ['list', 'show'] },
        load: { label: '负载', type: 'number', number: { decimals: 2, unit: ' %' }, views: ['list', 'show'] },
        note: { label: '说明', ellipsis: 80 },
        cert: { label: '证书', input: 'file', views: ['create'], file: { accept: ['pem'] } },
    },
    list: {
        perPage: 10,
        perPageOptions: [10],
        createInDialog: true,
        createLabel: '添加Broker',
        show: false,
        rowActions: [
            {
                kind: 'switch',
                label: '启用',
                checked: ({ record }) => !!record.enabled,
                on: { kind: 'call', label: '开', call: { call: 'toggle' } },
                off: { kind: 'call', label: '关', call: { call: 'toggle' } },
            },
            {
                kind: 'upload',
                label: '导入证书',
                call: { call: 'importCert' },
                refusals: { missing: '请先选择证书文件' },
            },
        ],
    },
    views: { show: false, edit: false },
    pages: [
        {
            path: '/brokerDetail/:id/*',
            title: '代理详情',
            record: { call: 'getOne', params: ({ route }) => ({ id: route.id }) },
            tabs: [
                {
                    key: 'info',
                    label: '基本信息',
                    sections: [{ kind: 'fields', fields: ['name', 'port', 'messages', 'load', 'note'] }],
                },
            ],
        },
    ],
    api: {
        success: 'code200',
        idField: 'brokerId',
        getList: { get: '/api/test/brokers', read: 'data.records', total: 'data.total' },
        getOne: { get: '/api/test/broker', params: (r) => ({ brokerId: r.id }), read: 'data' },
        create: { post: '/api/test/broker/save' },
        custom: { toggle: { post: '/api/test/broker/toggle' }, importCert: { post: '/api/test/broker/cert' } },
    },
});

const listHandlers = () => [
    http.get('*/api/test/brokers', () => ok({ records: BROKERS, total: 1 })),
    http.get('*/api/test/broker', () => ok(BROKERS[0])),
];

describe('numbers, ellipsis and links (items 10, 11)', () => {
    it('shows a port without grouping, other numbers grouped, decimals and a unit; the list cuts long text', async () => {
        mswServer.use(...listHandlers());
        renderDefinitions([brokers], '/broker');
        await waitFor(() => expect(bodyRows()).toHaveLength(1));
        const row = bodyRows()[0];
        expect(within(row).getByText('3306')).toBeInTheDocument();
        expect(within(row).queryByText('3,306')).toBeNull();
        expect(within(row).getByText('1,234,567')).toBeInTheDocument();
        expect(within(row).getByText('0.50 %')).toBeInTheDocument();
        // The list cell is one line cut at 80 px, with the whole text as its title.
        expect(within(row).getByTitle(BROKERS[0].note)).toBeInTheDocument();
        // The name links to its page from the list.
        expect(within(row).getByRole('link', { name: 'broker-7' })).toHaveAttribute('href', '/brokerDetail/7/info');
    });

    it('on the record’s own page: the whole text (no cut), its name as text and not a link to where it is', async () => {
        mswServer.use(...listHandlers());
        renderDefinitions([brokers], '/brokerDetail/7/info');
        const note = await screen.findByRole('definition', { name: '说明' });
        expect(within(note).getByText(BROKERS[0].note)).toBeInTheDocument();
        expect(within(note).queryByTitle(BROKERS[0].note)).toBeNull();
        const name = screen.getByRole('definition', { name: '名称' });
        expect(within(name).getByText('broker-7')).toBeInTheDocument();
        expect(within(name).queryByRole('link')).toBeNull();
        expect(within(screen.getByRole('definition', { name: '端口' })).getByText('3306')).toBeInTheDocument();
    });
});

describe('a switch, a missing file, a file in a create dialog (items 11, 7, 3)', () => {
    it('names a switch by its label, not by the on / off call it would run', async () => {
        mswServer.use(...listHandlers());
        renderDefinitions([brokers], '/broker');
        await waitFor(() => expect(bodyRows()).toHaveLength(1));
        const toggle = within(bodyRows()[0]).getByRole('switch', { name: '启用' });
        expect(toggle).toBeChecked();
        expect(within(bodyRows()[0]).queryByRole('switch', { name: '关' })).toBeNull();
    });

    it('says the upload action’s own words when 上传 is pressed without a file', async () => {
        mswServer.use(...listHandlers());
        renderDefinitions([brokers], '/broker');
        await waitFor(() => expect(bodyRows()).toHaveLength(1));
        fireEvent.click(within(bodyRows()[0]).getByRole('button', { name: '导入证书' }));
        const dialog = await screen.findByRole('dialog', { name: '导入证书' });
        fireEvent.click(within(dialog).getByRole('button', { name: '上传' }));
        expect(await within(dialog).findByText('请先选择证书文件')).toBeInTheDocument();
        expect(within(dialog).queryByText('请选择文件')).toBeNull();
    });

    it('shows the upload bar in the generated create dialog while a form with a file is sent', async () => {
        let release = () => {};
        const gate = new Promise<void>((resolve) => (release = resolve));
        const received: string[] = [];
        mswServer.use(
            ...listHandlers(),
            http.post('*/api/test/broker/save', async ({ request }) => {
                const form = await request.formData();
                received.push(...form.keys());
                await gate;
                return ok({ brokerId: 8 });
            }),
        );
        renderDefinitions([brokers], '/broker');
        await waitFor(() => expect(bodyRows()).toHaveLength(1));
        fireEvent.click(screen.getByRole('button', { name: '添加Broker' }));
        const dialog = await screen.findByRole('dialog', { name: '添加Broker' });
        fireEvent.change(within(dialog).getByRole('textbox', { name: '名称' }), { target: { value: 'broker-8' } });
        const box = dialog.querySelector('input[type="file"]') as HTMLInputElement;
        fireEvent.change(box, { target: { files: [new File(['-----BEGIN CERT-----'], 'ca.pem')] } });
        expect(within(dialog).getByText(/ca\.pem/)).toBeInTheDocument();
        expect(within(dialog).queryByRole('progressbar', { name: '上传进度' })).toBeNull();
        fireEvent.click(within(dialog).getByRole('button', { name: '确定' }));
        const bar = await within(dialog).findByRole('progressbar', { name: '上传进度' });
        expect(within(dialog).getByText(/上传中 \d+%/)).toBeInTheDocument();
        await waitFor(() => expect(received).toContain('cert'));
        expect(bar).toBeInTheDocument();
        release();
        expect(await screen.findByText('创建成功')).toBeInTheDocument();
    });
});
