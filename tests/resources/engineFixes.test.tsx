import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import { http } from 'msw';
import { describe, expect, it } from 'vitest';
import { defineResource, type AnyPaths } from '../../src/engine';
import { bodyRows, mswServer, ok, renderDefinitions } from './helpers';

/** Issue 29's engine gaps, each on a small definition of its own. */

const FIRMWARES = [
    { firmwareId: 1, name: 'v1.0', productKey: 'pkLamp', secret: 'abc123' },
    { firmwareId: 2, name: 'v2.0', productKey: 'pkMeter', secret: 'xyz789' },
];

const firmwares = defineResource<AnyPaths>({
    name: 'firmwares',
    label: '固件',
    idField: 'firmwareId',
    fields: {
        name: { label: '固件名称' },
        productKey: { label: 'ProductKey' },
        secret: { label: '签名密钥', type: 'password', masked: true },
    },
    api: {
        success: 'code200',
        custom: {
            list: { get: '/api/test/firmwares', read: 'data' },
            one: { get: '/api/test/firmware', read: 'data' },
            devices: {
                get: '/api/test/devices',
                paging: ['pageNum', 'pageSize'],
                read: 'data.list',
                total: 'data.total',
            },
            upgrade: { post: '/api/test/upgrade', read: 'data' },
        },
    },
    views: { list: false, show: false, edit: false, create: false },
    pages: [
        {
            path: '/firmwares',
            title: '固件',
            sections: [
                {
                    kind: 'list',
                    list: {
                        source: { call: 'list' },
                        columns: ['name', 'productKey'],
                        rowId: 'firmwareId',
                        paging: false,
                        rowActions: [
                            {
                                kind: 'form',
                                label: '升级',
                                ariaLabel: ({ record }) => `升级 ${record.name}`,
                                fields: [
                                    [
                                        'devices',
                                        {
                                            label: '设备',
                                            input: 'picker',
                                            picker: {
                                                source: {
                                                    call: 'devices',
                                                    params: ({ record }) => ({ productKey: record.productKey }),
                                                },
                                                rowId: 'deviceName',
                                                columns: [['deviceName', { label: 'DeviceName' }]],
                                            },
                                        },
                                    ],
                                ],
                                submit: { call: 'upgrade' },
                            },
                        ],
                    },
                },
            ],
        },
        {
            path: '/firmware/:id',
            title: '固件详情',
            record: { call: 'one' },
            sections: [{ kind: 'fields', title: '基本信息', fields: ['name', 'secret'] }],
        },
    ],
});

describe('issue 29 fixes', () => {
    it("1: a picker in a row action's form receives the row as record", async () => {
        const asked: URLSearchParams[] = [];
        mswServer.use(
            http.get('/api/test/firmwares', () => ok(FIRMWARES)),
            http.get('/api/test/devices', ({ request }) => {
                const q = new URL(request.url).searchParams;
                asked.push(q);
                return ok({ list: [{ deviceName: `${q.get('productKey')}-01` }], total: 1 });
            }),
        );
        renderDefinitions([firmwares], '/firmwares');
        await waitFor(() => expect(bodyRows()).toHaveLength(2));
        fireEvent.click(screen.getByRole('button', { name: '升级 v2.0' }));
        const dialog = await screen.findByRole('dialog');
        expect(await within(dialog).findByText('pkMeter-01')).toBeInTheDocument();
        expect(asked[asked.length - 1].get('productKey')).toBe('pkMeter');
    });

    it('9: a masked password shows its value on 显示', async () => {
        mswServer.use(http.get('/api/test/firmware', () => ok(FIRMWARES[0])));
        renderDefinitions([firmwares], '/firmware/1');
        expect(await screen.findByLabelText('签名密钥已隐藏')).toHaveTextContent('******');
        fireEvent.click(screen.getByRole('button', { name: '显示' }));
        expect(await screen.findByText('abc123')).toBeInTheDocument();
        fireEvent.click(screen.getByRole('button', { name: '隐藏' }));
        expect(screen.queryByText('abc123')).not.toBeInTheDocument();
    });
});
